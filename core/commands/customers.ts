/**
 * A business's customer records: edits, merges, erasure and retention
 * (docs/decisions.md#customer-records).
 *
 * - **Edits** (PATCH /customers/{id}) mark the record `edited_at`: from then on the platform's
 *   profile (inbound messages, the widget) only fills fields that are blank.
 * - **Merge** moves the other customer's conversations here and leaves that row as a bare
 *   identity (its channel and platform user id, nothing else) pointing at this customer, so the
 *   SQL function inbound_apply_message (migration 0094) files later messages from either identity
 *   here. Both rows are locked first, as every inbound message locks its customer's row: a merge
 *   and an inbound message of either customer happen one after the other, never interleaved.
 * - **Erasure** is requested (the record is emptied and hidden at once) and carried out by the
 *   erase_customer job: conversations, messages, files, mentions, stored inbound events, webhook
 *   deliveries that carried them, and the rows; an audit row with counts only.
 * - **Retention**: a daily job deletes resolved and closed conversations whose last message is
 *   older than the business's `retention_days`, with their files.
 */
import { domainEventColumns, domainEventRow } from '../events/domain.ts';
import { dispatchToWebhooks } from '../subscribers/webhooks.ts';
import { z } from 'zod';
import { sql, type Db, type Queryable } from '../adapters/postgres/db.ts';
import { storageDrivers, type StorageDriver } from '../adapters/storage.ts';
import { removeStoredFiles, type StorageSettings } from '../adapters/storage-for.ts';
import { badRequest, notFound, validationError } from '../errors.ts';
import { conversationUpdated, type PendingEvent } from '../events/live.ts';
import { liveEvent } from '../events/catalogue.ts';
import { visibleCustomer, type Customer } from '../presenters/customer.ts';
import { customerById } from '../reads/customers.ts';
import { recordAudit, type AuditActor } from '../domain/platform/audit.ts';
import { enqueue } from '../jobs.ts';
import { ATTRIBUTE_KEY_PATTERN, attributeIssues, loadAttributeDefinitions, MAX_ATTRIBUTE_TEXT } from '../domain/customer-attributes.ts';

/** Custom attributes per customer: at most this many keys … */
export const MAX_ATTRIBUTES = 50;
/** … of 1–50 characters: letters, digits, `_`, `-`, `.` (starting with a letter or digit) … */
export { ATTRIBUTE_KEY_PATTERN };
/** … with text values of at most 500 characters … */
export { MAX_ATTRIBUTE_TEXT };
/** … and at most 8 KiB of JSON altogether. */
export const MAX_ATTRIBUTES_BYTES = 8192;
/** Conversations a merge announces one by one (`conversation_updated`); more are announced by `customer_merged` alone. */
export const MERGE_EVENTS_MAX = 100;

export type AttributeValue = string | number | boolean;
export type CustomerChanges = {
  name?: string;
  email?: string | null;
  phone?: string | null;
  /** Merged into the stored attributes: a key set to null is removed. */
  attributes?: Record<string, AttributeValue | null>;
};

const lockedRow = z.object({ id: z.string(), number: z.coerce.number(), attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])) });

const attributesTooLarge = (attributes: Record<string, unknown>) =>
  Object.keys(attributes).length > MAX_ATTRIBUTES || Buffer.byteLength(JSON.stringify(attributes)) > MAX_ATTRIBUTES_BYTES;

