/**
 * Inbound customer traffic, in two steps:
 *  1. storeInboundEvents — in the webhook request (or a poll): the normalized events become
 *     inbound_events rows (unique per channel and platform message id, so a redelivery is
 *     dropped) and arm the channel's drain job, in one transaction, before the platform gets its 200.
 *  2. the drain (inbound-drain.ts) or processInboundEvent — in the worker: upsert the customer,
 *     thread into a conversation, insert the message (unique per channel and external id), or
 *     move a delivery status forward.
 */
import { z } from 'zod';
import { prepared, sql, type Db, type Queryable } from '../adapters/postgres/db.ts';
import { conversationCreated, conversationUpdated, messageCreated, messageUpdated, type PendingEvent } from '../events/live.ts';
import { impliedBy, recordEvents } from '../events/domain.ts';
import { storableText } from '../domain/storable-text.ts';
import { enqueueCustomerNames } from './customer-names.ts';
import { enqueueAttachmentFetches, storableAttachments } from './attachments.ts';
import { connectorFor } from '../../connectors/index.ts';
import type { DeliveryReceipt, InboundEvent, InboundMessage } from '../../connectors/types.ts';

export type InboundChannel = { id: string; business_id: string; type: string };

const idRow = z.object({ id: z.string() });

const dedupeKey = (event: InboundEvent) => (event.kind === 'message' ? event.externalId : `receipt:${event.externalId}:${event.status}`);

/**
 * Advisory lock namespaces (the two-key form, apart from the one-key locks elsewhere), keyed by
 * hashtext(channel id). STORE (also written in inbound_arm_drain, migrations 0021 and 0085): shared by
 * every transaction storing a channel's events, taken before it arms the drain; the drain
 * takes it exclusively for its last look, so it waits for every event being stored and sees
 * it. DRAIN: one drain of a channel at a time. The drain's job key is `inbound:<channel id>`.
 */
export const inboundLocks = { store: 20_201, drain: 20_202 } as const;

/**
 * Stores events and arms the channel's drain, in one statement (atomic on its own, or part of
 * the caller's transaction); returns the ids of events not seen before. A channel deleted or
 * deactivated meanwhile stores nothing (webhooks may have found it in a cache).
 *
 * Arming (the SQL function inbound_arm_drain, migrations 0021 and 0085, when something new was stored)
 * takes the shared STORE lock until commit (see inboundLocks), then leaves a drain job that has
 * not started yet as it is, or else enqueues one (beside a running drain, whose key
 * graphile-worker then clears).
 */
/** Made once: a schema built per call costs zod's set-up and compilation on every webhook. */
const storedRow = z.object({ id: z.string(), armed: z.number() });

export async function storeInboundEvents(q: Queryable, channel: InboundChannel, events: InboundEvent[], rawBody: string | null): Promise<string[]> {
  if (events.length === 0) return [];
  const items = storableText(events.map((event) => ({ kind: event.kind, key: dedupeKey(event), event })));
  rawBody = rawBody === null ? null : storableText(rawBody);
  const rows = await q.any(
    prepared(sql.type(storedRow)`
    with stored as (
      insert into inbound_events (business_id, channel_id, kind, dedupe_key, event, raw_body)
      select ch.business_id, ch.id, e.item->>'kind', e.item->>'key', e.item->'event', ${rawBody}
      from channels ch, jsonb_array_elements(${sql.jsonb(items as never)}) with ordinality as e(item, n)
      where ch.id = ${channel.id} and ch.is_active
      -- seq follows the events' order in the webhook
      order by e.n
      on conflict (channel_id, dedupe_key, business_id) do nothing
      returning id
    ), armed as (
      select inbound_arm_drain(${channel.id}) from (select 1 from stored limit 1) as any_stored
    )
    select stored.id, (select count(*) from armed) as armed from stored`),
  );
  return rows.map((r) => r.id);
}

const eventRow = z.object({
  id: z.string(),
  business_id: z.string(),
  channel_id: z.string(),
  channel_type: z.string(),
  event: z.record(z.string(), z.unknown()),
  processed_at: z.string().nullable(),
});

/**
 * Processes one stored event; returns the live events to publish after commit. Safe to run twice.
 *
 * The channel's drain may be applying the same event meanwhile: it takes the sender's lock
 * (inbound_apply_message: an advisory lock on channel and sender) and only then, marking its
 * batch done, the event's row. So this takes them in that order too. Locking the row first
 * deadlocked with such a drain (a visitor's burst of messages: a 500 once PostgreSQL broke the
 * cycle), where now it waits for the drain, then finds the event processed.
 */
export async function processInboundEvent(db: Db, eventId: string): Promise<PendingEvent[]> {
  return db.transaction(async (tx) => {
    await tx.query(
      prepared(sql.unsafe`
      select pg_advisory_xact_lock(hashtext(channel_id::text || ':' || (event->'from'->>'platformUserId')))
      from inbound_events where id = ${eventId} and event->'from'->>'platformUserId' is not null`),
    );
    const row = await tx.maybeOne(
      prepared(sql.type(eventRow)`
      select e.id, e.business_id, e.channel_id, ch.type as channel_type, e.event, e.processed_at
      from inbound_events e join channels ch on ch.id = e.channel_id
      where e.id = ${eventId} for update of e`),
    );
    if (!row || row.processed_at) return [];
    const channel = { id: row.channel_id, business_id: row.business_id, type: row.channel_type };
    const published = await applyInboundEvent(tx, channel, row.event as unknown as InboundEvent);
    await tx.query(prepared(sql.unsafe`update inbound_events set processed_at = now() where id = ${row.id}`));
    await recordEvents(tx, impliedBy(published, { type: 'customer' }));
    return published;
  });
}

