/**
 * Webhooks out: the business's endpoints receive its events, signed (docs/decisions.md#webhooks-out).
 *
 * Nothing is lost: the transaction that makes an event records it as a domain event, and the
 * webhooks subscriber (core/subscribers/webhooks.ts) turns it into a `dispatch_webhooks` job
 * when the business has an active endpoint for its type (the event's id is the delivery's). That job makes one delivery row and one
 * `deliver_webhook` job per subscribed endpoint, in one transaction; a retried dispatch makes
 * none twice (unique (webhook, event)). A delivery is sent with the same body on every attempt
 * (its `id` lets receivers deduplicate), retried with graphile-worker's exponential backoff on
 * network errors, timeouts, 408, 429 and 5xx for about three days, and marked delivered once.
 *
 * URLs are checked against internal addresses like channel hosts (core/adapters/host-safety.ts),
 * at creation and again before every attempt, and the request goes to the address checked.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { checkHost, HostRefusedError, type HostRules } from '../../lib/host-safety.ts';
import { decryptJson, encryptJson } from '../crypto.ts';
import { badRequest, notFound } from '../errors.ts';
import { enqueue, WEBHOOK_MAX_ATTEMPTS, webhookEventRef } from '../jobs.ts';
import type { Deps } from '../deps.ts';
import { conversationListItems } from '../reads/conversations.ts';
import { customersByIds } from '../reads/customers.ts';
import { messagesByIds } from '../reads/messages.ts';
import { recordAudit, type AuditActor } from '../domain/platform/audit.ts';

/** The event types an endpoint may subscribe to (the live events of the inbox, dotted). */
export const webhookEventTypes = [
  'conversation.created',
  'conversation.updated',
  'conversation.assigned',
  'message.created',
  'message.updated',
  'handoff.requested',
  'customer.updated',
  'customer.merged',
  'customer.erased',
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];
/** Sent by "send test event" only; no endpoint subscribes to it. */
export const TEST_EVENT_TYPE = 'webhook.test';

export { WEBHOOK_MAX_ATTEMPTS };
/** How long one attempt waits for the receiver's answer. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Endpoints per business. */
export const MAX_WEBHOOKS = 20;
/** The signature's timestamp tolerance receivers should apply (documented; Stripe's). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

// ---------------------------------------------------------------- signing

export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64url')}`;

/** `Parley-Signature`: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. */
export function signatureHeader(secret: string, body: string, timestamp: number): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
  return `t=${timestamp},v1=${mac}`;
}

// ---------------------------------------------------------------- endpoints

export const webhookRow = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  active: z.boolean(),
  disabled_reason: z.string().nullable(),
  last_success_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type WebhookRow = z.infer<typeof webhookRow>;
export const webhookColumns = sql.fragment`w.id, w.url, w.events, w.active, w.disabled_reason, w.last_success_at, w.created_at, w.updated_at`;

/** A URL Parley may post to: http(s), no credentials in it, a host that is not internal (unless ALLOW_PRIVATE_HOSTS). */
export async function checkWebhookUrl(text: string, rules: HostRules): Promise<string> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw badRequest('The webhook URL is not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw badRequest('The webhook URL must start with https:// or http://');
  if (url.username || url.password) throw badRequest('The webhook URL cannot carry a user name or password');
  try {
    await checkHost(url.hostname, rules, 'webhook URLs');
  } catch (error) {
    if (!(error instanceof HostRefusedError)) throw error;
    throw badRequest(`Webhook URL refused: ${error.message}`);
  }
  return url.toString();
}

const rulesOf = (deps: Pick<Deps, 'config'>): HostRules => ({ allowPrivate: deps.config.ALLOW_PRIVATE_HOSTS });

export type WebhookFields = { url: string; events: WebhookEventType[]; active: boolean };

