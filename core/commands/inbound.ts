/**
 * Inbound customer traffic, in two steps:
 *  1. storeInboundEvents — in the webhook request (or a poll): each normalized event becomes an
 *     inbound_events row (unique per channel and platform message id, so a redelivery is dropped)
 *     and a `process_inbound` job, in one transaction, before the platform gets its 200.
 *  2. processInboundEvent — in the worker: upsert the customer, thread into a conversation,
 *     insert the message (unique per channel and external id), or move a delivery status forward.
 */
import { z } from 'zod';
import { sql, type Db, type Queryable } from '../db.ts';
import { enqueue } from '../jobs.ts';
import { conversationCreated, conversationUpdated, messageCreated, messageUpdated, type PendingEvent } from '../live-events.ts';
import { enqueueAiReply } from '../ai-agent.ts';
import type { DeliveryReceipt, InboundEvent, InboundMessage } from '../../connectors/types.ts';

export type InboundChannel = { id: string; business_id: string; type: string };

const dedupeKey = (event: InboundEvent) => (event.kind === 'message' ? event.externalId : `receipt:${event.externalId}:${event.status}`);

/** Stores events and enqueues their processing; returns the ids of events not seen before. */
export async function storeInboundEvents(tx: Queryable, channel: InboundChannel, events: InboundEvent[], rawBody: string | null): Promise<string[]> {
  const stored: string[] = [];
  for (const event of events) {
    const row = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
      insert into inbound_events (business_id, channel_id, kind, dedupe_key, event, raw_body)
      values (${channel.business_id}, ${channel.id}, ${event.kind}, ${dedupeKey(event)}, ${sql.jsonb(event as never)}, ${rawBody})
      on conflict (channel_id, dedupe_key) do nothing
      returning id`);
    if (!row) continue;
    await enqueue(tx, 'process_inbound', { event_id: row.id }, { channelId: channel.id, kind: event.kind });
    stored.push(row.id);
  }
  return stored;
}

const eventRow = z.object({
  id: z.string(),
  business_id: z.string(),
  channel_id: z.string(),
  channel_type: z.string(),
  event: z.record(z.string(), z.unknown()),
  processed_at: z.string().nullable(),
});

const idRow = z.object({ id: z.string() });

/** Processes one stored event; returns the live events to publish after commit. Safe to run twice. */
export async function processInboundEvent(db: Db, eventId: string): Promise<PendingEvent[]> {
  return db.transaction(async (tx) => {
    const row = await tx.maybeOne(sql.type(eventRow)`
      select e.id, e.business_id, e.channel_id, ch.type as channel_type, e.event, e.processed_at
      from inbound_events e join channels ch on ch.id = e.channel_id
      where e.id = ${eventId} for update of e`);
    if (!row || row.processed_at) return [];
    const event = row.event as unknown as InboundEvent;
    const channel = { id: row.channel_id, business_id: row.business_id, type: row.channel_type };
    const published = event.kind === 'message' ? await applyMessage(tx, channel, event) : await applyReceipt(tx, channel, event);
    await tx.query(sql.unsafe`update inbound_events set processed_at = now() where id = ${row.id}`);
    return published;
  });
}

const conversationRow = z.object({ id: z.string(), status: z.string() });

/** E-mail: the conversation holding a message this one replies to (nearest reference first). */
async function threadByReferences(tx: Queryable, channelId: string, references: string[]) {
  if (references.length === 0) return null;
  return tx.maybeOne(sql.type(conversationRow)`
    select c.id, c.status
    from messages m join conversations c on c.id = m.conversation_id
    where m.channel_id = ${channelId} and m.external_id = any(${sql.array(references, 'text')})
    order by array_position(${sql.array(references, 'text')}, m.external_id), m.created_at desc
    limit 1`);
}

/** Other channels: the customer's latest conversation on this channel. */
async function latestConversation(tx: Queryable, channelId: string, customerId: string) {
  return tx.maybeOne(sql.type(conversationRow)`
    select id, status from conversations
    where customer_id = ${customerId} and channel_id = ${channelId}
    order by updated_at desc, id desc limit 1`);
}

async function applyMessage(tx: Queryable, channel: InboundChannel, message: InboundMessage): Promise<PendingEvent[]> {
  // One customer's messages are threaded one at a time, so a burst cannot open two conversations.
  await tx.query(sql.unsafe`select pg_advisory_xact_lock(hashtext(${channel.id + ':' + message.from.platformUserId}))`);
  const duplicate = await tx.exists(sql.unsafe`select 1 from messages where channel_id = ${channel.id} and external_id = ${message.externalId}`);
  if (duplicate) return [];

  const customer = await tx.one(sql.type(idRow)`
    insert into customers (business_id, channel_id, platform_user_id, name, email, phone)
    values (${channel.business_id}, ${channel.id}, ${message.from.platformUserId}, ${message.from.name ?? ''},
            ${message.from.email ?? null}, ${message.from.phone ?? null})
    on conflict (channel_id, platform_user_id) where platform_user_id is not null do update set
      name = case when excluded.name <> '' then excluded.name else customers.name end,
      email = coalesce(excluded.email, customers.email),
      phone = coalesce(excluded.phone, customers.phone),
      updated_at = now()
    returning id`);

  const isEmail = channel.type === 'email';
  const existing = isEmail
    ? await threadByReferences(tx, channel.id, message.references ?? [])
    : await latestConversation(tx, channel.id, customer.id);
  const events: PendingEvent[] = [];
  let conversationId: string;
  if (existing && existing.status !== 'closed') {
    conversationId = existing.id;
    // A customer writing into a resolved conversation reopens it.
    await tx.query(sql.unsafe`
      update conversations set
        status = case when status = 'resolved' then 'open' else status end,
        resolved_at = case when status = 'resolved' then null else resolved_at end,
        resolved_by = case when status = 'resolved' then null else resolved_by end,
        last_message_at = now(), updated_at = now()
      where id = ${conversationId}`);
  } else {
    const created = await tx.one(sql.type(idRow)`
      insert into conversations (business_id, customer_id, channel_id, channel_type, status, subject, last_message_at)
      values (${channel.business_id}, ${customer.id}, ${channel.id}, ${channel.type}, 'open', ${message.subject ?? null}, now())
      returning id`);
    conversationId = created.id;
    events.push(conversationCreated(channel.business_id, conversationId));
  }

  const inserted = await tx.maybeOne(sql.type(idRow)`
    insert into messages (business_id, conversation_id, sender_type, content, attachments, channel_id, external_id)
    values (${channel.business_id}, ${conversationId}, 'customer', ${message.text}, ${sql.jsonb(message.attachments as never)},
            ${channel.id}, ${message.externalId})
    on conflict (channel_id, external_id) where external_id is not null do nothing
    returning id`);
  if (!inserted) return [];
  await enqueueAiReply(tx, { businessId: channel.business_id, conversationId, messageId: inserted.id });
  events.push(messageCreated(channel.business_id, inserted.id), conversationUpdated({ id: conversationId, business_id: channel.business_id }));
  return events;
}

const statusRank = sql.fragment`case delivery_status when 'queued' then 0 when 'sent' then 1 when 'delivered' then 2 when 'read' then 3 else 4 end`;
// `failed` ranks with `delivered`: it can follow queued or sent, but never undoes a delivery.
const newRank = { sent: 1, delivered: 2, read: 3, failed: 2 } as const;

/** Moves a sent message's delivery status forward only: queued → sent → delivered → read, or failed. */
async function applyReceipt(tx: Queryable, channel: InboundChannel, receipt: DeliveryReceipt): Promise<PendingEvent[]> {
  const updated = await tx.maybeOne(sql.type(z.object({ id: z.string(), conversation_id: z.string() }))`
    update messages set
      delivery_status = ${receipt.status},
      error = case when ${receipt.status} = 'failed' then ${receipt.error ?? 'Delivery failed'} else error end,
      updated_at = now()
    where channel_id = ${channel.id} and external_id = ${receipt.externalId} and ${statusRank} < ${newRank[receipt.status]}
    returning id, conversation_id`);
  if (!updated) return [];
  return [messageUpdated(channel.business_id, updated.id)];
}
