/**
 * Merging two conversations of one customer (the customer wrote twice, on the same or another
 * channel): the other conversation's messages move into this one, where the thread shows them
 * in time order with the rest, and the other is closed. A system note in each says what
 * happened. Replies still queued in the other go out through this one's delivery drain, in
 * order; its uploads and labels come along.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { badRequest, notFound } from '../errors.ts';
import { conversationUpdated, type PendingEvent } from '../events/live.ts';
import { sendMessage } from './messages.ts';

const mergeRow = z.object({ id: z.string(), customer_id: z.string().nullable() });

export async function mergeConversations(
  tx: Queryable,
  input: { businessId: string; conversationId: string; fromConversationId: string },
): Promise<{ moved: number; events: PendingEvent[] }> {
  if (input.conversationId === input.fromConversationId) throw badRequest('A conversation cannot be merged into itself');
  // Both rows locked, in id order: two merges the other way round wait instead of deadlocking.
  const rows = await tx.any(sql.type(mergeRow)`
    select c.id, c.customer_id from conversations c
    where c.business_id = ${input.businessId} and c.id = any(${sql.array([input.conversationId, input.fromConversationId], 'uuid')})
    order by c.id for update`);
  const target = rows.find((r) => r.id === input.conversationId);
  const source = rows.find((r) => r.id === input.fromConversationId);
  if (!target) throw notFound('Conversation not found');
  if (!source) throw notFound('The conversation to merge was not found');
  if (!target.customer_id || target.customer_id !== source.customer_id) throw badRequest('Only conversations of the same customer can be merged');

  const { n: moved } = await tx.one(sql.type(z.object({ n: z.number(), armed: z.coerce.number() }))`
    with moved as (
      update messages set conversation_id = ${target.id}, updated_at = now()
      where business_id = ${input.businessId} and conversation_id = ${source.id}
      returning id, delivery_status
    ), uploads_moved as (
      update uploads set conversation_id = ${target.id}
      where business_id = ${input.businessId} and conversation_id = ${source.id}
      returning id
    ), labels_copied as (
      insert into conversation_labels (business_id, conversation_id, label_id)
      select business_id, ${target.id}, label_id from conversation_labels
      where business_id = ${input.businessId} and conversation_id = ${source.id}
      on conflict do nothing
      returning label_id
    ), armed as (
      -- Replies the other conversation had queued go out through this one's drain, in order.
      select delivery_arm_drain(${target.id}::uuid) from (select 1 from moved where delivery_status = 'queued' limit 1) as any_queued
    )
    -- The updates and the insert run whether read or not; the arming runs because it is read.
    select (select count(*) from moved)::int as n, (select count(*) from armed) as armed`);

  await tx.query(sql.unsafe`
    update conversations t set
      last_message_at = greatest(t.last_message_at, s.last_message_at),
      first_response_at = least(coalesce(t.first_response_at, s.first_response_at), coalesce(s.first_response_at, t.first_response_at)),
      updated_at = now()
    from conversations s
    where t.id = ${target.id} and t.business_id = ${input.businessId} and s.id = ${source.id}`);
  await tx.query(sql.unsafe`
    update conversations set status = 'closed', closed_at = coalesce(closed_at, now()), updated_at = now()
    where id = ${source.id} and business_id = ${input.businessId}`);

  const intoNote = await sendMessage(tx, {
    businessId: input.businessId,
    conversationId: target.id,
    sender: { type: 'system' },
    content: `Another conversation of this customer was merged into this one (${moved} message${moved === 1 ? '' : 's'} moved).`,
    attachments: [],
  });
  const fromNote = await sendMessage(tx, {
    businessId: input.businessId,
    conversationId: source.id,
    sender: { type: 'system' },
    content: 'This conversation was merged into another conversation of this customer; its messages are there now.',
    attachments: [],
  });
  return {
    moved,
    events: [
      ...intoNote.events,
      ...fromNote.events,
      conversationUpdated({ id: target.id, business_id: input.businessId }),
      conversationUpdated({ id: source.id, business_id: input.businessId }),
    ],
  };
}
