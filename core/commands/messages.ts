/**
 * An agent's reply, in ONE statement (atomic on its own, or part of the caller's transaction):
 * lock the conversation, count the reply against the month, insert it queued, enqueue its
 * delivery, touch the conversation. The caller publishes the returned events after commit.
 *
 * One statement because the reply is the hot path: as a transaction of seven statements it
 * spent its time in round trips, holding the business's one counter row through them.
 * Lock order (after team.ts's business → team_members → conversations): the conversation row,
 * then the month's message_counters row; both are held for the rest of the statement and the commit.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../db.ts';
import { badRequest, notFound } from '../errors.ts';
import { assertReserved, monthlyReservation, reservationColumns, reservationRow } from '../plans.ts';
import { addJobExpression } from '../jobs.ts';
import { conversationUpdated, messageCreatedEvent, type PendingEvent } from '../live-events.ts';
import { messageRow, presentMessage, type Message } from '../presenters/message.ts';
import type { Attachment } from '../uploads.ts';

export type SendAgentMessageInput = {
  businessId: string;
  conversationId: string;
  /** The agent's user id. */
  senderId: string;
  /** 1–10,000 characters (checked by the route). */
  content: string;
  /** Already resolved to this business's uploads (core/uploads.ts resolveAttachments). */
  attachments: Attachment[];
};

/** The statement's answer: the checks' outcomes, the reservation's, and the message's columns (messageRow) when stored. */
const outcomeRow = z.object({ found: z.boolean(), deliverable: z.boolean() }).catchall(z.unknown());

/**
 * 404 when the conversation is not the business's, 400 when its channel was deleted (nothing
 * could deliver the reply), 403 limit_exceeded/messages at the monthly limit; a refused send
 * leaves no message, no job and no count behind (nothing was written).
 */
export async function sendAgentMessage(q: Queryable, input: SendAgentMessageInput): Promise<{ message: Message; events: PendingEvent[] }> {
  const row = await q.one(sql.type(outcomeRow)`
    with conversation as (
      select c.id, c.channel_id from conversations c
      where c.id = ${input.conversationId} and c.business_id = ${input.businessId}
      for update
    ), deliverable as (
      select id, channel_id from conversation where channel_id is not null
    ), ${monthlyReservation(input.businessId, 'deliverable')},
    message as (
      insert into messages (business_id, conversation_id, sender_type, sender_id, content, attachments, delivery_status, channel_id)
      select ${input.businessId}, d.id, 'agent', ${input.senderId}, ${input.content}, ${sql.jsonb(input.attachments)}, 'queued', d.channel_id
      from deliverable d where exists (select 1 from reservation where reserved)
      returning id, conversation_id, sender_type, sender_id, content, attachments, delivery_status, external_id, error, created_at
    ), job as (
      select (${addJobExpression('deliver_message', { message_id: sql.fragment`m.id` })}).id from message m
    ), touched as (
      -- The message's own timestamp, so first_response_at equals the first reply's created_at.
      update conversations c set
        first_response_at = coalesce(c.first_response_at, m.created_at),
        last_message_at = m.created_at,
        status = case when c.status = 'pending' then 'open' else c.status end,
        updated_at = now()
      from message m where c.id = m.conversation_id
    )
    select exists (select 1 from conversation) as found, exists (select 1 from deliverable) as deliverable,
           ${reservationColumns},
           -- Reading job makes it run (a plain WITH query runs only when read; an update always runs).
           (select count(*) from job) as jobs, m.*
    from (select) as one left join reservation on true left join message m on true`);
  if (!row.found) throw notFound('Conversation not found');
  if (!row.deliverable) throw badRequest('The channel of this conversation was deleted, so a reply cannot be delivered');
  assertReserved(reservationRow.parse(row));
  const message = presentMessage(messageRow.parse(row));
  return {
    message,
    events: [messageCreatedEvent(input.businessId, message), conversationUpdated({ id: input.conversationId, business_id: input.businessId })],
  };
}
