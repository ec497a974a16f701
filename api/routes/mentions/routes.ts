/** The caller's mentions in private notes: list them, mark one read. See docs/decisions.md#private-notes-and-mentions. */
import { z } from '../../../lib/zod.ts';
import { sql, type Queryable } from '../../../core/adapters/postgres/db.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import { markMentionRead } from '../../../core/commands/notes.ts';
import { notFound } from '../../../core/errors.ts';
import { mentionColumns, mentionJoins, mentionRow, mentionSchema, mentionsByIds, presentMention, type Mention } from '../../../core/presenters/mention.ts';
import { cursorColumn, keysetPage } from '../../cursor.ts';
import { defineRoute } from '../../route.ts';
import { canSeeConversation, visibleTo, type Viewer } from '../../../core/domain/team-visibility.ts';
import { encodeMentionCursor, listMentionsQuery, mentionParams, type MentionCursor } from './schema.ts';

const tags = ['Mentions'];

const pagedRow = mentionRow.extend({ cursor_at: z.string(), is_read: z.boolean() });

/**
 * One part (unread or read) of the member's mentions, newest first, after `after` within that
 * part: a range of mentions_member_idx (business, member, read?, created_at desc, id desc).
 */
function part(q: Queryable, who: { businessId: string; memberId: string; viewer: Viewer }, read: boolean, after: MentionCursor | null, limit: number) {
  return q.any(sql.type(pagedRow)`
    select ${mentionColumns}, ${cursorColumn(sql.fragment`mn.created_at`)} as cursor_at, (mn.read_at is not null) as is_read
    from mentions mn ${mentionJoins}
    where mn.business_id = ${who.businessId} and mn.member_id = ${who.memberId} and (mn.read_at is not null) = ${read} and ${visibleTo(who.viewer)}
      ${after ? sql.fragment`and (mn.created_at, mn.id) < (${after.at}::timestamptz, ${after.id}::uuid)` : sql.fragment``}
    order by mn.created_at desc, mn.id desc
    limit ${limit}`);
}

export const list = defineRoute({
  method: 'get',
  path: '/api/v1/mentions',
  summary: 'List my mentions',
  description:
    'The mentions of the caller in private notes of their business: unread first, then read ones, each part newest first, each with the note (`message`, `private: true`). ' +
    '`limit` 1–200 (default 50). When more exist, the `X-Next-Cursor` response header holds an opaque cursor: pass it as `before` for the next page. ' +
    "`X-Unread-Count` holds how many of the caller's mentions are unread (for a badge). Only the caller's own mentions are listed, whatever their role. See docs/decisions.md#private-notes-and-mentions.",
  tags,
  auth: 'user',
  policy: 'mentions.read',
  query: listMentionsQuery,
  response: z.array(mentionSchema),
  errors: [404],
  handler: async ({ query, member, deps, ctx }) => {
    const who = { businessId: member.businessId, memberId: member.id, viewer: member };
    const want = query.limit + 1;
    const cursor = query.before ?? null;
    // Unread first (unless the cursor is already past them), then read ones from the top.
    const rows = cursor?.read ? [] : [...(await part(deps.db, who, false, cursor, want))];
    if (rows.length < want) rows.push(...(await part(deps.db, who, true, cursor?.read ? cursor : null, want - rows.length)));
    const unread = await deps.db.oneFirst(sql.type(z.object({ n: z.number() }))`
      select count(*)::int as n from mentions mn
      where mn.business_id = ${who.businessId} and mn.member_id = ${who.memberId} and mn.read_at is null
        ${member.teamScoped ? sql.fragment`and exists (select 1 from conversations c where c.id = mn.conversation_id and ${visibleTo(member)})` : sql.fragment``}`);
    ctx.set('X-Unread-Count', String(unread));
    const page = keysetPage(ctx, rows, query.limit, (last) => encodeMentionCursor({ read: last.is_read, at: last.cursor_at, id: last.mention_id }));
    return page.map(presentMention);
  },
});

export const markRead = defineRoute({
  method: 'patch',
  path: '/api/v1/mentions/:mention_id/read',
  summary: 'Mark one of my mentions read',
  description:
    "Sets `read_at` (kept as it was when already read) and answers the Mention. Another member's mention, or another business's: 404 `Mention not found`. " +
    'See docs/decisions.md#private-notes-and-mentions.',
  tags,
  auth: 'user',
  policy: 'mentions.mark_read',
  params: mentionParams,
  response: mentionSchema,
  errors: [404],
  handler: async ({ params, member, deps }): Promise<Mention> => {
    const businessId = member.businessId;
    const id = await runCommand(deps, async (q) => ({ id: await markMentionRead(q, { businessId, memberId: member.id, mentionId: params.mention_id }) }), {
      oneStatement: true,
    });
    const found = id.id ? (await mentionsByIds(deps.db, businessId, [id.id])).get(id.id) : undefined;
    if (!found) throw notFound('Mention not found');
    if (member.teamScoped && !(await canSeeConversation(deps.db, member, found.mention.conversation_id))) throw notFound('Mention not found');
    return found.mention;
  },
});

export default [list, markRead];