/** PATCH /customers/{id}: 404 for no visible customer of the business; 422 when the attributes would pass their limits. */
export async function updateCustomer(
  tx: Queryable,
  input: { businessId: string; actor: AuditActor; number: number; changes: CustomerChanges },
): Promise<{ customer: Customer; events: PendingEvent[] }> {
  const row = await tx.maybeOne(sql.type(lockedRow)`
    select cu.id, cu.number, cu.attributes from customers cu
    where cu.business_id = ${input.businessId} and cu.number = ${input.number} and ${visibleCustomer}
    for update`);
  if (!row) throw notFound('Customer not found');
  const { changes } = input;
  const fields = (['name', 'email', 'phone'] as const).filter((f) => changes[f] !== undefined);
  const sets = fields.map((f) => sql.fragment`${sql.identifier([f])} = ${changes[f] ?? null}`);
  let attributeKeys: string[] = [];
  if (changes.attributes !== undefined) {
    // The business's definitions (when it has any): an unknown key or a wrong type is 422, nothing changed.
    const issues = attributeIssues(await loadAttributeDefinitions(tx, input.businessId), changes.attributes, ['body', 'attributes']);
    if (issues.length) throw validationError(issues);
    const merged: Record<string, AttributeValue> = { ...row.attributes };
    for (const [key, value] of Object.entries(changes.attributes)) {
      if (value === null) delete merged[key];
      else merged[key] = value;
    }
    if (attributesTooLarge(merged)) {
      throw validationError([
        {
          loc: ['body', 'attributes'],
          msg: `A customer has at most ${MAX_ATTRIBUTES} attributes and ${MAX_ATTRIBUTES_BYTES} bytes of them`,
          type: 'value_error',
        },
      ]);
    }
    attributeKeys = Object.keys(changes.attributes).sort();
    sets.push(sql.fragment`attributes = ${sql.jsonb(merged as never)}`);
  }
  if (sets.length === 0) return { customer: await customerById(tx, row.id), events: [] };
  await tx.query(sql.unsafe`update customers set ${sql.join(sets, sql.fragment`, `)}, edited_at = now(), updated_at = now() where id = ${row.id}`);
  // What changed, never the values (they are the customer's personal data).
  await recordAudit(tx, {
    businessId: input.businessId,
    actor: input.actor,
    action: 'customer.updated',
    targetType: 'customer',
    targetId: String(row.number),
    details: { fields: changes.attributes !== undefined ? [...fields, 'attributes'] : fields, attribute_keys: attributeKeys },
  });
  const customer = await customerById(tx, row.id);
  const at = new Date().toISOString();
  return { customer, events: [liveEvent('customer_updated', { business_id: input.businessId, customer_id: row.id, customer, at })] };
}

const mergeRow = z.object({
  id: z.string(),
  number: z.coerce.number(),
  name: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  external_id: z.string().nullable(),
  attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
});

/** The target's attributes, then the source's keys it lacks while within the limits. */
function mergedAttributes(target: Record<string, AttributeValue>, source: Record<string, AttributeValue>): Record<string, AttributeValue> {
  const merged = { ...target };
  for (const [key, value] of Object.entries(source)) {
    if (key in merged) continue;
    merged[key] = value;
    if (attributesTooLarge(merged)) {
      delete merged[key];
      break;
    }
  }
  return merged;
}

/**
 * POST /customers/{id}/merge: `fromNumber`'s conversations and identities become `number`'s, in
 * the caller's transaction. 400 for the same customer; 404 when either is not a visible
 * customer of the business. The kept record's blank name, e-mail, phone and platform id are
 * filled from the other's; attributes it lacks are added.
 */
