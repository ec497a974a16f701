/** SLA marks: the list row's "Overdue" / "Due in …" pill, and the thread header's due times and breaches. */
import { clockTime, duration } from '../ui/time.ts';
import { currentTime } from '../ui/clock.ts';
import type { Conversation, SlaTarget } from '../types.ts';

const targetNames: Record<SlaTarget, string> = { first_response: 'First response', next_response: 'Next response', resolution: 'Resolution' };

/** The list row's mark: only what needs attention (late, or due within the hour). */
export function SlaMark({ conversation: c }: { conversation: Conversation }) {
  const sla = c.sla;
  if (!sla?.due_at || (sla.state !== 'breached' && sla.state !== 'due_soon')) return null;
  const seconds = (Date.parse(sla.due_at) - currentTime()) / 1000;
  return sla.state === 'breached' ? (
    <span class="pill sla-late" title={`SLA: due ${clockTime(sla.due_at)}`}>
      Overdue {duration(Math.max(60, -seconds))}
    </span>
  ) : (
    <span class="pill sla-soon" title={`SLA: due ${clockTime(sla.due_at)}`}>
      Due in {duration(Math.max(60, seconds))}
    </span>
  );
}

/** The thread header's line: each target's due time, late ones marked, and the breaches recorded. */
export function SlaLine({ conversation: c }: { conversation: Conversation }) {
  const sla = c.sla;
  if (!sla) return null;
  const now = currentTime();
  const live = c.status === 'open' || c.status === 'pending';
  // What is still to do: the first response until an agent replied, the next while the customer waits, resolution until resolved.
  const due: { target: SlaTarget; at: string | null }[] = [
    { target: 'first_response', at: live && !c.first_response_at ? sla.first_response_due_at : null },
    { target: 'next_response', at: sla.next_response_due_at },
    { target: 'resolution', at: live ? sla.resolution_due_at : null },
  ];
  const shown = due.filter((d): d is { target: SlaTarget; at: string } => d.at !== null);
  return (
    <div class="sla-line small" aria-label="SLA">
      <span class="muted">SLA · {sla.policy_name}:</span>
      {shown.length === 0 && <span class="muted">nothing due</span>}
      {shown.map((d) => {
        const late = Date.parse(d.at) <= now;
        return (
          <span class={`sla-due${late ? ' late' : Date.parse(d.at) - now <= 3_600_000 ? ' soon' : ''}`}>
            {targetNames[d.target]} {late ? 'was due' : 'due'} {clockTime(d.at)}
          </span>
        );
      })}
      {sla.breaches.length > 0 && (
        <span class="sla-breaches" title={sla.breaches.map((b) => `${targetNames[b.target]} missed (due ${clockTime(b.due_at)})`).join('\n')}>
          {sla.breaches.length === 1 ? `${targetNames[sla.breaches[0]!.target]} missed` : `${sla.breaches.length} targets missed`}
        </span>
      )}
    </div>
  );
}
