/** Parley as a platform: API keys, webhook endpoints and their deliveries, the audit log (owners and admins). */
import type { Context } from 'koa';
import { z } from '../../../lib/zod.ts';
import { sql } from '../../../core/adapters/postgres/db.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import { apiKeyColumns, apiKeyRow, createApiKey, revokeApiKey, type ApiKeyRow } from '../../../core/commands/api-keys.ts';
import {
  createWebhook,
  deleteWebhook,
  deliveryColumns,
  deliveryRow,
  redeliverWebhook,
  sendTestEvent,
  updateWebhook,
  webhookColumns,
  webhookRow,
  SIGNATURE_TOLERANCE_SECONDS,
  type WebhookRow,
} from '../../../core/commands/webhooks-out.ts';
import { actorOf, auditPage, type auditRow } from '../../../core/domain/platform/audit.ts';
import { notFound } from '../../../core/errors.ts';
import { defineRoute } from '../../route.ts';
import { cursorColumn, encodeCursor, keysetPage, type Cursor } from '../../cursor.ts';
import { confirmItIsTheOwner } from '../auth/two-factor.ts';
import {
  apiKeyParams,
  apiKeySchema,
  auditEntrySchema,
  auditQuery,
  createApiKeyBody,
  createdApiKeySchema,
  createdWebhookSchema,
  createWebhookBody,
  deliveryParams,
  deliverySchema,
  detailResponse,
  pageQuery,
  updateWebhookBody,
  webhookParams,
  webhookSchema,
} from './schema.ts';

const paging =
  '`limit` 1–100 (default 50), newest first; when more exist, the `X-Next-Cursor` response header holds the value to pass as `before` for the next page.';

/** A page of rows selected with `cursor_at` (cursorColumn) and `id`: sets X-Next-Cursor when more exist. */
function page<R extends { cursor_at: string; id: string }>(ctx: Context, rows: readonly R[], limit: number): Omit<R, 'cursor_at'>[] {
  return keysetPage(ctx, rows, limit, (last) => encodeCursor({ at: last.cursor_at, id: last.id })).map(({ cursor_at: _, ...row }) => row);
}

const before = (cursor: Cursor | undefined, at: ReturnType<typeof sql.identifier>, id: ReturnType<typeof sql.identifier>) =>
  cursor ? sql.fragment`and (${at}, ${id}) < (${cursor.at}::timestamptz, ${cursor.id}::uuid)` : sql.fragment``;

// ---------------------------------------------------------------- API keys

const keyDocs = 'See docs/decisions.md#api-keys.';

const presentApiKey = (row: ApiKeyRow) => {
  const { last_four, ...rest } = row;
  return { ...rest, prefix: `prl_…${last_four}` };
};

export const createKey = defineRoute({
  method: 'post',
  path: '/api/v1/api-keys',
  summary: 'Create an API key',
  description:
    'The answer carries the key itself (`key`, `prl_…`) this once: Parley keeps only its SHA-256. Send it as `Authorization: Bearer prl_…` on any business endpoint; ' +
    'it acts as the member who made it, limited to its `scopes` (each operation names the scope it needs), at most 600 requests a minute. ' +
    'If that member leaves or is removed, the key stops working and shows as revoked. At most 50 unrevoked keys (400 beyond). Recorded in the audit log. ' +
    'Needs exactly one of `password`, `code` or `recovery_code` of the signed-in member (the last two with two-factor on; none: 422 at `password`; wrong: 400; failures count toward the login lockout: 429): ' +
    'a key outlives every session, so a stolen session alone must not mint one. ' +
    keyDocs,
  tags: ['API keys'],
  auth: 'user',
  policy: 'api_keys.manage',
  body: createApiKeyBody,
  response: createdApiKeySchema,
  errors: [400, 403, 404, 429],
  handler: async ({ body, caller, member, deps, ctx }) => {
    await confirmItIsTheOwner(deps, ctx, caller.userId, body);
    const { apiKey, key } = await runCommand(deps, (tx) =>
      createApiKey(tx, {
        businessId: member.businessId,
        memberId: member.id,
        userId: caller.userId,
        actor: actorOf(caller),
        name: body.name,
        scopes: body.scopes,
      }),
    );
    return { ...presentApiKey(apiKey), key };
  },
});

export const listKeys = defineRoute({
  method: 'get',
  path: '/api/v1/api-keys',
  summary: 'List API keys',
  description: `The business's unrevoked keys (never the keys themselves). ${paging} ${keyDocs}`,
  tags: ['API keys'],
  auth: 'user',
  policy: 'api_keys.manage',
  query: pageQuery,
  response: z.array(apiKeySchema),
  errors: [403, 404],
  handler: async ({ query, member, deps, ctx }) => {
    const rows = await deps.db.any(sql.type(apiKeyRow.extend({ cursor_at: z.string() }))`
      select ${apiKeyColumns}, ${cursorColumn(sql.fragment`k.created_at`)} as cursor_at
      from api_keys k
      where k.business_id = ${member.businessId} and k.revoked_at is null ${before(query.before, sql.identifier(['k', 'created_at']), sql.identifier(['k', 'id']))}
      order by k.created_at desc, k.id desc
      limit ${query.limit + 1}`);
    return page(ctx, rows, query.limit).map(presentApiKey);
  },
});

