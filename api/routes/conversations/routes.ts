/** The inbox: start, list and read conversations, reply, resolve, close, reopen, assign; uploads (upload.ts). */
import { z } from '../../../lib/zod.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import { resolveAttachments } from '../../../core/domain/uploads.ts';
import { sendAgentReply } from '../../../core/commands/agent-reply.ts';
import { checkReply } from '../../../core/domain/whatsapp-templates.ts';
import { startConversationWithTemplate } from '../../../core/commands/start-with-template.ts';
import { sendNote } from '../../../core/commands/notes.ts';
import { scheduleReply } from '../../../core/commands/scheduled-replies.ts';
import { badRequest, validationError } from '../../../core/errors.ts';
import {
  assignConversationToAgentNumber,
  closeConversation,
  createConversation,
  reopenConversation,
  resolveConversation,
} from '../../../core/commands/conversations.ts';
import { defineRoute } from '../../route.ts';
import { authorize } from '../../policies.ts';
import { callerCheck } from '../../middlewares/auth.ts';
import { mergeConversations } from '../../../core/commands/merge-conversations.ts';
import { noBusiness } from '../../policies.ts';
import { conversationListItemSchema, conversationSchema } from '../../../core/presenters/conversation.ts';
import { messageSchema } from '../../../core/presenters/message.ts';
import { conversationPage, findConversation, loadConversation, loadConversationWithOlder } from '../../../core/reads/conversations.ts';
import { messagePage } from '../../../core/reads/messages.ts';
import { encodeCursor } from '../../cursor.ts';
import { requireVisible } from '../../../core/domain/team-visibility.ts';
import {
  assignParams,
  assignResponse,
  closedResponse,
  conversationParams,
  createConversationBody,
  listConversationsQuery,
  listMessagesQuery,
  mergeBody,
  resolvedResponse,
  sendMessageBody,
  imagesQuery,
  forwardBody,
  replyRecipientsResponse,
} from './schema.ts';
import { emailReplyContext, emailReplyFields, combinedSignature, memberSignature } from '../../../core/domain/email-replies.ts';
import { forwardConversation } from '../../../core/commands/email-forward.ts';
import uploadRoutes from './upload.ts';
import triageRoutes from './triage.ts';
import retryRoutes from './retry.ts';

const tags = ['Conversations'];

export const create = defineRoute({
  method: 'post',
  // Also answers the spec's `/api/v1/conversations/` (a trailing slash is optional on every route).
  path: '/api/v1/conversations',
  summary: 'Start a conversation',
  description:
    "`business_id` must be the caller's business (404 `Business not found`). `customer_id` is a customer `uuid` of the business (400 otherwise). " +
    "`channel_id` is an active channel of the business (400 `Channel not found`); without it the business's built-in `webchat` channel is used, and `channel_type` follows the channel. " +
    'With `initial_message` (1–10,000 characters, trimmed) an `agent` message by the caller is sent exactly like POST …/messages: it counts against the monthly limit ' +
    '(403 at the limit, and then no conversation is created), is queued for delivery and sets `first_response_at`. Status is `open`. The trailing slash of the path is optional. ' +
    '**WhatsApp, started by the business**: with `channel_id` of a WhatsApp channel, `phone` (E.164) and `template: {name, language, parameters}` (an approved template of the channel, GET /api/v1/channels/{id}/templates) ' +
    "the customer with that WhatsApp number on the channel is found or created, and so is the conversation (the customer's latest on the channel unless it is closed: where their answer will land), " +
    "and the template is sent into it as the caller's reply (counted like one: 403 at the limit, and then nothing is created; queued and delivered in order; its rendered body is the message's `content`). " +
    'Returns that conversation. 422 for a channel that is not WhatsApp, a template that is not an approved one of the channel, a wrong parameter count, or `template` without `phone`/`channel_id` (or with `customer_id`/`initial_message`); 400 `Channel not found` for a channel of another business. ' +
    'See docs/decisions.md#conversations-states-and-assignment and docs/decisions.md#whatsapp-window-and-templates.',
  tags,
  auth: 'user',
  policy: 'conversations.create',
  body: createConversationBody,
  response: conversationSchema,
  errors: [400, 403, 404],
  handler: async ({ body, caller, member, deps }) => {
    const { businessId } = member;
    if (businessId !== body.business_id) throw noBusiness.business();
    if (body.template) {
      // Sending the template is a reply: the caller needs that too.
      authorize(caller, 'conversations.reply');
      const { template, channel_id: channelId, phone } = body;
      const { conversation } = await runCommand(deps, async (tx) => {
        const started = await startConversationWithTemplate(tx, {
          businessId,
          createdBy: caller.userId,
          channelId: channelId!,
          phoneDigits: phone!,
          template,
        });
        return { conversation: await loadConversation(tx, { businessId }, started.conversationId), events: started.events };
      });
      return conversation;
    }
    const { conversation } = await runCommand(deps, async (tx) => {
      const created = await createConversation(tx, {
        businessId,
        createdBy: caller.userId,
        customerId: body.customer_id,
        channelId: body.channel_id,
        initialMessage: body.initial_message ? { content: body.initial_message, attachments: [] } : null,
      });
      return { conversation: await loadConversation(tx, { businessId }, created.conversationId), events: created.events };
    });
    return conversation;
  },
});