export async function createWebhook(
  tx: Queryable,
  deps: Pick<Deps, 'config'>,
  input: { businessId: string; actor: AuditActor; fields: WebhookFields },
): Promise<{ webhook: WebhookRow; secret: string }> {
  const url = await checkWebhookUrl(input.fields.url, rulesOf(deps));
  // Counted under the business's row lock: two creates at once cannot both pass the limit.
  await tx.query(sql.unsafe`select 1 from businesses where id = ${input.businessId} for update`);
  const count = await tx.oneFirst(
    sql.type(z.object({ n: z.number() }))`select count(*)::int as n from webhook_endpoints where business_id = ${input.businessId}`,
  );
  if (count >= MAX_WEBHOOKS) throw badRequest(`A business can have at most ${MAX_WEBHOOKS} webhook endpoints`);
  const secret = newWebhookSecret();
  const webhook = await tx.one(sql.type(webhookRow)`
    insert into webhook_endpoints as w (business_id, url, events, active, secret_encrypted)
    values (${input.businessId}, ${url}, ${sql.array([...new Set(input.fields.events)], 'text')}, ${input.fields.active},
      ${encryptJson(deps.config.encryptionKey, { secret })})
    returning ${webhookColumns}`);
  await recordAudit(tx, {
    businessId: input.businessId,
    actor: input.actor,
    action: 'webhook.created',
    targetType: 'webhook',
    targetId: webhook.id,
    details: { url: webhook.url, events: webhook.events, active: webhook.active },
  });
  return { webhook, secret };
}

/** Changes the fields given; turning an endpoint back on clears why it was disabled. */
export async function updateWebhook(
  tx: Queryable,
  deps: Pick<Deps, 'config'>,
  input: { businessId: string; webhookId: string; actor: AuditActor; changes: Partial<WebhookFields> },
): Promise<{ webhook: WebhookRow }> {
  const { changes } = input;
  const url = changes.url === undefined ? null : await checkWebhookUrl(changes.url, rulesOf(deps));
  const events = changes.events === undefined ? null : [...new Set(changes.events)];
  const webhook = await tx.maybeOne(sql.type(webhookRow)`
    update webhook_endpoints as w set
      url = coalesce(${url}, w.url),
      events = coalesce(${events ? sql.array(events, 'text') : null}, w.events),
      active = coalesce(${changes.active ?? null}, w.active),
      disabled_reason = case when ${changes.active ?? null}::boolean then null else w.disabled_reason end,
      updated_at = now()
    where w.business_id = ${input.businessId} and w.id = ${input.webhookId}
    returning ${webhookColumns}`);
  if (!webhook) throw notFound('Webhook not found');
  await recordAudit(tx, {
    businessId: input.businessId,
    actor: input.actor,
    action: 'webhook.updated',
    targetType: 'webhook',
    targetId: webhook.id,
    details: {
      changed: Object.keys(changes).filter((k) => changes[k as keyof WebhookFields] !== undefined),
      url: webhook.url,
      events: webhook.events,
      active: webhook.active,
    },
  });
  return { webhook };
}

/** Deletes the endpoint and its delivery log; its pending deliveries are never sent. */
export async function deleteWebhook(tx: Queryable, input: { businessId: string; webhookId: string; actor: AuditActor }): Promise<{ deleted: true }> {
  const gone = await tx.maybeOne(sql.type(z.object({ id: z.string(), url: z.string() }))`
    delete from webhook_endpoints where business_id = ${input.businessId} and id = ${input.webhookId} returning id, url`);
  if (!gone) throw notFound('Webhook not found');
  await recordAudit(tx, {
    businessId: input.businessId,
    actor: input.actor,
    action: 'webhook.deleted',
    targetType: 'webhook',
    targetId: gone.id,
    details: { url: gone.url },
  });
  return { deleted: true };
}

// ---------------------------------------------------------------- dispatch jobs → deliveries

type WebhookEventRef = z.infer<typeof webhookEventRef>;

const endpointRow = z.object({ id: z.string(), events: z.array(z.string()) });

/** The body of one delivery: `{id, type, created_at, data}` (data: the REST object). */
const deliveryBody = (ref: { id: string; type: string; at: string }, data: unknown) => JSON.stringify({ id: ref.id, type: ref.type, created_at: ref.at, data });

