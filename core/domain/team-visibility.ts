/**
 * Team-scoped visibility (docs/decisions.md#teams-and-team-scoped-visibility): while a business
 * has it on (`team_visibility` of PATCH /api/v1/settings/assignment), a member with the role
 * `agent` sees only the conversations of their teams and those assigned to them; the owner and
 * admins see every one. "Sees" means everywhere a conversation shows: every list, read, message,
 * search hit, live event and export, and every action on it (an invisible conversation is 404,
 * exactly like another business's).
 *
 * The REST side asks with the caller's membership (`Viewer`, resolved with the caller in
 * api/middlewares/auth.ts); the live side asks, after a change commits, which members may see
 * each conversation (`conversationAudiences`), and core/events/live.ts sends the conversation's
 * events to those members' own rooms only.
 */
import { z } from 'zod';
import type { FragmentSqlToken } from 'slonik';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { notFound } from '../errors.ts';

/** Whom a read is for: the caller's membership. `teamScoped`: the rule applies to them. */
export type Viewer = { businessId: string; id: string; userId: string; teamScoped: boolean };

/**
 * The condition "the viewer may see the conversation" over the conversations row named `alias`
 * (default `c`); `true` for a viewer who sees everything. Served by the conversation's own row
 * and team_memberships_member_idx.
 */
export function visibleTo(viewer: Viewer, alias = 'c'): FragmentSqlToken {
  if (!viewer.teamScoped) return sql.fragment`true`;
  return sql.fragment`(${sql.identifier([alias, 'assignee_id'])} = ${viewer.userId} or ${sql.identifier([alias, 'team_id'])} in (
    select tm.team_id from team_memberships tm where tm.business_id = ${viewer.businessId} and tm.member_id = ${viewer.id}))`;
}

/** Whether the viewer may see this conversation of their business (false for an unknown one). */
export async function canSeeConversation(q: Queryable, viewer: Viewer, conversationId: string): Promise<boolean> {
  return q.exists(sql.unsafe`
    select 1 from conversations c
    where c.id = ${conversationId} and c.business_id = ${viewer.businessId} and ${visibleTo(viewer)}`);
}

/** 404 `Conversation not found` unless the viewer may see it (nothing to check for one who sees all). */
export async function requireVisible(q: Queryable, viewer: Viewer, conversationId: string): Promise<void> {
  if (!viewer.teamScoped) return;
  if (!(await canSeeConversation(q, viewer, conversationId))) throw notFound('Conversation not found');
}

/** Whether the business (an SQL expression of its id) has team-scoped visibility on: a primary-key read of its settings row. */
export const teamVisibilityOn = (businessId: FragmentSqlToken): FragmentSqlToken =>
  sql.fragment`coalesce((select s.team_visibility from assignment_settings s where s.business_id = ${businessId}), false)`;

/**
 * Who may see the conversations row named `alias` (default `c`), as the select-list columns
 * `team_visibility` (the business's setting) and `audience`: the user ids of the members who may
 * see it while the setting is on, null while it is off (everyone of the business may; the
 * members are then not read at all). Members a two-factor requirement still shuts out are left
 * out, as the business room leaves them out. Added to the queries that load live events'
 * objects (core/events/live-loads.ts), so learning where an event goes costs no query of its own.
 */
export function audienceColumns(alias = 'c'): FragmentSqlToken {
  const c = (column: string) => sql.identifier([alias, column]);
  const on = teamVisibilityOn(sql.fragment`${c('business_id')}`);
  return sql.fragment`${on} as team_visibility, case when ${on} then (
    select coalesce(array_agg(tm.user_id), '{}') from team_members tm join users u on u.id = tm.user_id join businesses b on b.id = tm.business_id
    where tm.business_id = ${c('business_id')} and tm.is_active
      and not (b.require_two_factor and u.two_factor_secret is null)
      and (tm.role in ('owner', 'admin') or tm.user_id = ${c('assignee_id')}
        or exists (select 1 from team_memberships ms where ms.business_id = ${c('business_id')} and ms.team_id = ${c('team_id')} and ms.member_id = tm.id))
  ) end as audience`;
}

/** The two columns of audienceColumns() as a row schema. */
export const audienceFields = { team_visibility: z.boolean(), audience: z.array(z.string()).nullable() };

const audienceRow = z.object({ on: z.boolean(), conversation_id: z.string().nullable(), audience: z.array(z.string()).nullable() });

/**
 * For live events: the user ids of the members who may see each conversation, when the
 * business has team-scoped visibility on; null when it is off (everyone of the business may).
 * One query for the setting and all the conversations (for events whose objects were not
 * loaded: those loaded carry their audience, see audienceColumns).
 */
export async function conversationAudiences(q: Queryable, businessId: string, conversationIds: readonly string[]): Promise<Map<string, Set<string>> | null> {
  const rows = await q.any(sql.type(audienceRow)`
    select ${teamVisibilityOn(sql.fragment`${businessId}::uuid`)} as on, c.id as conversation_id, c.audience
    from (select) as one
    left join lateral (
      select c.id, ${audienceColumns('c')} from conversations c
      where c.business_id = ${businessId} and c.id = any(${sql.array([...new Set(conversationIds)], 'uuid')})
    ) c on c.team_visibility`);
  if (!rows[0]?.on) return null;
  const audiences = new Map<string, Set<string>>();
  for (const row of rows) if (row.conversation_id) audiences.set(row.conversation_id, new Set(row.audience ?? []));
  return audiences;
}
