/** Assign (to me or a teammate), resolve, close, reopen: each re-reads the thread and the list. */
import { api } from '../api.ts';
import { can, me, members } from '../session.ts';
import type { ConversationDetail } from '../types.ts';
import { useAction } from '../ui/useAction.ts';
import { Notice } from '../ui/Notice.tsx';
import { loadConversations } from './store.ts';
import { loadThread } from './thread-store.ts';

function useConversationAction(id: string) {
  return useAction(async (call: () => Promise<unknown>) => {
    await call();
    await Promise.all([loadThread(id), loadConversations()]);
  });
}

export function StatusActions({ conversation: c }: { conversation: ConversationDetail }) {
  const act = useConversationAction(c.id);
  const put = (action: string) => act.run(() => api.put(`/api/v1/conversations/${c.id}/${action}`));
  return (
    <div class="actions">
      {c.status === 'resolved' || c.status === 'closed' ? (
        <button class="btn" onClick={() => put('reopen')} disabled={act.busy}>
          Reopen
        </button>
      ) : (
        <>
          <button class="btn primary" onClick={() => put('resolve')} disabled={act.busy}>
            Resolve
          </button>
          <button class="btn" onClick={() => put('close')} disabled={act.busy}>
            Close
          </button>
        </>
      )}
      {act.error && <Notice>{act.error}</Notice>}
    </div>
  );
}

export function AssignActions({ conversation: c }: { conversation: ConversationDetail }) {
  const act = useConversationAction(c.id);
  const myId = me.value?.user.id;
  // Any member may take a conversation (by agent number); owners and admins assign anyone (team assign).
  const assignMe = () => act.run(() => api.put(`/api/v1/conversations/${c.id}/assign/${members.value.find((m) => m.user_id === myId)?.agent_number ?? 0}`));
  const assignTo = (userId: string) => act.run(() => api.post(`/api/v1/team/assign/${c.id}?agent_id=${encodeURIComponent(userId)}`));
  return (
    <div class="actions">
      {can('conversations.assign') && (
        <select
          class="input small"
          aria-label="Assignee"
          value={c.assignee_id ?? ''}
          disabled={act.busy}
          onChange={(e) => e.currentTarget.value && void assignTo(e.currentTarget.value)}
        >
          <option value="" disabled>
            Unassigned
          </option>
          {members.value
            .filter((m) => m.is_active)
            .map((m) => (
              <option value={m.user_id}>{m.user_id === myId ? `${m.name} (me)` : m.name}</option>
            ))}
        </select>
      )}
      {c.assignee_id !== myId && (
        <button class="btn small" onClick={assignMe} disabled={act.busy}>
          Assign to me
        </button>
      )}
      {act.error && <Notice>{act.error}</Notice>}
    </div>
  );
}
