/**
 * Triage: snooze and wake, priority, bulk actions, and changing or cancelling a scheduled reply.
 * See docs/decisions.md#snooze-priority-bulk-and-scheduled-send.
 */
import { z } from '../../../lib/zod.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import { setPriority, snoozeConversation, wakeConversation } from '../../../core/commands/snooze.ts';
import { bulkUpdate, type BulkAction } from '../../../core/commands/bulk.ts';
import { cancelScheduledReply, updateScheduledReply } from '../../../core/commands/scheduled-replies.ts';
import { conversationSchema, priorities } from '../../../core/presenters/conversation.ts';
import { messageSchema } from '../../../core/presenters/message.ts';
import { defineRoute } from '../../route.ts';
import { authorize, type Action } from '../../policies.ts';
import { loadConversation } from '../../../core/reads/conversations.ts';
import { conversationParams, editScheduledBody, futureTime, messageParams, priorityBody, snoozeBody } from './schema.ts';

const tags = ['Conversations'];
const seeDecisions = 'See docs/decisions.md#snooze-priority-bulk-and-scheduled-send.';

export const snooze = defineRoute({
  method: 'put',
  path: '/api/v1/conversations/:conversation_id/snooze',
  summary: 'Snooze a conversation',
  description:
    'Sets an `open` or `pending` conversation aside (400 for a resolved or closed one): `{until}` (a time ahead, at most a year; 422 otherwise) wakes it then, `{until_customer_replies: true}` when the customer writes; ' +
    'either way a new customer message wakes it at once. It keeps its status and its place (`updated_at`); the conversation shows `snoozed: true` and `snoozed_until`, leaves `GET /conversations?snoozed=false` (the open view) and is listed by `?snoozed=true`. ' +
    'Snoozing a snoozed conversation replaces the time. Waking (by time, by the customer, by DELETE …/snooze, or by resolving, closing or reopening it) moves it up the inbox. `conversation_updated` follows each change. Returns the Conversation. ' +
    seeDecisions,
  tags,
  auth: 'user',
  policy: 'conversations.snooze',
  params: conversationParams,
  body: snoozeBody,
  response: conversationSchema,
  errors: [400, 404],
  handler: async ({ params, body, member, deps }) => {
    const { businessId } = member;
    const { conversation } = await runCommand(deps, async (tx) => {
      const result = await snoozeConversation(tx, { businessId, conversationId: params.conversation_id, until: body.until ?? null });
      return { conversation: await loadConversation(tx, { businessId }, params.conversation_id), events: result.events, domainEvents: result.domainEvents };
    });
    return conversation;
  },
});

export const wake = defineRoute({
  method: 'delete',
  path: '/api/v1/conversations/:conversation_id/snooze',
  summary: 'Wake a snoozed conversation',
  description:
    'Ends the snooze now: the conversation is back in the open view, moved up the inbox (`updated_at`), and `conversation_updated` follows. One that is not snoozed is returned unchanged. Returns the Conversation. ' +
    seeDecisions,
  tags,
  auth: 'user',
  policy: 'conversations.snooze',
  params: conversationParams,
  response: conversationSchema,
  errors: [404],
  handler: async ({ params, member, deps }) => {
    const { businessId } = member;
    const { conversation } = await runCommand(deps, async (tx) => {
      const result = await wakeConversation(tx, { businessId, conversationId: params.conversation_id });
      return { conversation: await loadConversation(tx, { businessId }, params.conversation_id), events: result.events, domainEvents: result.domainEvents };
    });
    return conversation;
  },
});

export const priority = defineRoute({
  method: 'put',
  path: '/api/v1/conversations/:conversation_id/priority',
  summary: "Set a conversation's priority",
  description:
    '`priority`: `none`, `low`, `medium`, `high` or `urgent` (422 otherwise). A change fires `conversation_updated`; like a label it does not move the conversation up the inbox. Filter lists with `GET /conversations?priority=high,urgent`. Returns the Conversation. ' +
    seeDecisions,
  tags,
  auth: 'user',
  policy: 'conversations.set_priority',
  params: conversationParams,
  body: priorityBody,
  response: conversationSchema,
  errors: [404],
  handler: async ({ params, body, member, deps }) => {
    const { businessId } = member;
    const { conversation } = await runCommand(deps, async (tx) => {
      const result = await setPriority(tx, { businessId, conversationId: params.conversation_id, priority: body.priority });
      return { conversation: await loadConversation(tx, { businessId }, params.conversation_id), events: result.events, domainEvents: result.domainEvents };
    });
    return conversation;
  },
});

const ids = z
  .array(z.uuid())
  .min(1)
  .max(100)
  .refine((list) => new Set(list).size === list.length, { message: 'Each id at most once' })
  .openapi({ description: '1–100 conversation ids, each once' });

export const bulkBody = z
  .discriminatedUnion('action', [
    z.object({ ids, action: z.literal('assign'), assignee_id: z.uuid().openapi({ description: "An active member's user id (your own: taking them)" }) }),
    z.object({ ids, action: z.literal('resolve') }),
    z.object({ ids, action: z.literal('close') }),
    z.object({
      ids,
      action: z.literal('label'),
      labels: z.array(z.string().trim().min(1).max(50)).min(1).max(50).openapi({ description: 'Label names added to each (the labels each has are kept)' }),
    }),
    z.object({
      ids,
      action: z.literal('snooze'),
      until: futureTime(366, 'until').nullish().openapi({ description: 'A time ahead; null or omitted: until the customer writes' }),
    }),
    z.object({ ids, action: z.literal('priority'), priority: z.enum(priorities) }),
  ])
  .openapi('BulkConversationsInput');