export async function mergeCustomers(
  tx: Queryable,
  input: { businessId: string; actor: AuditActor; number: number; fromNumber: number },
): Promise<{ customer: Customer; moved: number; events: PendingEvent[] }> {
  if (input.number === input.fromNumber) throw badRequest('A customer cannot be merged into itself');
  // Both rows locked, in id order (two merges of the same pair the other way round wait instead of deadlocking).
  const rows = await tx.any(sql.type(mergeRow)`
    select cu.id, cu.number, cu.name, cu.email, cu.phone, cu.external_id, cu.attributes from customers cu
    where cu.business_id = ${input.businessId} and cu.number in (${input.number}, ${input.fromNumber}) and ${visibleCustomer}
    order by cu.id
    for update`);
  const target = rows.find((r) => r.number === input.number);
  const source = rows.find((r) => r.number === input.fromNumber);
  if (!target) throw notFound('Customer not found');
  if (!source) throw notFound('Customer to merge not found');

  // The notes on the other customer are the team's knowledge of the same person: they come along.
  await tx.query(sql.unsafe`update customer_notes set customer_id = ${target.id} where business_id = ${input.businessId} and customer_id = ${source.id}`);
  const moved = await tx.anyFirst(sql.type(z.object({ id: z.string() }))`
    update conversations set customer_id = ${target.id}
    where business_id = ${input.businessId} and customer_id = ${source.id}
    returning id`);
  // Identities merged into the source earlier now point here too: a chain stays one step long.
  await tx.query(sql.unsafe`
    update customers set merged_into = ${target.id}, updated_at = now()
    where business_id = ${input.businessId} and merged_into = ${source.id}`);
  // The source keeps only its identity (channel, platform user id), pointing here.
  await tx.query(sql.unsafe`
    update customers set merged_into = ${target.id}, name = '', email = null, phone = null, external_id = null,
      attributes = '{}'::jsonb, edited_at = null, updated_at = now()
    where id = ${source.id}`);
  await tx.query(sql.unsafe`
    update customers set
      name = ${target.name || source.name},
      email = ${target.email ?? source.email},
      phone = ${target.phone ?? source.phone},
      external_id = ${target.external_id ?? source.external_id},
      attributes = ${sql.jsonb(mergedAttributes(target.attributes, source.attributes) as never)},
      updated_at = now()
    where id = ${target.id}`);
  await recordAudit(tx, {
    businessId: input.businessId,
    actor: input.actor,
    action: 'customer.merged',
    targetType: 'customer',
    targetId: String(target.number),
    details: { from_customer_id: source.number, conversations_moved: moved.length },
  });
  const customer = await customerById(tx, target.id);
  const at = new Date().toISOString();
  const events: PendingEvent[] = [
    liveEvent('customer_merged', {
      business_id: input.businessId,
      customer_id: target.id,
      from_customer_id: source.id,
      customer,
      conversations_moved: moved.length,
      at,
    }),
    ...moved.slice(0, MERGE_EVENTS_MAX).map((id) => conversationUpdated({ id, business_id: input.businessId })),
  ];
  return { customer, moved: moved.length, events };
}

/**
 * DELETE /customers/{id}: empties and hides the record now and enqueues erase_customer, which
 * removes everything else. 404 when there is no such customer; a customer already being erased
 * answers the same again (nothing new is recorded).
 */
export async function requestCustomerErasure(
  tx: Queryable,
  input: { businessId: string; actor: AuditActor; number: number },
): Promise<{ customerId: string; events: PendingEvent[] }> {
  const row = await tx.maybeOne(sql.type(z.object({ id: z.string(), erasing: z.boolean() }))`
    select cu.id, cu.erasing_at is not null as erasing from customers cu
    where cu.business_id = ${input.businessId} and cu.number = ${input.number} and cu.merged_into is null
    for update`);
  if (!row) throw notFound('Customer not found');
  if (row.erasing) {
    await enqueue(tx, 'erase_customer', { business_id: input.businessId, customer_id: row.id });
    return { customerId: row.id, events: [] };
  }
  await tx.query(sql.unsafe`
    update customers set erasing_at = now(), name = '', email = null, phone = null, external_id = null, attributes = '{}'::jsonb, updated_at = now()
    where id = ${row.id}`);
  await enqueue(tx, 'erase_customer', { business_id: input.businessId, customer_id: row.id });
  await recordAudit(tx, {
    businessId: input.businessId,
    actor: input.actor,
    action: 'customer.erasure_requested',
    targetType: 'customer',
    targetId: String(input.number),
  });
  const at = new Date().toISOString();
  return { customerId: row.id, events: [liveEvent('customer_erased', { business_id: input.businessId, customer_id: row.id, at })] };
}

type StoredKey = { business_id: string; storage_key: string; driver: StorageDriver };
export type Removed = { conversations: number; messages: number; files: readonly StoredKey[] };

const storedKey = z.object({ business_id: z.string(), storage_key: z.string(), driver: z.enum(storageDrivers) });

/**
 * Deletes conversations of the business with everything that hangs on them: messages (and their
 * labels, by cascade), mentions, files (rows; the postgres driver's bytes with them, the disk
 * driver's by the caller after commit: `removeFiles`), and the stored inbound events of their
 * messages. In the caller's transaction.
 */
