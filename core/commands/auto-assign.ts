/**
 * Automatic assignment (the `auto_assign {business_id}` job): the business's waiting
 * conversations — open or pending, no assignee, oldest first — go round robin (by agent number,
 * after the last one served) to `live` active members under their capacity: their open and
 * pending conversations counted against `team_members.max_open`, else the business's
 * `max_open_per_agent`. Manual assignment is never refused for capacity; it only counts.
 *
 * While the AI agent auto-replies for the business, a conversation waits for a human only once
 * the AI handed it over (`handoff_requested_at`): assigning earlier would silence the AI.
 *
 * Arming (core/subscribers/auto-assign.ts): a new or reopened conversation, a member going live,
 * a conversation leaving its assignee (resolve, close, reassign, removal), a handoff, and a
 * settings change, each armed after its change committed.
 *
 * Teams (core/commands/teams.ts): a conversation with a team goes only to members of that team;
 * one without goes to anyone. A team with no member under capacity leaves its conversations
 * waiting without holding up the others.
 *
 * Race-free: one run per business at a time holds the business's assignment_settings row
 * (FOR UPDATE; the inbound path never locks it), and each batch counts loads and picks
 * conversations (FOR UPDATE SKIP LOCKED) inside that lock, so no agent goes past capacity and no
 * conversation is assigned twice. Nothing is left waiting: a batch that assigns nothing is run
 * once more without SKIP LOCKED, waiting for a conversation another transaction holds (the
 * out-of-hours reply writing to it, say) rather than passing it by: skipping one left it
 * unassigned until some later event (issue "Events drive the desk").
 *
 * Lock order (team.ts's business → team_members → conversations, with one addition): the
 * assignment_settings row, team_members (FOR SHARE), conversations.
 */
import { z } from 'zod';
import { sql, type Db, type Queryable } from '../adapters/postgres/db.ts';
import type { PendingEvent } from '../events/live.ts';
import { assignmentEvents } from './conversations.ts';
import { impliedBy, recordEvents } from '../events/domain.ts';

/** Conversations one batch assigns at most (bounds how long it holds their row locks). */
const BATCH_SIZE = 100;

const settingsRow = z.object({ max_open_per_agent: z.number(), cursor_agent_number: z.number().nullable(), ai_active: z.boolean() });
const agentRow = z.object({ user_id: z.string(), agent_number: z.number(), capacity: z.number(), load: z.number(), teams: z.array(z.string()) });
const waitingRow = z.object({ id: z.string(), team_id: z.string().nullable() });
const assignedRow = z.object({
  id: z.string(),
  business_id: z.string(),
  status: z.string(),
  assignee_id: z.string(),
  assigned_at: z.string(),
  updated_at: z.string(),
});

type Agent = z.infer<typeof agentRow>;

/**
 * Round robin under capacity: for each conversation (oldest first), the next agent after the
 * cursor with room (of its team, when it has one). A conversation no one can take is skipped.
 */
export function planAssignments(
  conversations: readonly { id: string; team_id: string | null }[],
  agents: readonly Agent[],
  cursor: number | null,
): { pairs: Array<[string, Agent]>; cursor: number | null } {
  const ring = [...agents].sort((a, b) => a.agent_number - b.agent_number);
  const load = new Map(ring.map((a) => [a.user_id, a.load]));
  let next = cursor === null ? 0 : ring.findIndex((a) => a.agent_number > cursor);
  if (next < 0) next = 0;
  const pairs: Array<[string, Agent]> = [];
  let last = cursor;
  for (const { id, team_id } of conversations) {
    let chosen: number | null = null;
    for (let step = 0; step < ring.length; step++) {
      const i = (next + step) % ring.length;
      if (load.get(ring[i].user_id)! < ring[i].capacity && (team_id === null || ring[i].teams.includes(team_id))) {
        chosen = i;
        break;
      }
    }
    if (chosen === null) continue;
    const agent = ring[chosen];
    load.set(agent.user_id, load.get(agent.user_id)! + 1);
    pairs.push([id, agent]);
    last = agent.agent_number;
    next = (chosen + 1) % ring.length;
  }
  return { pairs, cursor: last };
}