export const list = defineRoute({
  method: 'get',
  path: '/api/v1/conversations',
  summary: 'List conversations',
  description:
    "Most recently updated first, each with its `customer`, `labels` and `last_message` (instead of all messages). Filters: `status` (one, or several separated by commas), `assignee_id` (a user id, or `none` for unassigned), `channel_type`, `customer_id` (a customer `uuid`: their conversation history), `team_id` (a team id, or `none`), `label` (a label name, case-insensitive; an unknown name lists nothing), `snoozed` (`true`: the Snoozed view; `false`: awake ones only, the inbox's open view), `priority` (one, or several separated by commas), `sla` (`breached`, `due_soon`, `due`). `sort=sla` lists conversations with something due, soonest (most overdue) first. " +
    '`limit` 1–200 (default 50). When more exist, the `X-Next-Cursor` response header holds an opaque cursor: pass it as `before` for the next page. The trailing slash of the path is optional. ' +
    'Under team-scoped visibility an agent lists only the conversations of their teams and those assigned to them (docs/decisions.md#teams-and-team-scoped-visibility). See docs/decisions.md#conversations-states-and-assignment.',
  tags,
  auth: 'user',
  policy: 'conversations.read',
  query: listConversationsQuery,
  response: z.array(conversationListItemSchema),
  errors: [404],
  handler: async ({ query, member, deps, ctx }) => {
    const { limit, before, ...filter } = query;
    const page = await conversationPage(deps.db, member, filter, { limit, before });
    if (page.next) ctx.set('X-Next-Cursor', encodeCursor(page.next));
    return page.conversations;
  },
});

export const read = defineRoute({
  method: 'get',
  path: '/api/v1/conversations/:conversation_id',
  summary: 'Read a conversation',
  description:
    'With its `customer`, its `labels` and its latest 100 `messages`, oldest first. ' +
    'When it has older messages, the `X-Next-Cursor` response header holds the cursor for them: GET …/messages?before=<cursor> continues further back ' +
    '(the agent app\'s "Show earlier messages").',
  tags,
  auth: 'user',
  policy: 'conversations.read',
  params: conversationParams,
  query: imagesQuery,
  response: conversationSchema,
  errors: [404],
  handler: async ({ params, query, member, deps, ctx }) => {
    const { conversation, older } = await loadConversationWithOlder(deps.db, member, params.conversation_id, { images: query.images === '1' });
    if (older) ctx.set('X-Next-Cursor', encodeCursor(older));
    return conversation;
  },
});

export const listMessages = defineRoute({
  method: 'get',
  path: '/api/v1/conversations/:conversation_id/messages',
  summary: "List a conversation's messages",
  description:
    'Oldest first: the `limit` (1–200, default 50) latest messages, or the latest ones before the `before` cursor. ' +
    'When older messages exist, the `X-Next-Cursor` response header holds the cursor for them. ' +
    'Customer e-mail keeps its HTML in `html_sanitized` with remote images blocked; `images=1` arms them (docs/decisions.md#e-mail-in-depth).',
  tags,
  auth: 'user',
  policy: 'conversations.read',
  params: conversationParams,
  query: listMessagesQuery,
  response: z.array(messageSchema),
  errors: [404],
  handler: async ({ params, query, member, deps, ctx }) => {
    const conversation = await findConversation(deps.db, member, params.conversation_id);
    const { messages, next } = await messagePage(deps.db, conversation.id, query.limit, query.before, { images: query.images === '1' });
    if (next) ctx.set('X-Next-Cursor', encodeCursor(next));
    return messages;
  },
});

