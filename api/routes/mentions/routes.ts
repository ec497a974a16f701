/** The caller's mentions in private notes: list them, mark one read. See docs/decisions.md#private-notes-and-mentions. */
import { z } from '../../../lib/zod.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import { markMentionRead } from '../../../core/commands/notes.ts';
import { notFound } from '../../../core/errors.ts';
import { mentionSchema, type Mention } from '../../../core/presenters/mention.ts';
import { mentionFor, mentionPage } from '../../../core/reads/mentions.ts';
import { defineRoute } from '../../route.ts';
import { encodeMentionCursor, listMentionsQuery, mentionParams } from './schema.ts';

const tags = ['Mentions'];

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
    const page = await mentionPage(deps.db, member, { limit: query.limit, before: query.before ?? null });
    ctx.set('X-Unread-Count', String(page.unread));
    if (page.next) ctx.set('X-Next-Cursor', encodeMentionCursor(page.next));
    return page.mentions;
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
    // Read as the caller may see it: a mention in a conversation they cannot see is 404 too.
    const found = id.id ? await mentionFor(deps.db, member, id.id) : null;
    if (!found) throw notFound('Mention not found');
    return found;
  },
});

export default [list, markRead];
