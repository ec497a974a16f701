/**
 * When conversations leave an agent's view under team-scoped visibility
 * (docs/decisions.md#teams-and-team-scoped-visibility): the members who no longer see them hear
 * it at once (`conversation_hidden` to their own room), so their app drops the conversation
 * from its list and closes it if open, instead of showing it until the next read.
 *
 * Only members with the role `agent` ever lose sight (the owner and admins see everything), and
 * only while the business has the setting on; each query here says "nobody" while it is off.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { liveEvent, type LiveEvent } from '../events/catalogue.ts';
import { teamVisibilityOn } from './team-visibility.ts';

/** `conversation_hidden` to each of these users: `conversationId` left their view, or (null) any number may have. */
export function hiddenFrom(businessId: string, userIds: readonly string[], conversationId: string | null): LiveEvent[] {
  const at = new Date().toISOString();
  return [...new Set(userIds)].map((userId) =>
    liveEvent('conversation_hidden', { business_id: businessId, user_id: userId, conversation_id: conversationId, at }),
  );
}

const userRow = z.object({ user_id: z.string() });

/**
 * After a conversation moved out of team `from` (its row already updated): the agents who saw it
 * through that team and see it no more (not in its new team, not its assignee).
 */
export async function losingOnTeamChange(q: Queryable, input: { businessId: string; conversationId: string; from: string }): Promise<string[]> {
  const { businessId } = input;
  return [
    ...(await q.anyFirst(sql.type(userRow)`
      select tm.user_id
      from conversations c
      join team_memberships ms on ms.business_id = c.business_id and ms.team_id = ${input.from}
      join team_members tm on tm.id = ms.member_id and tm.is_active and tm.role = 'agent'
      where c.business_id = ${businessId} and c.id = ${input.conversationId}
        and ${teamVisibilityOn(sql.fragment`${businessId}::uuid`)}
        and tm.user_id is distinct from c.assignee_id
        and not exists (select 1 from team_memberships again where again.business_id = c.business_id and again.team_id = c.team_id and again.member_id = tm.id)`)),
  ];
}

/** The agents among these memberships (ids), while the business has the setting on: those whose view a lost team narrows. */
export async function agentsNarrowed(q: Queryable, businessId: string, memberIds: readonly string[]): Promise<string[]> {
  if (memberIds.length === 0) return [];
  return [
    ...(await q.anyFirst(sql.type(userRow)`
      select tm.user_id from team_members tm
      where tm.business_id = ${businessId} and tm.id = any(${sql.array([...memberIds], 'uuid')}) and tm.is_active and tm.role = 'agent'
        and ${teamVisibilityOn(sql.fragment`${businessId}::uuid`)}`)),
  ];
}

/** Every active agent of the business (whose view the setting, just switched on, narrows). */
export async function everyAgent(q: Queryable, businessId: string): Promise<string[]> {
  return [
    ...(await q.anyFirst(sql.type(userRow)`
      select user_id from team_members where business_id = ${businessId} and is_active and role = 'agent'`)),
  ];
}
