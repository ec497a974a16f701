/** A conversation's activity history: who assigned, labelled, snoozed, resolved it, what an automation or the AI did, and when. */
import { z } from '../../../lib/zod.ts';
import { activitySchema } from '../../../core/presenters/activity.ts';
import { activityPage } from '../../../core/reads/conversation-events.ts';
import { intParam } from '../../validation.ts';
import { defineRoute } from '../../route.ts';
import { conversationParams } from './schema.ts';

/** The cursor: the last entry's sequence, opaque to clients. */
const encode = (seq: number) => Buffer.from(`a${seq}`).toString('base64url');
const afterParam = z
  .string()
  .transform((value, ctx) => {
    const decoded = /^a(\d{1,15})$/.exec(Buffer.from(value, 'base64url').toString('utf8'));
    if (!decoded) {
      ctx.addIssue({ code: 'custom', message: 'Invalid cursor: pass the X-Next-Cursor value of a previous page' });
      return z.NEVER;
    }
    return Number(decoded[1]);
  })
  .openapi({ type: 'string', description: 'The X-Next-Cursor header of the previous page (opaque)' });

export const listActivity = defineRoute({
  method: 'get',
  path: '/api/v1/conversations/:conversation_id/events',
  summary: "List a conversation's activity",
  description:
    'What happened to the conversation, oldest first: created, assigned (by whom, to whom; `assigned_by` null: auto-assignment), resolved, closed, reopened, ' +
    'snoozed and woken, labelled, prioritized, moved to a team, handed off by the AI agent — each with its `actor` and time. ' +
    'The app shows these as quiet lines in the thread. `limit` 1–200 (default 100); when more exist, `X-Next-Cursor` holds the cursor to pass as `after`. ' +
    'Members who may see the conversation (team-scoped visibility: 404 otherwise).',
  tags: ['Conversations'],
  auth: 'user',
  policy: 'conversations.read',
  params: conversationParams,
  query: z.object({ limit: intParam({ min: 1, max: 200 }).default(100).openapi({ default: 100 }), after: afterParam.optional() }),
  response: z.array(activitySchema),
  errors: [404],
  handler: async ({ params, query, member, deps, ctx }) => {
    const page = await activityPage(deps.db, member, params.conversation_id, { limit: query.limit, after: query.after ?? null });
    if (page.next !== null) ctx.set('X-Next-Cursor', encode(page.next));
    return page.events;
  },
});

export default [listActivity];
