/** Assign (to me or a teammate), resolve, close, reopen: each re-reads the thread and the list. */
import { api } from '../api.ts';
import { isManager, me, members } from '../session.ts';
import type { ConversationDetail } from '../types.ts';
import { useAction } from '../ui/useAction.ts';
import { Notice } from '../ui/Notice.tsx';
import { loadConversations } from './store.ts';
import { loadThread } from './thread-store.ts';

export function ConversationActions({ conversation: c }: { conversation: ConversationDetail }) {
  const myId = me.value?.user.id;
  const act = useAction(async (call: () => Promise<unknown>) => {
    await call();
    await Promise.all([loadThread(c.id), loadConversations()]);
  });
  const assignTo = (userId: string) => act.run(() => api.post(`/api/v1/team/assign/${c.id}?agent_id=${encodeURIComponent(userId)}`));
  const assignMe = () => {
    const mine = members.value.find((m) => m.user_id === myId);
    // Agents may only take a conversation themselves, by their agent number (owners and admins use team assign).
    return act.run(() => api.put(`/api/v1/conversations/${c.id}/assign/${mine?.agent_number ?? 0}`));
  };
  const finished = c.status === 'resolved' || c.status === 'closed';
  const activeMembers = members.value.filter((m) => m.is_active);
  return (
    <div class="actions">
      {c.assignee_id !== myId && (
        <button class="btn" onClick={assignMe} disabled={act.busy}>Assign to me</button>
      )}
      {isManager.value && (
        <select
          class="input small"
          aria-label="Assignee"
          value={c.assignee_id ?? ''}
          disabled={act.busy}
          onChange={(e) => e.currentTarget.value && void assignTo(e.currentTarget.value)}
        >
          <option value="" disabled>Unassigned</option>
          {activeMembers.map((m) => (
            <option value={m.user_id}>{m.user_id === myId ? `${m.name} (me)` : m.name}</option>
          ))}
        </select>
      )}
      {finished ? (
        <button class="btn" onClick={() => act.run(() => api.put(`/api/v1/conversations/${c.id}/reopen`))} disabled={act.busy}>Reopen</button>
      ) : (
        <>
          <button class="btn primary" onClick={() => act.run(() => api.put(`/api/v1/conversations/${c.id}/resolve`))} disabled={act.busy}>Resolve</button>
          <button class="btn" onClick={() => act.run(() => api.put(`/api/v1/conversations/${c.id}/close`))} disabled={act.busy}>Close</button>
        </>
      )}
      {act.error && <Notice>{act.error}</Notice>}
    </div>
  );
}
