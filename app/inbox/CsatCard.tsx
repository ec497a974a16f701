/** The customer's satisfaction rating in the thread (or that it was asked and not answered yet). */
import { clockTime } from '../ui/time.ts';
import type { ConversationCsat } from '../types.ts';

const words = ['', 'Very bad', 'Bad', 'OK', 'Good', 'Very good'];

export function CsatCard({ csat, customerName }: { csat: ConversationCsat; customerName: string }) {
  if (csat.rating === null) {
    return (
      <div class="csat-card pending" role="note" aria-label="Satisfaction survey">
        <span class="muted small">
          Satisfaction survey sent {clockTime(csat.asked_at)}: “{csat.question}” · no rating yet
        </span>
      </div>
    );
  }
  return (
    <div class={`csat-card rated r${csat.rating}`} role="note" aria-label={`Customer rating: ${csat.rating} of 5`}>
      <div class="csat-head">
        <span class="csat-stars" aria-hidden="true">
          {[1, 2, 3, 4, 5].map((n) => (
            <span class={n <= csat.rating! ? 'on' : ''}>★</span>
          ))}
        </span>
        <strong>
          {customerName} rated {csat.rating} of 5 · {words[csat.rating]}
        </strong>
      </div>
      {csat.comment && <p class="csat-comment">“{csat.comment}”</p>}
      <span class="muted small">
        {csat.rated_at ? clockTime(csat.rated_at) : ''} · asked “{csat.question}”
      </span>
    </div>
  );
}