const bulkResult = z
  .object({
    id: z.uuid(),
    ok: z.boolean(),
    changed: z.boolean().optional().openapi({ description: 'When ok: false when it already was so (e.g. resolved already)' }),
    error: z.enum(['not_found', 'invalid']).optional().openapi({
      description: "`not_found`: no such conversation in your business (another business's too); `invalid`: not possible for it (e.g. snoozing a resolved one)",
    }),
    detail: z.string().optional(),
  })
  .openapi('BulkResult');

export const bulkResponse = z
  .object({ results: z.array(bulkResult).openapi({ description: 'One per id, in the order given' }) })
  .openapi('BulkConversationsResult');

/** The policy line each bulk action is authorized by (the same as its single-conversation route). */
function policyOf(action: BulkAction, userId: string): Action {
  switch (action.action) {
    case 'assign':
      return action.assigneeUserId === userId ? 'conversations.take' : 'conversations.assign';
    case 'resolve':
    case 'close':
      return 'conversations.change_status';
    case 'label':
      return 'conversations.label';
    case 'snooze':
      return 'conversations.snooze';
    case 'priority':
      return 'conversations.set_priority';
  }
}

export const bulk = defineRoute({
  method: 'post',
  path: '/api/v1/conversations/bulk',
  summary: 'Act on several conversations',
  description:
    'One `action` on up to 100 `ids` in one transaction: `assign` (`assignee_id`, a user id), `resolve`, `close`, `label` (`labels` added to each), `snooze` (`until`, or none: until the customer writes), `priority` (`priority`). ' +
    "Answers `{results: [{id, ok, changed?, error?, detail?}]}`, one per id in the order given: an id that is unknown or another business's is `not_found` (nothing about it is told), one the action does not fit is `invalid` with the reason (e.g. snoozing a resolved conversation); each id is all or nothing, the others go on. " +
    "Checked once for the whole request: the caller's right to the action, by the same policy line as the single-conversation route (`conversations.take` to assign to oneself, `conversations.assign` to assign to others: owner or admin, others get 403; `conversations.change_status`, `conversations.label`, `conversations.snooze`, `conversations.set_priority`), " +
    'the assignee (400 when not an active member) and the label names (400 naming unknown ones). Events follow as for each single change. ' +
    seeDecisions,
  tags,
  auth: 'user',
  policy: 'conversations.bulk',
  body: bulkBody,
  response: bulkResponse,
  errors: [400, 403],
  handler: async ({ body, caller, member, deps }) => {
    const action: BulkAction =
      body.action === 'assign'
        ? { action: 'assign', assigneeUserId: body.assignee_id }
        : body.action === 'label'
          ? { action: 'label', labels: body.labels }
          : body.action === 'snooze'
            ? { action: 'snooze', until: body.until ?? null }
            : body.action === 'priority'
              ? { action: 'priority', priority: body.priority }
              : { action: body.action };
    authorize(caller, policyOf(action, caller.userId));
    const { results } = await runCommand(deps, (tx) =>
      bulkUpdate(tx, { businessId: member.businessId, userId: caller.userId, ids: body.ids, action, viewer: member }),
    );
    return { results };
  },
});

export const editScheduled = defineRoute({
  method: 'patch',
  path: '/api/v1/conversations/:conversation_id/messages/:message_id',
  summary: 'Change a scheduled reply',
  description:
    '`content` and/or `send_at` (a time ahead) of a reply still `scheduled` (POST …/messages with `send_at`); a new time moves when it goes out. ' +
    '409 once it has gone out (or is going out), and for any message that is not a scheduled reply; 404 for an unknown message or one of another conversation or business. `message_updated` follows. Returns the Message. ' +
    seeDecisions,
  tags,
  auth: 'user',
  policy: 'conversations.reply',
  params: messageParams,
  body: editScheduledBody,
  response: messageSchema,
  errors: [404, 409],
  handler: async ({ params, body, member, deps }) => {
    const { message } = await runCommand(deps, (tx) =>
      updateScheduledReply(tx, {
        businessId: member.businessId,
        conversationId: params.conversation_id,
        messageId: params.message_id,
        content: body.content,
        sendAt: body.send_at,
      }),
    );
    return message;
  },
});

export const cancelScheduled = defineRoute({
  method: 'delete',
  path: '/api/v1/conversations/:conversation_id/messages/:message_id',
  summary: 'Cancel a scheduled reply',
  description:
    'Deletes a reply still `scheduled`: nothing was sent or counted. 409 once it has gone out (or is going out), and for any message that is not a scheduled reply; 404 for an unknown message. ' +
    'The event `message_deleted` `{message_id, conversation_id}` follows. Returns `{deleted: true}`. ' +
    seeDecisions,
  tags,
  auth: 'user',
  policy: 'conversations.reply',
  params: messageParams,
  response: z.object({ deleted: z.literal(true) }).openapi('DeletedScheduledReply'),
  errors: [404, 409],
  handler: async ({ params, member, deps }) => {
    await runCommand(deps, (tx) =>
      cancelScheduledReply(tx, { businessId: member.businessId, conversationId: params.conversation_id, messageId: params.message_id }),
    );
    return { deleted: true as const };
  },
});

export default [bulk, snooze, wake, priority, editScheduled, cancelScheduled];