export const send = defineRoute({
  method: 'post',
  path: '/api/v1/conversations/:conversation_id/messages',
  summary: 'Send an agent reply',
  description:
    '`content` 1–10,000 characters (surrounding whitespace trimmed). `attachments`: up to 10 items whose `url` came from POST …/upload of this business (422 otherwise); ' +
    'the stored name, type and size replace what the client sends. In one transaction the message is counted against the monthly limit ' +
    "(403 `limit_exceeded`/`messages` once reached: then nothing is stored), stored with `delivery_status: queued`, the conversation's `updated_at` and " +
    '`last_message_at` move, `first_response_at` is set by the first agent message, a `pending` conversation becomes `open` (other states are kept), ' +
    "and the `deliver_message` job is enqueued. 400 when the conversation's channel was deleted. Events `message_created` and `conversation_updated` follow. " +
    "**E-mail**: `cc` and `bcc` (at most 10 valid addresses each; 400 on another channel type); without `cc` the other recipients of the customer's latest mail are copied again. " +
    "The caller's signature (PUT /api/v1/team/signature), then the channel's (`config.signature`), is appended; the mail goes out as multipart text + HTML. `email` on the message records what was sent. " +
    'WhatsApp: a free-form reply after the 24-hour window (`reply_window_expires_at` of the conversation) is 422 `reply_window_closed` at once; ' +
    '`template: {name, language, parameters}` (no `content` needed) sends an approved template instead (inside or outside the window; 422 when not approved or the parameter count differs), stored with its rendered body as `content` (see docs/decisions.md#whatsapp-window-and-templates). ' +
    '**Private notes**: with `private: true` the message is a note for the team (`sender_type` `agent`, `private: true`, `delivery_status` null): never delivered to the channel, ' +
    'never shown by the visitor API, the widget or the AI agent, not counted against the monthly limit (no 403), not a first response, and the conversation is left as it was ' +
    "(status, `updated_at`, `last_message_at` and so its place in the inbox; `last_message` in lists stays the latest message the customer can see); possible when the channel was deleted, and outside WhatsApp's window. " +
    'Only `message_created` follows. `mentions`: membership ids of active members of this business (400 naming the first that is not; 400 without `private: true`); ' +
    'each mentioned member gets a Mention (GET /api/v1/mentions), the event `mention_created` in their own room and, when their availability is `offline`, an e-mail. ' +
    '**Send later**: with `send_at` (a time ahead, at most a year) the reply is stored with `delivery_status: scheduled` and `send_at`: not delivered, not counted and the conversation left as it is until then; ' +
    "it can be changed (PATCH …/messages/{message_id}) or cancelled (DELETE) until it goes out. At `send_at` it is sent exactly as if it were sent then: counted (`failed` with the reason at the monthly limit), `queued`, its `created_at` becomes that moment, and it is delivered through the conversation's delivery drain in order. Not with `private` (400). " +
    'See docs/decisions.md#messages-and-delivery, docs/decisions.md#private-notes-and-mentions, docs/decisions.md#snooze-priority-bulk-and-scheduled-send and docs/decisions.md#businesses-plans-and-limits.',
  tags,
  auth: 'user',
  policy: 'conversations.reply',
  params: conversationParams,
  body: sendMessageBody,
  response: messageSchema,
  errors: [400, 403, 404],
  // The hot path: the reply's statement checks the caller itself (no authentication query).
  rememberedCaller: true,
  handler: async ({ params, body, caller, member, deps, verifyCaller }) => {
    const { businessId } = member;
    // One statement writes everything (sendMessage): no transaction around it. 404 for
    // another business's conversation comes from it too.
    // `content` is required, except for a template reply (its rendered body is the content).
    if (body.content === undefined && (body.template === undefined || body.private))
      throw validationError([{ loc: ['body', 'content'], msg: 'Field required', type: 'missing' }]);
    if (body.mentions.length && !body.private) throw badRequest('Mentions are only allowed in private notes (private: true)');
    if (body.private && (body.cc?.length || body.bcc?.length)) throw badRequest('A private note has no Cc or Bcc');
    if (body.private) {
      if (body.send_at) throw badRequest('A private note cannot be scheduled');
      if (body.template) throw badRequest('A private note cannot be a template');
      await verifyCaller();
      const attachments = await resolveAttachments(deps.db, { businessId, publicUrl: deps.config.publicUrl, attachments: body.attachments });
      const note = await runCommand(deps, (tx) =>
        sendNote(tx, {
          businessId,
          conversationId: params.conversation_id,
          userId: caller.userId,
          content: body.content ?? '',
          attachments,
          mentions: body.mentions,
        }),
      );
      return note.message;
    }
    // A template is checked (approved, parameters) and rendered first; a free-form reply's
    // WhatsApp window is checked by the statement that stores it (sendMessage).
    const rendered = body.template ? await checkReply(deps.db, { businessId, conversationId: params.conversation_id, template: body.template }) : null;
    const attachments = await resolveAttachments(deps.db, { businessId, publicUrl: deps.config.publicUrl, attachments: body.attachments });
    const content = rendered ?? body.content ?? '';
    if (body.send_at) {
      await verifyCaller();
      // E-mail: Cc (given, or carried over from the thread), Bcc and the signature, recorded on the reply.
      const email = await emailReplyFields(deps.db, deps.config.encryptionKey, {
        businessId,
        conversationId: params.conversation_id,
        userId: caller.userId,
        cc: body.cc,
        bcc: body.bcc,
      });
      const sendAt = body.send_at;
      const scheduled = await runCommand(deps, (tx) =>
        scheduleReply(tx, {
          businessId,
          conversationId: params.conversation_id,
          userId: caller.userId,
          content,
          attachments,
          template: body.template ?? null,
          sendAt,
          checkReplyWindow: true,
          email,
        }),
      );
      return scheduled.message;
    }
    // One statement (core/commands/agent-reply.ts); an e-mail conversation's fields are read when it is one.
    const sent = await sendAgentReply(deps, {
      businessId,
      conversationId: params.conversation_id,
      userId: caller.userId,
      content,
      attachments,
      template: body.template ?? null,
      cc: body.cc,
      bcc: body.bcc,
      callerCheck: callerCheck(caller),
    });
    return sent.message;
  },
});

