/**
 * An agent's reply. One transaction: insert it queued, enqueue its delivery, touch the
 * conversation, count it against the month. The caller publishes the returned events after commit.
 *
 * Lock order (after team.ts's business → team_members → conversations): the conversation row,
 * then the month's message_counters row, both in the last statement, so they are held for one
 * round trip (the commit). Every reply of a business counts on that one counter row: taken
 * first, it serialized the business's replies behind whole transactions.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../db.ts';
import { badRequest, notFound } from '../errors.ts';
import { addJob } from '../jobs.ts';
import { assertReserved, monthlyReservation, reservationColumns, reservationRow } from '../plans.ts';
import { rooms, type ParleyEvent } from '../events.ts';
import type { Attachment } from '../uploads.ts';
import { conversationUpdated, updatedConversationColumns, updatedConversationRow } from './team.ts';

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

/**
 * 404 when the conversation is not the business's, 400 when its channel was deleted (nothing
 * could deliver the reply), 403 limit_exceeded/messages at the monthly limit; a refused send
 * leaves no message, no job and no count behind (the caller's transaction rolls back). Call it
 * last in the transaction (see the lock order above).
 */
export async function sendAgentMessage(tx: Queryable, input: SendAgentMessageInput): Promise<{ messageId: string; events: ParleyEvent[] }> {
  const conversation = await tx.maybeOne(sql.type(z.object({ channel_id: z.string().nullable() }))`
    select channel_id from conversations where id = ${input.conversationId} and business_id = ${input.businessId}`);
  if (!conversation) throw notFound('Conversation not found');
  if (!conversation.channel_id) throw badRequest('The channel of this conversation was deleted, so a reply cannot be delivered');

  const message = await tx.one(sql.type(z.object({ id: z.string(), created_at: z.string() }))`
    insert into messages (business_id, conversation_id, sender_type, sender_id, content, attachments, delivery_status, channel_id)
    values (${input.businessId}, ${input.conversationId}, 'agent', ${input.senderId}, ${input.content},
            ${sql.jsonb(input.attachments)}, 'queued', ${conversation.channel_id})
    returning id, created_at`);

  await addJob(tx, 'deliver_message', { message_id: message.id }, { jobKey: `message:${message.id}` });

  // Last, in one statement: the conversation touched (the message's own timestamp, so
  // first_response_at equals the first reply's created_at), then the limit check and the count.
  const touched = await tx.one(sql.type(updatedConversationRow.extend(reservationRow.shape))`
    with touched as (
      update conversations set
        first_response_at = coalesce(first_response_at, ${message.created_at}::timestamptz),
        last_message_at = ${message.created_at}::timestamptz,
        status = case when status = 'pending' then 'open' else status end,
        updated_at = now()
      where id = ${input.conversationId}
      returning ${updatedConversationColumns}
    ), ${monthlyReservation(input.businessId, 'touched')}
    select touched.*, ${reservationColumns} from touched, plan`);
  assertReserved(touched);

  return {
    messageId: message.id,
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
      conversationUpdated(touched),
    ],
  };
}
