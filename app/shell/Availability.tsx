/** The agent's own availability (live / away), shared with the team and the widget's online badge. */
import { api } from '../api.ts';
import { loadMembers, myMember } from '../session.ts';
import { useAction } from '../ui/useAction.ts';
import type { Availability as Status } from '../types.ts';

export function Availability() {
  const status = myMember.value?.status ?? 'offline';
  const { run, busy } = useAction(async (next: Status) => {
    await api.patch('/api/v1/team/status', { status: next });
    await loadMembers();
  });
  return (
    <label class="availability">
      <span class={`dot ${status}`} aria-hidden="true" />
      <select
        class="availability-select"
        aria-label="Your availability"
        value={status}
        disabled={busy}
        onChange={(e) => void run(e.currentTarget.value as Status)}
      >
        <option value="live">Available</option>
        <option value="away">Away</option>
        <option value="offline">Offline</option>
      </select>
    </label>
  );
}