/** dispatch_webhooks: one delivery and one job per (event, subscribed endpoint), in one transaction. */
export async function dispatchWebhookEvents(deps: Pick<Deps, 'db'>, payload: { business_id: string; events: WebhookEventRef[] }): Promise<number> {
  const businessId = payload.business_id;
  const messageIds = payload.events.flatMap((e) => (e.message_id ? [e.message_id] : []));
  const conversationIds = payload.events.flatMap((e) => (e.conversation_id ? [e.conversation_id] : []));
  // Read as REST would show them now (the same reads as live events); an object deleted since is skipped.
  const customerIds = payload.events.flatMap((e) => (e.customer_id && e.type !== 'customer.erased' ? [e.customer_id] : []));
  const [messages, conversations, customers] = await Promise.all([
    messagesByIds(deps.db, businessId, messageIds),
    conversationListItems(deps.db, businessId, conversationIds),
    customersByIds(deps.db, customerIds),
  ]);
  return deps.db.transaction(async (tx) => {
    const endpoints = await tx.any(
      sql.type(endpointRow)`select id, events from webhook_endpoints where business_id = ${businessId} and active order by created_at, id`,
    );
    let made = 0;
    for (const ref of payload.events) {
      // An erased customer has nothing left to show but its uuid.
      const data = ref.message_id
        ? messages.get(ref.message_id)
        : ref.conversation_id
          ? conversations.get(ref.conversation_id)
          : ref.customer_id
            ? ref.type === 'customer.erased'
              ? { uuid: ref.customer_id }
              : customers.get(ref.customer_id)
            : undefined;
      if (!data) continue;
      for (const endpoint of endpoints) {
        if (!endpoint.events.includes(ref.type)) continue;
        if (await addDelivery(tx, businessId, endpoint.id, ref, deliveryBody(ref, data))) made += 1;
      }
    }
    return made;
  });
}

/** A delivery row and its job; null when this event was already dispatched to the endpoint. */
async function addDelivery(tx: Queryable, businessId: string, webhookId: string, ref: { id: string; type: string }, body: string): Promise<string | null> {
  const id = await tx.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
    insert into webhook_deliveries (business_id, webhook_id, event_id, event_type, body)
    values (${businessId}, ${webhookId}, ${ref.id}, ${ref.type}, ${body})
    on conflict (business_id, webhook_id, event_id) where redelivery_of is null do nothing
    returning id`);
  if (id) await enqueue(tx, 'deliver_webhook', { business_id: businessId, delivery_id: id }, { webhookId });
  return id;
}

/** "Send test event": a `webhook.test` delivery to this endpoint (active or not). */
export async function sendTestEvent(tx: Queryable, input: { businessId: string; webhookId: string }): Promise<{ deliveryId: string }> {
  const endpoint = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
    select id from webhook_endpoints where business_id = ${input.businessId} and id = ${input.webhookId}`);
  if (!endpoint) throw notFound('Webhook not found');
  const ref = { id: randomUUID(), type: TEST_EVENT_TYPE, at: new Date().toISOString() };
  const deliveryId = await addDelivery(
    tx,
    input.businessId,
    endpoint.id,
    ref,
    deliveryBody(ref, { webhook_id: endpoint.id, message: 'This is a test event from Parley.' }),
  );
  return { deliveryId: deliveryId! };
}

/**
 * POST …/deliveries/{id}/redeliver: a new delivery of the same event to the same endpoint (same
 * event id and body, a fresh attempt count and its own job), sent even when the endpoint is
 * disabled, like a test event: the person asking is checking their receiver. 404 for no such
 * delivery of the endpoint.
 */
export async function redeliverWebhook(tx: Queryable, input: { businessId: string; webhookId: string; deliveryId: string }): Promise<{ deliveryId: string }> {
  const original = await tx.maybeOne(sql.type(z.object({ id: z.string(), event_id: z.string(), event_type: z.string(), body: z.string() }))`
    select id, event_id, event_type, body from webhook_deliveries
    where business_id = ${input.businessId} and webhook_id = ${input.webhookId} and id = ${input.deliveryId}`);
  if (!original) throw notFound('Delivery not found');
  const id = await tx.oneFirst(sql.type(z.object({ id: z.string() }))`
    insert into webhook_deliveries (business_id, webhook_id, event_id, event_type, body, redelivery_of)
    values (${input.businessId}, ${input.webhookId}, ${original.event_id}, ${original.event_type}, ${original.body}, ${original.id})
    returning id`);
  await enqueue(tx, 'deliver_webhook', { business_id: input.businessId, delivery_id: id }, { webhookId: input.webhookId });
  return { deliveryId: id };
}

