/**
 * The mention reads: every Mention the API presents (GET /mentions, PATCH …/read, the
 * `mention_created` event) is read here and presented by core/presenters/mention.ts, its note
 * as the message reads show it (the same columns and presenter, core/reads/messages.ts).
 * A member's reads apply team-scoped visibility (core/domain/team-visibility.ts) to the
 * mention's conversation in their own query.
 */
import { z } from '../../lib/zod.ts';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { visibleTo, type Viewer } from '../domain/team-visibility.ts';
import { messageColumns } from '../presenters/message.ts';
import { mentionRow, presentMention, type Mention } from '../presenters/mention.ts';
import { cursorColumn } from './keyset.ts';

/** What mentionRow reads, over `mentions mn ${mentionJoins}`. */
const mentionColumns = sql.fragment`
  ${messageColumns}, mn.id as mention_id, mn.member_id, tm.user_id as member_user_id, mn.mentioned_by, au.full_name as mentioned_by_name,
  cu.name as customer_name, c.status as conversation_status, mn.created_at as mentioned_at, mn.read_at`;

const mentionJoins = sql.fragment`
  join messages m on m.id = mn.message_id and m.business_id = mn.business_id
  join conversations c on c.id = mn.conversation_id
  join team_members tm on tm.id = mn.member_id
  left join customers cu on cu.id = c.customer_id
  left join users au on au.id = mn.mentioned_by`;

/** These mentions of the business, presented with their member's user id, keyed by id (ones not found are left out): live events. */
export async function mentionsByIds(q: Queryable, businessId: string, ids: string[]): Promise<Map<string, { userId: string; mention: Mention }>> {
  if (ids.length === 0) return new Map();
  const rows = await q.any(sql.type(mentionRow)`
    select ${mentionColumns} from mentions mn ${mentionJoins}
    where mn.business_id = ${businessId} and mn.id = any(${sql.array([...new Set(ids)], 'uuid')})`);
  return new Map(rows.map((r) => [r.mention_id, { userId: r.member_user_id, mention: presentMention(r) }]));
}

/** One mention of the viewer's business when the viewer may see its conversation; null otherwise. */
export async function mentionFor(q: Queryable, viewer: Viewer, id: string): Promise<Mention | null> {
  const row = await q.maybeOne(sql.type(mentionRow)`
    select ${mentionColumns} from mentions mn ${mentionJoins}
    where mn.business_id = ${viewer.businessId} and mn.id = ${id} and ${visibleTo(viewer)}`);
  return row ? presentMention(row) : null;
}

/** Where a page of mentions starts: in the unread part or the read one, after this time and id. */
export type MentionCursor = { read: boolean; at: string; id: string };

const pagedRow = mentionRow.extend({ cursor_at: z.string(), is_read: z.boolean() });

/**
 * One part (unread or read) of the member's mentions, newest first, after `after` within that
 * part: a range of mentions_member_idx (business, member, read?, created_at desc, id desc).
 */
function part(q: Queryable, viewer: Viewer, read: boolean, after: MentionCursor | null, limit: number) {
  return q.any(sql.type(pagedRow)`
    select ${mentionColumns}, ${cursorColumn(sql.fragment`mn.created_at`)} as cursor_at, (mn.read_at is not null) as is_read
    from mentions mn ${mentionJoins}
    where mn.business_id = ${viewer.businessId} and mn.member_id = ${viewer.id} and (mn.read_at is not null) = ${read} and ${visibleTo(viewer)}
      ${after ? sql.fragment`and (mn.created_at, mn.id) < (${after.at}::timestamptz, ${after.id}::uuid)` : sql.fragment``}
    order by mn.created_at desc, mn.id desc
    limit ${limit}`);
}

/**
 * GET /mentions: the viewer's own mentions, unread first, then read ones, each part newest first;
 * `next` when more exist; `unread`: how many of them are unread.
 */
export async function mentionPage(
  q: Queryable,
  viewer: Viewer,
  page: { limit: number; before: MentionCursor | null },
): Promise<{ mentions: Mention[]; next: MentionCursor | null; unread: number }> {
  const want = page.limit + 1;
  const cursor = page.before;
  // Unread first (unless the cursor is already past them), then read ones from the top.
  const rows = cursor?.read ? [] : [...(await part(q, viewer, false, cursor, want))];
  if (rows.length < want) rows.push(...(await part(q, viewer, true, cursor?.read ? cursor : null, want - rows.length)));
  const unread = await q.oneFirst(sql.type(z.object({ n: z.number() }))`
    select count(*)::int as n from mentions mn
    where mn.business_id = ${viewer.businessId} and mn.member_id = ${viewer.id} and mn.read_at is null
      ${viewer.teamScoped ? sql.fragment`and exists (select 1 from conversations c where c.id = mn.conversation_id and ${visibleTo(viewer)})` : sql.fragment``}`);
  const shown = rows.slice(0, page.limit);
  const last = shown.at(-1);
  const next = rows.length > page.limit && last ? { read: last.is_read, at: last.cursor_at, id: last.mention_id } : null;
  return { mentions: shown.map(presentMention), next, unread };
}
