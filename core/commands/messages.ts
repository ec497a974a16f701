/**
 * Sending a message into a conversation, for every sender (an agent, the AI agent, the system),
 * in ONE statement (atomic on its own, or part of the caller's transaction): lock the
 * conversation, count the message against the month, insert it, enqueue its delivery, touch the
 * conversation. Which of those steps run is the sender's kind (see MessageSender). The caller
 * publishes the returned events after commit.
 *
 * One statement because the agent reply is the hot path: as a transaction of seven statements it
 * spent its time in round trips, holding the business's one counter row through them.
 * Lock order (after team.ts's business → team_members → conversations): the conversation row,
 * then the month's message_counters row; both are held for the rest of the statement and the commit.
 */
import { randomUUID } from 'node:crypto';
import type { FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { replyWindowClosed, replyWindowOpen } from '../domain/whatsapp-templates.ts';
import { prepared, sql, type Queryable } from '../adapters/postgres/db.ts';
import { badRequest, CallerChanged, notFound } from '../errors.ts';
import { assertReserved, monthlyReservation, reservationColumns, reservationRow } from '../domain/plans.ts';
import { audienceRead, conversationUpdated, conversationUpdatedEvent, messageCreated, messageCreatedEvent, type PendingEvent } from '../events/live.ts';
import { conversationColumns } from '../presenters/conversation.ts';
import { writtenEntry, writtenListEntry } from '../reads/conversations.ts';
import { audienceColumns, audienceFields } from '../domain/team-visibility.ts';
import { messageColumns, messageRow, presentMessage, type Message } from '../presenters/message.ts';
import { impliedBy, recordEventsFragment, type Actor } from '../events/domain.ts';
import type { Attachment } from '../domain/uploads.ts';

/**
 * Who sends, and so what sending does.
 * - `agent` (a member, by user id): counted against the month (403 at the limit), stored
 *   `queued` with `sender_id` = the user and delivered (its conversation's delivery drain, delivery-drain.ts); sets the
 *   conversation's `first_response_at` when it is the first, and a `pending` conversation becomes `open`.
 * - `ai` (the AI agent): counted and delivered like an agent's reply, `sender_id` null; leaves
 *   `first_response_at` (it measures the first human reply) and the status alone.
 * - `system` (a note the app writes, e.g. about an assignment): not counted, not delivered to
 *   the customer (no job, `delivery_status` null), so it may be written where the channel is
 *   gone; visible in the inbox. Leaves `first_response_at` and the status alone. With
 *   `deliver: true` (the out-of-hours notice, core/commands/business-hours.ts) it is still not
 *   counted, but delivered through the channel like a reply (400 when the channel is gone).
 * - `note` (a member's private note, by user id): stored as an `agent` message with `private`
 *   true; not counted, not delivered (`delivery_status` null), so it may be written where the
 *   channel is gone; leaves `first_response_at`, the status, `last_message_at` and `updated_at`
 *   alone (the conversation neither reopens nor moves up the inbox: nothing happened for the customer).
 * - `forward` (a member forwards the conversation or some of its messages to an outside address,
 *   core/commands/email-forward.ts): stored as a private `agent` message (the note) and delivered
 *   through the channel to the addresses in `email.forward`; not counted (it is not a reply), and it
 *   leaves the conversation as a note does.
 * - `agent` with `sendAt` (a scheduled reply, core/commands/scheduled-replies.ts): stored
 *   `scheduled` with `send_at`; not counted, not delivered and the conversation left as it is
 *   until it is released at that time (then it is counted, queued and touches the conversation
 *   as a reply sent then would). 400 when the channel was deleted, as for any reply.
 * Every other kind moves the conversation's `last_message_at` (to the message's `created_at`) and `updated_at`.
 */
export type MessageSender =
  | { type: 'agent'; userId: string; sendAt?: Date | null }
  | { type: 'note'; userId: string }
  | { type: 'forward'; userId: string }
  | { type: 'ai' }
  | { type: 'system'; deliver?: boolean };

export type SendMessageInput = {
  businessId: string;
  conversationId: string;
  sender: MessageSender;
  /** 1–10,000 characters for an agent (checked by the route). */
  content: string;
  /** Already resolved to this business's uploads (core/domain/uploads.ts resolveAttachments); `[]` for none. */
  attachments: Attachment[];
  /** A WhatsApp template to send instead of free text (checked by the route: core/domain/whatsapp-templates.ts). */
  template?: { name: string; language: string; parameters: string[] } | null;
  /**
   * Refuse a free-form reply once the platform's reply window closed (WhatsApp's 24 hours):
   * 422 `reply_window_closed`, checked in the same statement that stores the reply.
   */
  checkReplyWindow?: boolean;
  /** E-mail channels: `messages.email` (cc, bcc, signature of a reply; forward of a forward). */
  email?: Record<string, unknown> | null;
  /**
   * The caller has not read the e-mail fields (`email`): on a conversation of an e-mail channel
   * the statement stores nothing and answers `{ emailFieldsNeeded: true }` (see sendReply in
   * core/commands/agent-reply.ts), so a reply on any other channel costs no read before it.
   */
  unlessEmail?: boolean;
  /**
   * The statement also records its domain events (the SQL function domain_events_record) and
   * says so (`eventsRecorded`), so runCommand's `oneStatement` path adds no round trip for them.
   * Only for a command that is this one statement.
   */
  recordEvents?: boolean;
  /**
   * An SQL condition the statement writes only under: the caller as authentication found them
   * still is so (api/middlewares/auth.ts callerCheck, for a caller remembered from an earlier
   * request). False: nothing is written and CallerChanged is thrown.
   */
  callerCheck?: FragmentSqlToken;
};

export type SentMessage = { message: Message; events: PendingEvent[]; eventsRecorded?: true };

/** The statement's answer: the checks' outcomes, the reservation's, and the message's columns (messageRow) when stored. */
const outcomeRow = z.object({ found: z.boolean(), deliverable: z.boolean() }).catchall(z.unknown());
const audienceRow = z.object(audienceFields);

/** Who a message's events name as their actor. */
function actorOfSender(sender: MessageSender): Actor {
  if (sender.type === 'agent' || sender.type === 'note' || sender.type === 'forward') return { type: 'member', userId: sender.userId };
  if (sender.type === 'ai') return { type: 'ai' };
  return { type: 'system' };
}

/** What the sender's kind decides; everything else in the statement is the same for all. */
function rulesOf(sender: MessageSender) {
  const isNote = sender.type === 'note';
  const isForward = sender.type === 'forward';
  const sendAt = sender.type === 'agent' && sender.sendAt ? sender.sendAt : null;
  if (sendAt) {
    return {
      senderId: sender.type === 'agent' ? sender.userId : null,
      senderType: 'agent',
      private: false,
      status: 'scheduled',
      sendAt: sendAt.toISOString(),
      /** It needs a channel to go out through later (400 when deleted), but is not queued now. */
      needsChannel: true,
      outbound: false,
      counted: false,
      human: false,
      touches: false,
    };
  }
  const outbound = sender.type === 'agent' || sender.type === 'ai' || isForward || (sender.type === 'system' && sender.deliver === true);
  return {
    senderId: sender.type === 'agent' || isNote || isForward ? sender.userId : null,
    /** Stored as: a note (and a forward) is an agent's message, marked private. */
    senderType: isNote || isForward ? 'agent' : sender.type,
    private: isNote || isForward,
    status: outbound ? 'queued' : null,
    sendAt: null,
    needsChannel: outbound,
    /** Delivered through the channel (queued, drained): replies, forwards, and a system notice meant for the customer. */
    outbound,
    /** Counted against the month (a reply, not a notice of Parley's own). */
    counted: sender.type === 'agent' || sender.type === 'ai',
    /** A human's reply: the first one is the conversation's first response, and it takes a pending conversation back. */
    human: sender.type === 'agent',
    /** Moves the conversation's last_message_at and updated_at (its place in the inbox). */
    touches: !isNote && !isForward,
  };
}

/** 400 for a reply to a conversation whose channel was deleted: there is nothing to deliver it through. */
export const channelDeleted = () => badRequest('The channel of this conversation was deleted, so a reply cannot be delivered');

/**
 * 404 when the conversation is not the business's; for an outbound sender (agent, ai) 400 when
 * its channel was deleted (nothing could deliver the message) and 403 limit_exceeded/messages
 * at the monthly limit. A refused send leaves no message, no job and no count behind (nothing was written).
 */
export async function sendMessage(q: Queryable, input: Omit<SendMessageInput, 'unlessEmail'>): Promise<SentMessage> {
  const sent = await trySendMessage(q, input);
  if ('emailFieldsNeeded' in sent) throw new Error('sendMessage: unlessEmail is for trySendMessage');
  return sent;
}

/** sendMessage, or `{ emailFieldsNeeded: true }` with nothing written when `unlessEmail` meets an e-mail conversation. */
export async function trySendMessage(q: Queryable, input: SendMessageInput): Promise<SentMessage | { emailFieldsNeeded: true }> {
  const rules = rulesOf(input.sender);
  // Made here, so the events (and their webhook refs) are known before the statement runs.
  const messageId = randomUUID();
  const touchedEvent = conversationUpdated({ id: input.conversationId, business_id: input.businessId });
  const pending: PendingEvent[] = rules.touches
    ? [messageCreated(input.businessId, messageId, input.conversationId), touchedEvent]
    : [messageCreated(input.businessId, messageId, input.conversationId)];
  const recorded = input.recordEvents ? recordEventsFragment(impliedBy(pending, actorOfSender(input.sender))) : null;
  // A free-form reply on a channel with a reply window (WhatsApp) only while it is open.
  const windowCheck = input.checkReplyWindow && !input.template ? replyWindowOpen : sql.fragment`true`;
  const row = await q.one(
    prepared(sql.type(outcomeRow)`
    with caller as (
      select ${input.callerCheck ?? sql.fragment`true`} as valid
    ), conversation as (
      select c.id, c.channel_id, c.channel_type, c.reply_window_expires_at,
             ${windowCheck} as window_open, ${audienceColumns('c')}
      from conversations c
      where c.id = ${input.conversationId} and c.business_id = ${input.businessId} and (select valid from caller)
      for update
    ), deliverable as (
      select id, channel_id from conversation
      where window_open ${input.unlessEmail ? sql.fragment`and channel_type <> 'email'` : sql.fragment``} ${rules.needsChannel ? sql.fragment`and channel_id is not null` : sql.fragment``}
    ), ${rules.counted ? monthlyReservation(input.businessId, 'deliverable') : sql.fragment`reservation as (select true as reserved)`},
    message as (
      insert into messages as m (id, business_id, conversation_id, sender_type, sender_id, content, attachments, delivery_status, channel_id, private, template, email, send_at)
      select ${messageId}, ${input.businessId}, d.id, ${rules.senderType}, ${rules.senderId}::uuid, ${input.content}, ${sql.jsonb(input.attachments)},
             ${rules.status}, d.channel_id, ${rules.private}, ${input.template ? sql.jsonb(input.template) : null}::jsonb,
             ${input.email ? sql.jsonb(input.email as never) : null}::jsonb, ${rules.sendAt}::timestamptz
      from deliverable d where exists (select 1 from reservation where reserved)
      -- The columns every read of a message selects (core/reads/messages.ts), so the answer is what GET shows.
      returning ${messageColumns}
    ), job as (
      -- Arms the conversation's delivery drain (migration 0085): a job only when none is waiting to run.
      ${rules.outbound ? sql.fragment`select delivery_arm_drain(m.conversation_id) from message m` : sql.fragment`select null where false`}
    ), recorded as (
      ${recorded ? sql.fragment`select ${recorded} from message m` : sql.fragment`select null where false`}
    ), touched as (
      -- The message's own timestamp, so first_response_at equals the first reply's created_at.
      ${
        rules.touches
          ? sql.fragment`update conversations c set
        ${rules.human ? sql.fragment`first_response_at = coalesce(c.first_response_at, m.created_at),` : sql.fragment``}
        last_message_at = m.created_at,
        ${rules.human ? sql.fragment`status = case when c.status = 'pending' then 'open' else c.status end,` : sql.fragment``}
        updated_at = now()
      from message m where c.id = m.conversation_id
      returning ${conversationColumns}`
          : sql.fragment`select null where false`
      }
    )${rules.touches ? sql.fragment`, entry as (${writtenEntry('touched')})` : sql.fragment``}
    select (select valid from caller) as caller_valid, exists (select 1 from conversation) as found, exists (select 1 from deliverable) as deliverable,
           coalesce((select window_open from conversation), true) as window_open,
           coalesce((select channel_type = 'email' from conversation), false) as email_channel,
           (select to_char(reply_window_expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') from conversation) as window_closed_at,
           -- Where its live events may go (team-scoped visibility): publishing needs no query for it.
           coalesce((select team_visibility from conversation), false) as team_visibility, (select audience from conversation) as audience,
           ${rules.counted ? reservationColumns : sql.fragment`reservation.reserved`},
           -- Reading job makes it run (a plain WITH query runs only when read; an update always runs).
           (select count(*) from job) as jobs, (select count(*) from recorded) as recorded, m.*
           ${rules.touches ? sql.fragment`, entry.*` : sql.fragment``}
    from (select) as one left join reservation on true left join message m on true
    ${rules.touches ? sql.fragment`left join entry on true` : sql.fragment``}`),
  );
  if (row.caller_valid === false) throw new CallerChanged();
  if (!row.found) throw notFound('Conversation not found');
  if (input.unlessEmail && row.email_channel === true) return { emailFieldsNeeded: true };
  if (row.window_open === false) throw replyWindowClosed((row.window_closed_at as string | null) ?? null);
  if (!row.deliverable) throw channelDeleted();
  if (rules.counted) assertReserved(reservationRow.parse(row));
  const message = presentMessage(messageRow.parse(row));
  const created = messageCreatedEvent(input.businessId, message);
  // A note leaves the conversation as it was: nothing to update on dashboards but the thread.
  // A reply's statement read the conversation's list entry as it left it (writtenEntry): its
  // event needs no read after the commit.
  const audience = audienceRead(input.businessId, input.conversationId, audienceRow.parse(row));
  const entry = rules.touches ? writtenListEntry(row, message) : null;
  const touched = entry ? conversationUpdatedEvent(input.businessId, entry) : touchedEvent;
  const events = rules.touches ? [created, touched, audience] : [created, audience];
  return input.recordEvents ? { message, events, eventsRecorded: true } : { message, events };
}