export async function deleteConversations(tx: Queryable, businessId: string, ids: readonly string[]): Promise<Removed> {
  if (ids.length === 0) return { conversations: 0, messages: 0, files: [] };
  const list = sql.array([...ids], 'uuid');
  const messages = await tx.oneFirst(sql.type(z.object({ n: z.number() }))`
    select count(*)::int as n from messages where business_id = ${businessId} and conversation_id = any(${list})`);
  // Files: those uploaded into the conversations, and any the messages link to (a customer's media).
  const files = await tx.any(sql.type(storedKey)`
    delete from uploads u
    where u.business_id = ${businessId}
      and (u.conversation_id = any(${list}) or u.storage_key in (
        select substring(a->>'url' from '/api/v1/uploads/([A-Za-z0-9_-]{43})$')
        from messages m cross join lateral jsonb_array_elements(m.attachments) a
        where m.business_id = ${businessId} and m.conversation_id = any(${list}) and jsonb_typeof(a) = 'object'))
    returning u.business_id, u.storage_key, u.driver`);
  await tx.query(sql.unsafe`
    delete from inbound_events e using messages m
    where m.business_id = ${businessId} and m.conversation_id = any(${list}) and m.external_id is not null and m.channel_id is not null
      and e.business_id = ${businessId} and e.channel_id = m.channel_id and e.dedupe_key = m.external_id`);
  await tx.query(sql.unsafe`delete from mentions where business_id = ${businessId} and conversation_id = any(${list})`);
  await tx.query(sql.unsafe`delete from conversations where business_id = ${businessId} and id = any(${list})`);
  return { conversations: ids.length, messages, files };
}

/** The bytes of deleted uploads, on disk or in S3, each where its row said (the postgres driver's went with their rows). After commit. */
export async function removeFiles(db: Queryable, storage: StorageSettings, files: readonly StoredKey[]): Promise<void> {
  await removeStoredFiles(db, storage, files);
}

const identityRow = z.object({
  id: z.string(),
  number: z.coerce.number(),
  channel_id: z.string().nullable(),
  platform_user_id: z.string().nullable(),
  erasing: z.boolean(),
});

export type Erased = { customer_id: number; conversations: number; messages: number; files: number };

/**
 * erase_customer: everything of a customer whose erasure was requested, in one transaction.
 * Null when there is nothing (left) to erase: safe to run twice.
 */
export async function eraseCustomer(db: Db, storage: StorageSettings, input: { businessId: string; customerId: string }): Promise<Erased | null> {
  const result = await db.transaction(async (tx) => {
    const rows = await tx.any(sql.type(identityRow)`
      select cu.id, cu.number, cu.channel_id, cu.platform_user_id, cu.erasing_at is not null as erasing from customers cu
      where cu.business_id = ${input.businessId} and (cu.id = ${input.customerId} or cu.merged_into = ${input.customerId})
      order by cu.id
      for update`);
    const customer = rows.find((r) => r.id === input.customerId);
    if (!customer?.erasing) return null;
    const ids = rows.map((r) => r.id);
    const conversationIds = await tx.anyFirst(sql.type(z.object({ id: z.string() }))`
      select id from conversations where business_id = ${input.businessId} and customer_id = any(${sql.array(ids, 'uuid')})`);
    // Webhook deliveries that carried the customer or their conversations (bodies hold the presented objects).
    const needles = [input.customerId, ...ids, ...conversationIds];
    // Domain events that name the customer or their conversations go too. Those no subscriber has
    // seen yet reach the webhooks first (customer.erased above all: its body is the uuid alone);
    // what else would follow them (assignment, SLA…) is about what is erased now.
    const mentioned = sql.fragment`e.business_id = ${input.businessId} and (e.conversation_id = any(${sql.array(conversationIds, 'uuid')})
      or exists (select 1 from unnest(${sql.array(needles, 'text')}) n where strpos(e.data::text, n) > 0))`;
    const unseen = await tx.any(sql.type(domainEventRow)`
      update domain_events e set handled_at = now() where ${mentioned} and e.handled_at is null returning ${domainEventColumns}`);
    await dispatchToWebhooks(
      tx,
      unseen.filter((e) => e.type === 'customer.erased'),
    );
    await tx.query(sql.unsafe`delete from domain_events e where ${mentioned}`);
    await tx.query(sql.unsafe`
      delete from webhook_deliveries d
      where d.business_id = ${input.businessId} and exists (select 1 from unnest(${sql.array(needles, 'text')}) n where strpos(d.body, n) > 0)`);
    const removed = await deleteConversations(tx, input.businessId, conversationIds);
    // Inbound events from the customer's identities not tied to a message any more (failed, or dropped).
    for (const identity of rows) {
      if (!identity.channel_id || !identity.platform_user_id) continue;
      await tx.query(sql.unsafe`
        delete from inbound_events
        where business_id = ${input.businessId} and channel_id = ${identity.channel_id}
          and event->'from'->>'platformUserId' = ${identity.platform_user_id}`);
      // A webhook body that carried several customers' events stays with the others' events, without the body.
      await tx.query(sql.unsafe`
        update inbound_events set raw_body = null
        where business_id = ${input.businessId} and channel_id = ${identity.channel_id} and strpos(raw_body, ${identity.platform_user_id}) > 0`);
    }
    // A website visitor's rate windows are keyed by their customer id (core/commands/visitors.ts).
    await tx.query(sql.unsafe`
      delete from rate_windows where key in (select k || id from unnest(${sql.array(ids, 'text')}) as id, unnest(array['message:', 'upload:']) as k)`);
    // The customer and the identities merged into it (cascade).
    await tx.query(sql.unsafe`delete from customers where id = ${input.customerId}`);
    const erased: Erased = { customer_id: customer.number, conversations: removed.conversations, messages: removed.messages, files: removed.files.length };
    await recordAudit(tx, {
      businessId: input.businessId,
      actor: { type: 'system', name: 'Erasure' },
      action: 'customer.erased',
      targetType: 'customer',
      targetId: String(customer.number),
      details: erased,
    });
    return { erased, files: removed.files };
  });
  if (!result) return null;
  await removeFiles(db, storage, result.files);
  return result.erased;
}