// ---------------------------------------------------------------- delivering

export type PostResult = { status: number; ms: number } | { error: string; ms: number };

/**
 * POSTs `body` to `url`, connecting only to the address the host check approved (no second DNS
 * answer), without following redirects, within WEBHOOK_TIMEOUT_MS.
 */
export async function postWebhook(url: string, body: string, headers: Record<string, string>, rules: HostRules): Promise<PostResult> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  const target = new URL(url);
  let checked;
  try {
    checked = await checkHost(target.hostname, rules, 'webhook URLs');
  } catch (error) {
    if (error instanceof HostRefusedError) return { error: error.message, ms: ms() };
    throw error;
  }
  const lookup: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: checked.address, family: checked.family }]);
    else callback(null, checked.address, checked.family);
  };
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const request = client.request(
      target,
      { method: 'POST', headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) }, lookup, timeout: WEBHOOK_TIMEOUT_MS, agent: false },
      (response) => {
        // The answer's body is not kept: read (up to 64 KiB) and dropped.
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > 65_536) response.destroy();
        });
        response.on('close', () => resolve({ status: response.statusCode ?? 0, ms: ms() }));
        response.on('error', () => {});
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s`)));
    request.on('error', (error) => resolve({ error: error.message, ms: ms() }));
    request.end(body);
  });
}

const deliveryToSend = z.object({
  id: z.string(),
  webhook_id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  body: z.string(),
  status: z.string(),
  created_at: z.string(),
  url: z.string(),
  active: z.boolean(),
  secret_encrypted: z.string(),
  redelivery: z.boolean(),
});

/** Worth trying again: no answer, or an answer that says "later". */
const retryable = (result: PostResult) => 'error' in result || result.status === 408 || result.status === 429 || result.status >= 500;

export type DeliveryOutcome = 'delivered' | 'retry' | 'failed' | 'skipped';

/**
 * One attempt of one delivery (deliver_webhook). `finalAttempt`: the job has no attempt left.
 * Returns what happened; 'retry' means the caller throws so graphile-worker tries again later.
 */
export async function attemptDelivery(
  deps: Pick<Deps, 'db' | 'config' | 'logger'>,
  input: { businessId: string; deliveryId: string; finalAttempt: boolean },
): Promise<DeliveryOutcome> {
  const delivery = await deps.db.maybeOne(sql.type(deliveryToSend)`
    select d.id, d.webhook_id, d.event_id, d.event_type, d.body, d.status, d.created_at, w.url, w.active, w.secret_encrypted,
      d.redelivery_of is not null as redelivery
    from webhook_deliveries d join webhook_endpoints w on w.business_id = d.business_id and w.id = d.webhook_id
    where d.business_id = ${input.businessId} and d.id = ${input.deliveryId}`);
  // Gone with its endpoint, or already delivered (or given up): nothing to send, ever twice.
  if (!delivery || delivery.status !== 'pending') return 'skipped';
  // Test events and redeliveries are asked for by a person, for this endpoint: sent even while it is disabled.
  if (!delivery.active && delivery.event_type !== TEST_EVENT_TYPE && !delivery.redelivery) {
    await deps.db.query(sql.unsafe`
      update webhook_deliveries set status = 'failed', last_error = 'The endpoint is disabled'
      where business_id = ${input.businessId} and id = ${delivery.id} and status = 'pending'`);
    return 'skipped';
  }
  const { secret } = decryptJson<{ secret: string }>(deps.config.encryptionKey, delivery.secret_encrypted);
  const timestamp = Math.floor(Date.now() / 1000);
  const result = await postWebhook(
    delivery.url,
    delivery.body,
    {
      'Content-Type': 'application/json',
      'User-Agent': 'Parley-Webhooks/1',
      'Parley-Event-Id': delivery.event_id,
      'Parley-Event-Type': delivery.event_type,
      'Parley-Signature': signatureHeader(secret, delivery.body, timestamp),
    },
    rulesOf(deps),
  );
  const ok = 'status' in result && result.status >= 200 && result.status < 300;
  const outcome: DeliveryOutcome = ok ? 'delivered' : retryable(result) && !input.finalAttempt ? 'retry' : 'failed';
  const status = 'status' in result ? result.status : null;
  const error = 'error' in result ? result.error.slice(0, 500) : ok ? null : `HTTP ${status}`;
  await deps.db.transaction(async (tx) => {
    await tx.query(sql.unsafe`
      update webhook_deliveries set
        attempts = attempts + 1,
        response_status = ${status},
        response_ms = ${result.ms},
        last_error = ${error},
        last_attempt_at = now(),
        status = ${outcome === 'retry' ? 'pending' : outcome},
        delivered_at = ${ok ? sql.fragment`now()` : null}
      where business_id = ${input.businessId} and id = ${delivery.id} and status = 'pending'`);
    if (ok) {
      await tx.query(sql.unsafe`update webhook_endpoints set last_success_at = now() where business_id = ${input.businessId} and id = ${delivery.webhook_id}`);
    } else if (outcome === 'failed' && retryable(result)) {
      await disableIfPersistent(tx, input.businessId, delivery.webhook_id, delivery.created_at, deps);
    }
  });
  return outcome;
}

/**
 * A delivery that failed through every attempt (about three days) while the endpoint had no
 * success since the delivery was made: the endpoint is disabled, the owner is told by e-mail and
 * the audit log records it. (A single event the receiver rejects at once (a 4xx) never disables.)
 */
async function disableIfPersistent(tx: Queryable, businessId: string, webhookId: string, since: string, deps: Pick<Deps, 'config'>): Promise<void> {
  const disabled = await tx.maybeOne(sql.type(z.object({ id: z.string(), url: z.string() }))`
    update webhook_endpoints set active = false, updated_at = now(),
      disabled_reason = 'Deliveries failed for about three days without a single success'
    where business_id = ${businessId} and id = ${webhookId} and active and (last_success_at is null or last_success_at < ${since})
    returning id, url`);
  if (!disabled) return;
  await recordAudit(tx, {
    businessId,
    actor: { type: 'system', name: 'Parley' },
    action: 'webhook.disabled',
    targetType: 'webhook',
    targetId: disabled.id,
    details: { url: disabled.url, reason: 'persistent delivery failure' },
  });
  const owner = await tx.maybeOne(sql.type(z.object({ email: z.string() }))`
    select u.email from team_members m join users u on u.id = m.user_id
    where m.business_id = ${businessId} and m.role = 'owner' and m.is_active`);
  if (!owner) return;
  const appUrl = (deps.config.APP_URL ?? deps.config.publicUrl).replace(/\/+$/, '');
  await enqueue(tx, 'send_email', {
    to: owner.email,
    subject: 'Parley: a webhook endpoint was disabled',
    text:
      `Parley could not deliver events to one of your webhook endpoints for about three days, so it has been disabled.\n\n` +
      `Endpoint: ${disabled.url}\n\nFix the receiver, then turn the endpoint back on in Settings → Webhooks:\n${appUrl}/app/settings/webhooks\n`,
  });
}

// ---------------------------------------------------------------- reading

export const deliveryRow = z.object({
  id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number(),
  response_status: z.number().nullable(),
  response_ms: z.number().nullable(),
  last_error: z.string().nullable(),
  created_at: z.string(),
  last_attempt_at: z.string().nullable(),
  delivered_at: z.string().nullable(),
  redelivery_of: z.string().nullable(),
});
export const deliveryColumns = sql.fragment`d.id, d.event_id, d.event_type, d.status, d.attempts, d.response_status, d.response_ms, d.last_error, d.created_at, d.last_attempt_at, d.delivered_at, d.redelivery_of`;
