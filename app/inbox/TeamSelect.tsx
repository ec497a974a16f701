/** The conversation's team: a picker of the business's teams (any member may move a conversation to a team). */
import { api } from '../api.ts';
import { can } from '../session.ts';
import type { ConversationDetail } from '../types.ts';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { loadConversations } from './store.ts';
import { loadThread } from './thread-store.ts';
import { teams } from './teams.ts';

export function TeamSelect({ conversation: c }: { conversation: ConversationDetail }) {
  const act = useAction(async (teamId: string) => {
    await api.put(`/api/v1/conversations/${c.id}/team`, { team_id: teamId || null });
    await Promise.all([loadThread(c.id), loadConversations()]);
  });
  // Nothing to pick without teams (unless the conversation still shows one).
  if (!can('conversations.set_team') || (teams.value.length === 0 && !c.team_id)) return null;
  return (
    <>
      <select
        class="input small team-select"
        aria-label="Team"
        value={c.team_id ?? ''}
        disabled={act.busy}
        onChange={(e) => void act.run(e.currentTarget.value)}
      >
        <option value="">No team</option>
        {c.team_id && !teams.value.some((t) => t.id === c.team_id) && <option value={c.team_id}>Unknown team</option>}
        {teams.value.map((t) => (
          <option value={t.id}>{t.name}</option>
        ))}
      </select>
      {act.error && <Notice>{act.error}</Notice>}
    </>
  );
}