/** Applies one event in the caller's transaction; returns the live events to publish after commit. */
export async function applyInboundEvent(tx: Queryable, channel: InboundChannel, event: InboundEvent): Promise<PendingEvent[]> {
  return event.kind === 'message' ? applyMessages(tx, channel, [event]) : applyReceipt(tx, channel, event);
}

/** What the SQL functions read from a stored InboundMessage. */
const storedMessage = z.object({
  externalId: z.string().min(1),
  from: z.object({ platformUserId: z.string().min(1), name: z.string().optional(), email: z.string().optional(), phone: z.string().optional() }),
  text: z.string(),
  attachments: z.array(z.unknown()),
  subject: z.string().optional(),
  references: z.array(z.string()).optional(),
});

const appliedRow = z.object({ idx: z.number(), applied_message_id: z.string(), applied_conversation_id: z.string(), opened_conversation: z.boolean() });

/**
 * Customer messages into the inbox, in order, in one round trip: each customer upserted,
 * threaded into a conversation (a threaded connector's, e-mail's, by References; others the
 * customer's latest on the channel; resolved reopens, closed starts a new one), each message
 * stored once per channel and external id. The rules live in the SQL functions
 * inbound_apply_message and inbound_apply_messages (migrations 0020 and 0023, threading as of
 * 0056): seven statements per message became one call per batch.
 */
export async function applyMessages(tx: Queryable, channel: InboundChannel, messages: InboundMessage[]): Promise<PendingEvent[]> {
  if (messages.length === 0) return [];
  // Stored events come from our connectors, but a message without a sender or id must fail here,
  // not become a customer with no platform id in SQL.
  for (const message of messages) storedMessage.parse(message);
  // A threaded connector's messages thread by their references (none: a new conversation);
  // the SQL threads a message by References exactly when it carries them.
  const threaded = connectorFor(channel.type).threaded === true;
  // Attachments the channel can download are stored `pending` (fetch_attachment fills them in); an e-mail part's bytes stay in the event.
  // The e-mail parts go in storeEmailParts' own statement, not through the SQL functions.
  const applicable = messages.map(({ email: _email, ...message }) => ({
    ...storableAttachments(channel.type, message),
    references: threaded ? (message.references ?? []) : undefined,
  }));
  const applied = await tx.any(
    prepared(sql.type(appliedRow)`
    select * from inbound_apply_messages(${channel.business_id}, ${channel.id}, ${channel.type}, ${sql.jsonb(applicable as never)})`),
  );
  await storeEmailParts(tx, messages, applied);
  const events: PendingEvent[] = [];
  for (const row of applied) {
    const { applied_message_id: messageId, applied_conversation_id: conversationId } = row;
    events.push(...messageEvents(channel, messageId, conversationId, row.opened_conversation));
  }
  await enqueueCustomerNames(
    tx,
    channel,
    applied.filter((row) => row.opened_conversation).map((row) => row.applied_conversation_id),
  );
  if (messages.some((message) => message.attachments.length > 0))
    await enqueueAttachmentFetches(
      tx,
      applied.map((row) => row.applied_message_id),
    );
  return events;
}

/**
 * A customer mail's recipients and sanitized HTML (connectors/email/parse.ts) onto the messages
 * just stored: one statement per batch, only when a message has them.
 */
async function storeEmailParts(tx: Queryable, messages: InboundMessage[], applied: readonly z.infer<typeof appliedRow>[]): Promise<void> {
  const parts = applied.flatMap((row) => {
    const email = messages[row.idx]?.email;
    if (!email) return [];
    const { html, ...rest } = email;
    return [{ id: row.applied_message_id, html: html ?? null, email: { to: rest.to ?? [], cc: rest.cc ?? [], remote_images: rest.remote_images ?? 0 } }];
  });
  if (parts.length === 0) return;
  await tx.query(sql.unsafe`
    update messages m set html = x.html, email = x.email
    from jsonb_to_recordset(${sql.jsonb(parts as never)}) as x(id uuid, html text, email jsonb)
    where m.id = x.id`);
}

function messageEvents(channel: InboundChannel, messageId: string, conversationId: string, opened: boolean): PendingEvent[] {
  return [
    ...(opened ? [conversationCreated(channel.business_id, conversationId)] : []),
    messageCreated(channel.business_id, messageId, conversationId),
    conversationUpdated({ id: conversationId, business_id: channel.business_id }),
  ];
}

const statusRank = sql.fragment`case delivery_status when 'queued' then 0 when 'sent' then 1 when 'delivered' then 2 when 'read' then 3 else 4 end`;
// `failed` ranks with `delivered`: it can follow queued or sent, but never undoes a delivery.
const newRank = { sent: 1, delivered: 2, read: 3, failed: 2 } as const;

/** Moves a sent message's delivery status forward only: queued → sent → delivered → read, or failed. */
async function applyReceipt(tx: Queryable, channel: InboundChannel, receipt: DeliveryReceipt): Promise<PendingEvent[]> {
  const updated = await tx.maybeOne(
    prepared(sql.type(idRow)`
    update messages set
      delivery_status = ${receipt.status},
      error = case when ${receipt.status} = 'failed' then ${receipt.error ?? 'Delivery failed'} else error end,
      updated_at = now()
    where channel_id = ${channel.id} and external_id = ${receipt.externalId} and ${statusRank} < ${newRank[receipt.status]}
    returning id`),
  );
  if (!updated) return [];
  return [messageUpdated(channel.business_id, updated.id)];
}