// ---------------------------------------------------------------- retention

export const MAX_RETENTION_DAYS = 36500;

export async function loadRetention(q: Queryable, businessId: string): Promise<{ days: number | null }> {
  const days = await q.oneFirst(sql.type(z.object({ retention_days: z.number().nullable() }))`select retention_days from businesses where id = ${businessId}`);
  return { days };
}

/** PATCH /settings/retention: `days` (null: keep everything). */
export async function updateRetention(tx: Queryable, input: { businessId: string; actor: AuditActor; days: number | null }): Promise<{ days: number | null }> {
  await tx.query(sql.unsafe`update businesses set retention_days = ${input.days}, updated_at = now() where id = ${input.businessId}`);
  await recordAudit(tx, {
    businessId: input.businessId,
    actor: input.actor,
    action: 'retention.updated',
    targetType: 'business',
    targetId: input.businessId,
    details: { days: input.days },
  });
  return { days: input.days };
}

/**
 * One batch of one business's expired conversations (resolved or closed, last message older
 * than its retention): deleted with their files; an audit row counts them. Returns how many.
 */
async function expireBatch(db: Db, storage: StorageSettings, businessId: string, batch: number): Promise<number> {
  const result = await db.transaction(async (tx) => {
    const days = (await loadRetention(tx, businessId)).days;
    if (days === null) return null;
    const ids = await tx.anyFirst(sql.type(z.object({ id: z.string() }))`
      select id from conversations
      where business_id = ${businessId} and status in ('resolved', 'closed')
        and coalesce(last_message_at, created_at) < now() - make_interval(days => ${days})
      order by coalesce(last_message_at, created_at), id
      limit ${batch}
      for update skip locked`);
    if (ids.length === 0) return null;
    const removed = await deleteConversations(tx, businessId, ids);
    await recordAudit(tx, {
      businessId,
      actor: { type: 'system', name: 'Retention' },
      action: 'conversations.expired',
      targetType: 'business',
      targetId: businessId,
      details: { days, conversations: removed.conversations, messages: removed.messages, files: removed.files.length },
    });
    return removed;
  });
  if (!result) return 0;
  await removeFiles(db, storage, result.files);
  return result.conversations;
}

/** apply_retention (daily): every business with a retention period, batch by batch. Returns the conversations deleted. */
export async function applyRetention(db: Db, storage: StorageSettings, batch = 200): Promise<number> {
  const businesses = await db.anyFirst(sql.type(z.object({ id: z.string() }))`select id from businesses where retention_days is not null order by id`);
  let total = 0;
  for (const businessId of businesses) {
    for (let n = await expireBatch(db, storage, businessId, batch); n > 0; n = await expireBatch(db, storage, businessId, batch)) total += n;
  }
  return total;
}
