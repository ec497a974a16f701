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
import { rooms, type ParleyEvent } from '../events.ts';
import type { Attachment } from '../uploads.ts';
import { conversationUpdated } from './team.ts';

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

/** The stored message, as the messages table holds it (the API's presenter shapes it). */
export const sentMessageRow = z.object({
  id: z.string(),
  conversation_id: z.string(),
  sender_type: z.string(),
  sender_id: z.string().nullable(),
  content: z.string(),
  attachments: z.array(z.record(z.string(), z.unknown())),
  delivery_status: z.string().nullable(),
  external_id: z.string().nullable(),
  error: z.string().nullable(),
  created_at: z.string(),
});

/** The statement's answer: the checks' outcomes, the touched conversation, and the message's columns (sentMessageRow) when stored. */
const outcomeRow = z
  .object({
    found: z.boolean(),
    deliverable: z.boolean(),
    conversation_status: z.string().nullable(),
    conversation_assignee_id: z.string().nullable(),
    conversation_assigned_at: z.string().nullable(),
    conversation_updated_at: z.string().nullable(),
  })
  .catchall(z.unknown());

/**
 * 404 when the conversation is not the business's, 400 when its channel was deleted (nothing
 * could deliver the reply), 403 limit_exceeded/messages at the monthly limit; a refused send
 * leaves no message, no job and no count behind (nothing was written).
 */
export async function sendAgentMessage(q: Queryable, input: SendAgentMessageInput): Promise<{ message: z.infer<typeof sentMessageRow>; events: ParleyEvent[] }> {
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
      select (graphile_worker.add_job('deliver_message', json_build_object('message_id', m.id), job_key => 'message:' || m.id)).id
      from message m
    ), touched as (
      -- The message's own timestamp, so first_response_at equals the first reply's created_at.
      update conversations c set
        first_response_at = coalesce(c.first_response_at, m.created_at),
        last_message_at = m.created_at,
        status = case when c.status = 'pending' then 'open' else c.status end,
        updated_at = now()
      from message m where c.id = m.conversation_id
      returning c.status, c.assignee_id, c.assigned_at, c.updated_at
    )
    select exists (select 1 from conversation) as found, exists (select 1 from deliverable) as deliverable,
           ${reservationColumns},
           t.status as conversation_status, t.assignee_id as conversation_assignee_id,
           t.assigned_at as conversation_assigned_at, t.updated_at as conversation_updated_at,
           -- Reading job makes it run (a plain WITH query runs only when read).
           (select count(*) from job) as jobs, m.*
    from (select) as one left join reservation on true left join message m on true left join touched t on true`);
  if (!row.found) throw notFound('Conversation not found');
  if (!row.deliverable) throw badRequest('The channel of this conversation was deleted, so a reply cannot be delivered');
  assertReserved(reservationRow.parse(row));
  const message = sentMessageRow.parse(row);
  return {
    message,
    events: [
      {
        name: 'message_created',
        rooms: [rooms.business(input.businessId), rooms.conversation(input.conversationId)],
        payload: {
          message_id: message.id,
          conversation_id: input.conversationId,
          business_id: input.businessId,
          sender_type: 'agent',
          at: message.created_at,
        },
      },
      conversationUpdated({
        id: input.conversationId,
        business_id: input.businessId,
        status: row.conversation_status!,
        assignee_id: row.conversation_assignee_id,
        assigned_at: row.conversation_assigned_at,
        updated_at: row.conversation_updated_at!,
      }),
    ],
  };
}
