/** "Send again": a failed reply back into its conversation's delivery (core/commands/retry-reply.ts). */
import { runCommand } from '../../../core/commands/run-command.ts';
import { retryReply } from '../../../core/commands/retry-reply.ts';
import { messageSchema } from '../../../core/presenters/message.ts';
import { defineRoute } from '../../route.ts';
import { messageParams } from './schema.ts';

export const retry = defineRoute({
  method: 'post',
  path: '/api/v1/conversations/:conversation_id/messages/:message_id/retry',
  summary: 'Send a failed reply again',
  description:
    "An agent's or the AI agent's reply in `delivery_status: failed` (with its `error`) goes back to `queued`: its error cleared, its `created_at` now, so it is delivered after every reply already sent " +
    "and the thread shows it last; the conversation's `last_message_at` and `updated_at` follow. Not counted again (it was counted when stored), except a scheduled reply that failed at its release " +
    "before it was counted, which is counted now (403 at the monthly limit). 409 for any other message (a note, a customer's message, a reply sent or still going out); " +
    "400 when the conversation's channel was deleted; 422 `reply_window_closed` for a free-form WhatsApp reply after the 24 hours; 404 for a message of another conversation or business. " +
    "`message_updated` and `conversation_updated` follow, and the reply's updates as it is delivered. Returns the Message. See docs/decisions.md#messages-and-delivery.",
  tags: ['Conversations'],
  auth: 'user',
  policy: 'conversations.reply',
  params: messageParams,
  response: messageSchema,
  errors: [400, 403, 404, 409],
  handler: async ({ params, member, deps }) => {
    const { message } = await runCommand(deps, (tx) =>
      retryReply(tx, { businessId: member.businessId, conversationId: params.conversation_id, messageId: params.message_id }),
    );
    return message;
  },
});

export default [retry];