export const revokeKey = defineRoute({
  method: 'delete',
  path: '/api/v1/api-keys/:api_key_id',
  summary: 'Revoke an API key',
  description: `The next request made with it, on any server, is 401. An unknown or already revoked key: 404. Recorded in the audit log. ${keyDocs}`,
  tags: ['API keys'],
  auth: 'user',
  policy: 'api_keys.manage',
  params: apiKeyParams,
  response: detailResponse,
  errors: [403, 404],
  handler: async ({ params, caller, member, deps }) => {
    await runCommand(deps, (tx) => revokeApiKey(tx, { businessId: member.businessId, keyId: params.api_key_id, actor: actorOf(caller) }));
    return { detail: 'API key revoked' };
  },
});

// ---------------------------------------------------------------- webhooks

const hookDocs = 'See docs/decisions.md#webhooks-out.';
const presentWebhook = (row: WebhookRow) => ({ ...row });

export const createHook = defineRoute({
  method: 'post',
  path: '/api/v1/webhooks',
  summary: 'Create a webhook endpoint',
  description:
    'Parley POSTs each subscribed event to `url` as JSON `{id, type, created_at, data}` (`data`: the conversation or message as the REST API shows it), ' +
    `signed in the \`Parley-Signature\` header: \`t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>\`; refuse a \`t\` older than ${SIGNATURE_TOLERANCE_SECONDS} seconds. ` +
    'The answer carries the signing `secret` this once. A 2xx answer within 10 s is a delivery; no answer, 408, 429 or 5xx are retried with exponential backoff for about three days; ' +
    'after that, an endpoint that had no success meanwhile is disabled and the owner told by e-mail. A URL whose host is (or resolves to) a loopback, private, link-local or reserved address is 400. ' +
    'At most 20 endpoints. Recorded in the audit log. ' +
    hookDocs,
  tags: ['Webhooks'],
  auth: 'user',
  policy: 'webhooks.manage',
  body: createWebhookBody,
  response: createdWebhookSchema,
  errors: [400, 403, 404],
  handler: async ({ body, caller, member, deps }) => {
    const { webhook, secret } = await runCommand(deps, (tx) =>
      createWebhook(tx, deps, { businessId: member.businessId, actor: actorOf(caller), fields: body }),
    );
    return { ...presentWebhook(webhook), secret };
  },
});

export const listHooks = defineRoute({
  method: 'get',
  path: '/api/v1/webhooks',
  summary: 'List webhook endpoints',
  description: `${paging} ${hookDocs}`,
  tags: ['Webhooks'],
  auth: 'user',
  policy: 'webhooks.manage',
  query: pageQuery,
  response: z.array(webhookSchema),
  errors: [403, 404],
  handler: async ({ query, member, deps, ctx }) => {
    const rows = await deps.db.any(sql.type(webhookRow.extend({ cursor_at: z.string() }))`
      select ${webhookColumns}, ${cursorColumn(sql.fragment`w.created_at`)} as cursor_at
      from webhook_endpoints w
      where w.business_id = ${member.businessId} ${before(query.before, sql.identifier(['w', 'created_at']), sql.identifier(['w', 'id']))}
      order by w.created_at desc, w.id desc
      limit ${query.limit + 1}`);
    return page(ctx, rows, query.limit).map(presentWebhook);
  },
});

export const updateHook = defineRoute({
  method: 'patch',
  path: '/api/v1/webhooks/:webhook_id',
  summary: 'Change a webhook endpoint',
  description: `Changes the fields sent (same rules as creating). \`active: true\` turns a disabled endpoint back on. Recorded in the audit log. ${hookDocs}`,
  tags: ['Webhooks'],
  auth: 'user',
  policy: 'webhooks.manage',
  params: webhookParams,
  body: updateWebhookBody,
  response: webhookSchema,
  errors: [400, 403, 404],
  handler: async ({ params, body, caller, member, deps }) => {
    const { webhook } = await runCommand(deps, (tx) =>
      updateWebhook(tx, deps, { businessId: member.businessId, webhookId: params.webhook_id, actor: actorOf(caller), changes: body }),
    );
    return presentWebhook(webhook);
  },
});

export const deleteHook = defineRoute({
  method: 'delete',
  path: '/api/v1/webhooks/:webhook_id',
  summary: 'Delete a webhook endpoint',
  description: `Its delivery log goes with it and its pending deliveries are not sent. Recorded in the audit log. ${hookDocs}`,
  tags: ['Webhooks'],
  auth: 'user',
  policy: 'webhooks.manage',
  params: webhookParams,
  response: detailResponse,
  errors: [403, 404],
  handler: async ({ params, caller, member, deps }) => {
    await runCommand(deps, (tx) => deleteWebhook(tx, { businessId: member.businessId, webhookId: params.webhook_id, actor: actorOf(caller) }));
    return { detail: 'Webhook deleted' };
  },
});