export const forward = defineRoute({
  method: 'post',
  path: '/api/v1/conversations/:conversation_id/forward',
  summary: 'Forward an e-mail conversation to outside addresses',
  description:
    'E-mail conversations only (400 otherwise, and when the channel was deleted). Sends `note` and the quoted messages (`message_ids` of this conversation, 400 naming one that is not; ' +
    "default: the whole conversation, private notes never) to `to` through the conversation's channel: a new mail \"Fwd: <subject>\", multipart text + HTML, with the caller's and the channel's signature. " +
    "Stored as a private agent message (`email.forward_to`, `delivery_status` queued → sent/failed) delivered in order with the conversation's replies; not counted against the monthly limit, " +
    'the conversation is left as it was. Event `message_created`. See docs/decisions.md#e-mail-in-depth.',
  tags,
  auth: 'user',
  policy: 'conversations.forward',
  params: conversationParams,
  body: forwardBody,
  response: messageSchema,
  errors: [400, 404],
  handler: async ({ params, body, caller, member, deps }) => {
    const sent = await runCommand(deps, (q) =>
      forwardConversation(q, deps.config.encryptionKey, {
        businessId: member.businessId,
        conversationId: params.conversation_id,
        userId: caller.userId,
        to: body.to,
        messageIds: body.message_ids ?? null,
        note: body.note,
      }),
    );
    return sent.message;
  },
});

export const replyRecipients = defineRoute({
  method: 'get',
  path: '/api/v1/conversations/:conversation_id/reply-recipients',
  summary: 'Who an e-mail reply goes to by default',
  description:
    "E-mail conversations: the support address, the customer, the Cc a reply carries over when it names none (the other recipients of the customer's latest mail), and the signature a reply by the caller gets. " +
    '400 for another channel type or a deleted channel. For prefilling a reply form.',
  tags,
  auth: 'user',
  policy: 'conversations.read',
  params: conversationParams,
  response: replyRecipientsResponse,
  errors: [400, 404],
  handler: async ({ params, caller, member, deps }) => {
    const context = await emailReplyContext(deps.db, deps.config.encryptionKey, member.businessId, params.conversation_id);
    if (!context) throw badRequest('Not an e-mail conversation');
    const signature = combinedSignature(await memberSignature(deps.db, member.businessId, caller.userId), context.channelSignature);
    return { from: context.address, to: context.customer, cc: context.threadCc, signature };
  },
});

export const resolve = defineRoute({
  method: 'put',
  path: '/api/v1/conversations/:conversation_id/resolve',
  summary: 'Resolve a conversation',
  description:
    'From any other state; records who resolved it. Already resolved: 200 `{detail}` and nothing changes. See docs/decisions.md#conversations-states-and-assignment.',
  tags,
  auth: 'user',
  policy: 'conversations.change_status',
  params: conversationParams,
  response: resolvedResponse,
  errors: [404],
  handler: async ({ params, caller, member, deps }) => {
    const { businessId } = member;
    const result = await runCommand(deps, (tx) => resolveConversation(tx, { businessId, conversationId: params.conversation_id, userId: caller.userId }));
    if (!result.changed) return { detail: 'Conversation is already resolved' };
    return { resolved_at: result.at };
  },
});