/** One batch in the caller's transaction; returns the events of what it assigned. */
async function assignBatch(tx: Queryable, businessId: string, lastLook: boolean): Promise<PendingEvent[]> {
  const settings = await tx.maybeOne(sql.type(settingsRow)`
    select s.max_open_per_agent, s.cursor_agent_number,
           coalesce(b.ai_auto_reply_enabled and p.ai_auto_reply, false) as ai_active
    from assignment_settings s join businesses b on b.id = s.business_id join plans p on p.name = b.plan
    where s.business_id = ${businessId} and s.enabled
    for update of s`);
  if (!settings) return [];
  const agents = await tx.any(sql.type(agentRow)`
    select tm.user_id, tm.agent_number, coalesce(tm.max_open, ${settings.max_open_per_agent})::int as capacity,
           (select count(*) from conversations c
            where c.business_id = ${businessId} and c.assignee_id = tm.user_id and c.status in ('open', 'pending'))::int as load,
           array(select ms.team_id::text from team_memberships ms where ms.business_id = tm.business_id and ms.member_id = tm.id) as teams
    from team_members tm
    where tm.business_id = ${businessId} and tm.is_active and tm.status = 'live'
    order by tm.agent_number
    for share of tm`);
  const room = agents.reduce((sum, a) => sum + Math.max(0, a.capacity - a.load), 0);
  if (room === 0) return [];
  // Only conversations someone can take: without a team, or of a team with a member with room.
  const teamsWithRoom = [...new Set(agents.filter((a) => a.load < a.capacity).flatMap((a) => a.teams))];
  const waiting = await tx.any(sql.type(waitingRow)`
    select c.id, c.team_id from conversations c
    where c.business_id = ${businessId} and c.assignee_id is null and c.status in ('open', 'pending')
      and (c.team_id is null or c.team_id = any(${sql.array(teamsWithRoom, 'uuid')}))
      ${settings.ai_active ? sql.fragment`and c.handoff_requested_at is not null` : sql.fragment``}
    order by c.created_at, c.id
    limit ${Math.min(room, BATCH_SIZE)}
    ${lastLook ? sql.fragment`for update` : sql.fragment`for update skip locked`}`);
  const plan = planAssignments(waiting, agents, settings.cursor_agent_number);
  if (plan.pairs.length === 0) return [];
  const rows = await tx.any(sql.type(assignedRow)`
    update conversations c set
      assignee_id = p.user_id, assigned_at = now(),
      status = case when c.status = 'pending' then 'open' else c.status end,
      updated_at = now()
    from unnest(${sql.array(
      plan.pairs.map(([id]) => id),
      'uuid',
    )}::uuid[], ${sql.array(
      plan.pairs.map(([, a]) => a.user_id),
      'uuid',
    )}::uuid[]) as p(id, user_id)
    where c.id = p.id and c.business_id = ${businessId} and c.assignee_id is null
    returning c.id, c.business_id, c.status, c.assignee_id, c.assigned_at, c.updated_at`);
  await tx.query(sql.unsafe`
    update assignment_settings set cursor_agent_number = ${plan.cursor} where business_id = ${businessId}`);
  const events = rows.flatMap((row) => assignmentEvents(row, null));
  await recordEvents(tx, impliedBy(events, autoAssignment));
  return events;
}

/** The actor of automatic assignments (its subscriber does not re-arm on its own changes). */
export const autoAssignment = { type: 'system', name: 'Auto-assignment' } as const;

/**
 * Assigns every waiting conversation there is room for; `publish` gets each batch's events after
 * its commit. Returns how many were assigned. Safe to run twice (and in parallel: runs queue on the settings row).
 */
export async function runAutoAssign(db: Db, businessId: string, publish: (events: PendingEvent[]) => void | Promise<void>): Promise<number> {
  let assigned = 0;
  for (;;) {
    let events = await db.transaction((tx) => assignBatch(tx, businessId, false));
    if (events.length === 0) events = await db.transaction((tx) => assignBatch(tx, businessId, true));
    if (events.length === 0) return assigned;
    assigned += events.filter((e) => 'name' in e && e.name === 'conversation_assigned').length;
    await publish(events);
  }
}