export const listDeliveries = defineRoute({
  method: 'get',
  path: '/api/v1/webhooks/:webhook_id/deliveries',
  summary: "List a webhook endpoint's deliveries",
  description: `Each event sent (or being sent) to the endpoint: status, attempts, and the last attempt's HTTP status and time. ${paging} ${hookDocs}`,
  tags: ['Webhooks'],
  auth: 'user',
  policy: 'webhooks.manage',
  params: webhookParams,
  query: pageQuery,
  response: z.array(deliverySchema),
  errors: [403, 404],
  handler: async ({ params, query, member, deps, ctx }) => {
    const exists = await deps.db.exists(sql.unsafe`select 1 from webhook_endpoints where business_id = ${member.businessId} and id = ${params.webhook_id}`);
    if (!exists) throw notFound('Webhook not found');
    const rows = await deps.db.any(sql.type(deliveryRow.extend({ cursor_at: z.string() }))`
      select ${deliveryColumns}, ${cursorColumn(sql.fragment`d.created_at`)} as cursor_at
      from webhook_deliveries d
      where d.business_id = ${member.businessId} and d.webhook_id = ${params.webhook_id}
        ${before(query.before, sql.identifier(['d', 'created_at']), sql.identifier(['d', 'id']))}
      order by d.created_at desc, d.id desc
      limit ${query.limit + 1}`);
    return page(ctx, rows, query.limit);
  },
});

export const testHook = defineRoute({
  method: 'post',
  path: '/api/v1/webhooks/:webhook_id/test',
  summary: 'Send a test event',
  description: `Queues a \`webhook.test\` event (\`data: {webhook_id, message}\`) to the endpoint, even when it is disabled; follow it in the deliveries. ${hookDocs}`,
  tags: ['Webhooks'],
  auth: 'user',
  policy: 'webhooks.manage',
  params: webhookParams,
  response: z.object({ delivery_id: z.uuid() }),
  errors: [403, 404],
  handler: async ({ params, member, deps }) => {
    const { deliveryId } = await runCommand(deps, (tx) => sendTestEvent(tx, { businessId: member.businessId, webhookId: params.webhook_id }));
    return { delivery_id: deliveryId };
  },
});

export const redeliver = defineRoute({
  method: 'post',
  path: '/api/v1/webhooks/:webhook_id/deliveries/:delivery_id/redeliver',
  summary: 'Redeliver an event',
  description:
    'Queues a new delivery of the same event to the endpoint: the same body and `id` (receivers that deduplicate on it see a repeat), a new signature and its own attempts and retries; ' +
    'it appears first in the deliveries with `redelivery_of` naming this one. Sent even when the endpoint is disabled. ' +
    `Another endpoint's or business's delivery: 404. ${hookDocs}`,
  tags: ['Webhooks'],
  auth: 'user',
  policy: 'webhooks.manage',
  params: deliveryParams,
  response: z.object({ delivery_id: z.uuid() }),
  errors: [403, 404],
  handler: async ({ params, member, deps }) => {
    const { deliveryId } = await runCommand(deps, (tx) =>
      redeliverWebhook(tx, { businessId: member.businessId, webhookId: params.webhook_id, deliveryId: params.delivery_id }),
    );
    return { delivery_id: deliveryId };
  },
});

// ---------------------------------------------------------------- audit log

const presentAudit = (row: z.infer<typeof auditRow>) => ({
  id: row.id,
  action: row.action,
  actor: { type: row.actor_type, user_id: row.actor_user_id, api_key_id: row.actor_api_key_id, name: row.actor_name },
  target_type: row.target_type,
  target_id: row.target_id,
  details: row.details,
  created_at: row.created_at,
});

export const auditLog = defineRoute({
  method: 'get',
  path: '/api/v1/audit-log',
  summary: 'Read the audit log',
  description:
    "Who changed the business's settings, members, channels, API keys, webhooks and plan, newest first; each entry was written in the same transaction as the change. " +
    '`limit` 1–100 (default 50); when more exist, `X-Next-Cursor` holds the value to pass as `before`. See docs/decisions.md#audit-log.',
  tags: ['Audit log'],
  auth: 'user',
  policy: 'audit_log.read',
  query: auditQuery,
  response: z.array(auditEntrySchema),
  errors: [403, 404],
  handler: async ({ query, member, deps, ctx }) => {
    const rows = await auditPage(deps.db, member.businessId, { before: query.before === undefined ? undefined : String(query.before), limit: query.limit + 1 });
    const shown = rows.slice(0, query.limit);
    if (rows.length > query.limit && shown.length) ctx.set('X-Next-Cursor', shown.at(-1)!.id);
    return shown.map(presentAudit);
  },
});

export default [createKey, listKeys, revokeKey, createHook, listHooks, updateHook, deleteHook, listDeliveries, testHook, redeliver, auditLog];