export const close = defineRoute({
  method: 'put',
  path: '/api/v1/conversations/:conversation_id/close',
  summary: 'Close a conversation',
  description:
    'From any other state. Already closed: 200 `{detail}` and nothing changes. A customer writing again later starts a new conversation. See docs/decisions.md#conversations-states-and-assignment.',
  tags,
  auth: 'user',
  policy: 'conversations.change_status',
  params: conversationParams,
  response: closedResponse,
  errors: [404],
  handler: async ({ params, member, deps }) => {
    const { businessId } = member;
    const result = await runCommand(deps, (tx) => closeConversation(tx, { businessId, conversationId: params.conversation_id }));
    if (!result.changed) return { detail: 'Conversation is already closed' };
    return { closed_at: result.at };
  },
});

export const reopen = defineRoute({
  method: 'put',
  path: '/api/v1/conversations/:conversation_id/reopen',
  summary: 'Reopen a conversation',
  description:
    'Sets `open` from any state and clears `resolved_at`, `closed_at` and who resolved it (an open conversation is left unchanged). Returns the Conversation. See docs/decisions.md#conversations-states-and-assignment.',
  tags,
  auth: 'user',
  policy: 'conversations.change_status',
  params: conversationParams,
  response: conversationSchema,
  errors: [404],
  handler: async ({ params, member, deps }) => {
    const { businessId } = member;
    const { conversation } = await runCommand(deps, async (tx) => {
      const result = await reopenConversation(tx, { businessId, conversationId: params.conversation_id });
      return { conversation: await loadConversation(tx, { businessId }, params.conversation_id), events: result.events, domainEvents: result.domainEvents };
    });
    return conversation;
  },
});

export const merge = defineRoute({
  method: 'post',
  path: '/api/v1/conversations/:conversation_id/merge',
  summary: 'Merge another conversation of the same customer into this one',
  description:
    'Moves every message of `from_conversation_id` into this conversation (the thread shows them in time order with its own), with its uploads and labels; ' +
    'replies it still had queued go out through this conversation, in order. The other conversation is closed. A system note in each says what happened. ' +
    "Another business's or an unknown conversation: 404; the same conversation, or one of another customer: 400. Events `message_created` (the notes) and " +
    '`conversation_updated` for both. Returns this Conversation. See docs/decisions.md#conversations-states-and-assignment.',
  tags,
  auth: 'user',
  policy: 'conversations.merge',
  params: conversationParams,
  body: mergeBody,
  response: conversationSchema,
  errors: [400, 404],
  handler: async ({ params, body, member, deps }) => {
    const { businessId } = member;
    await requireVisible(deps.db, member, body.from_conversation_id);
    const { conversation } = await runCommand(deps, async (tx) => {
      const result = await mergeConversations(tx, { businessId, conversationId: params.conversation_id, fromConversationId: body.from_conversation_id });
      return { conversation: await loadConversation(tx, { businessId }, params.conversation_id), events: result.events };
    });
    return conversation;
  },
});

export const assign = defineRoute({
  method: 'put',
  path: '/api/v1/conversations/:conversation_id/assign/:agent_id',
  summary: 'Assign a conversation by agent number',
  description:
    "`agent_id` is the member's integer `agent_number` (see GET /api/v1/team/members); the conversation stores that member's user id, which `assignee_id` shows elsewhere. " +
    'Any member may take a conversation (their own `agent_number`); assigning it to another member takes the owner or an admin (policy `conversations.assign`; others get 403). An unknown number, or an inactive member: 404 `Agent not found`; not an integer: 422. A `pending` conversation becomes `open` (as with the team assign). ' +
    'Events `conversation_assigned` (to the assignee) and `conversation_updated`. See docs/decisions.md#conversations-states-and-assignment.',
  tags,
  auth: 'user',
  policy: 'conversations.take',
  params: assignParams,
  response: assignResponse,
  errors: [403, 404],
  handler: async ({ params, caller, member, deps }) => {
    const { businessId } = member;
    // Someone else's number: the same rule as POST /team/assign.
    if (params.agent_id !== member.agentNumber) authorize(caller, 'conversations.assign');
    await runCommand(deps, (tx) =>
      assignConversationToAgentNumber(tx, { businessId, conversationId: params.conversation_id, agentNumber: params.agent_id, assignedBy: caller.userId }),
    );
    return { assignee_id: params.agent_id };
  },
});

export default [
  create,
  list,
  read,
  listMessages,
  send,
  forward,
  replyRecipients,
  resolve,
  close,
  reopen,
  merge,
  assign,
  ...triageRoutes,
  ...retryRoutes,
  ...uploadRoutes,
];
