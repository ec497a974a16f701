/**
 * A conversation's activity history (GET /conversations/{id}/events): the domain events that
 * tell what happened to it (assigned, labelled, snoozed, resolved, reopened, handed off…), in the
 * order recorded, keyset-paged on their sequence (domain_events_conversation_idx). Messages are
 * the thread's own; the events a message or a list refresh implies are not activity.
 */
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { requireVisible, type Viewer } from '../domain/team-visibility.ts';
import { notFound } from '../errors.ts';
import { activityRow, presentActivity, type Activity } from '../presenters/activity.ts';

/** The event types a conversation's history shows. */
export const activityTypes = [
  'conversation.created',
  'conversation.assigned',
  'conversation.resolved',
  'conversation.closed',
  'conversation.opened',
  'conversation.snoozed',
  'conversation.woken',
  'conversation.labelled',
  'conversation.prioritized',
  'conversation.team_changed',
  'handoff.requested',
] as const;

/** One page, oldest first, after the `after` sequence; `next`: the sequence to continue after, when more exist. */
export async function activityPage(
  q: Queryable,
  viewer: Viewer,
  conversationId: string,
  page: { limit: number; after: number | null },
): Promise<{ events: Activity[]; next: number | null }> {
  const exists = await q.exists(sql.unsafe`select 1 from conversations where id = ${conversationId} and business_id = ${viewer.businessId}`);
  if (!exists) throw notFound('Conversation not found');
  await requireVisible(q, viewer, conversationId);
  const rows = await q.any(sql.type(activityRow)`
    select e.id, e.seq, e.type, e.actor_type, e.actor_id,
           coalesce(e.actor_name, (select u.full_name from users u where e.actor_type = 'member' and u.id = e.actor_id)) as actor_name,
           e.data, to_char(e.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at,
           (select u.full_name from users u where u.id = (e.data->>'assignee_id')::uuid) as assignee_name,
           (select t.name from teams t where t.business_id = e.business_id and t.id = (e.data->>'team_id')::uuid) as team_name
    from domain_events e
    where e.conversation_id = ${conversationId} and e.business_id = ${viewer.businessId}
      and e.type = any(${sql.array([...activityTypes], 'text')})
      ${page.after === null ? sql.fragment`` : sql.fragment`and e.seq > ${page.after}`}
    order by e.seq
    limit ${page.limit + 1}`);
  const more = rows.length > page.limit;
  const shown = rows.slice(0, page.limit);
  return { events: shown.map(presentActivity), next: more ? shown[shown.length - 1]!.seq : null };
}
