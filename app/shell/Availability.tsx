/** The agent's own availability (live / away), shared with the team and the widget's online badge. */
import { api } from '../api.ts';
import { loadMembers, myMember } from '../session.ts';
import { useAction } from '../ui/useAction.ts';
import type { Availability as Status } from '../types.ts';

const labels: Record<Status, string> = { live: 'Available', away: 'Away', offline: 'Offline' };

export function Availability() {
  const status = myMember.value?.status ?? 'offline';
  const { run, busy } = useAction(async (next: Status) => {
    await api.patch('/api/v1/team/status', { status: next });
    await loadMembers();
  });
  return (
    <label class="availability">
      <span class={`dot ${status}`} aria-hidden="true" />
      {/* On a phone the bar shows the dot and this word; the select lies invisible over them (phone.css). */}
      <span class="availability-label" aria-hidden="true">
        {labels[status]}
      </span>
      <select
        class="availability-select"
        aria-label="Your availability"
        value={status}
        disabled={busy}
        onChange={(e) => void run(e.currentTarget.value as Status)}
      >
        <option value="live">{labels.live}</option>
        <option value="away">{labels.away}</option>
        <option value="offline">{labels.offline}</option>
      </select>
    </label>
  );
}
