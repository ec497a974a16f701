import { z } from '../../../lib/zod.ts';
import { intParam } from '../../validation.ts';
import { cursorParam } from '../../cursor.ts';
import { webhookEventTypes } from '../../../core/commands/webhooks-out.ts';
import { auditActions } from '../../../core/domain/platform/audit.ts';
import { ownerProof, ownerProofFields } from '../auth/schema.ts';

const scope = z.enum(['read', 'write', 'admin']);

/** `limit` 1–100 (default 50) and `before`: a list newest first, keyset-paginated (X-Next-Cursor). */
export const pageQuery = z.object({
  limit: intParam({ min: 1, max: 100 }).default(50).openapi({ default: 50 }),
  before: cursorParam.optional(),
});

export const apiKeyParams = z.object({ api_key_id: z.uuid() });
export const webhookParams = z.object({ webhook_id: z.uuid() });

export const createApiKeyBody = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), { message: 'A key name cannot contain control characters' })
      .openapi({ description: '1–100 characters: what the key is for ("Zapier", "CRM sync")' }),
    scopes: z.array(scope).min(1).max(3).default(['read']).openapi({
      description:
        '`read`: every read; `write`: what any member may change (reply, assign, label…); `admin`: what owners and admins manage. Default `["read"]`.',
    }),
    // A key outlives every session: a stolen session alone must not mint one (docs/decisions.md#api-keys).
    ...ownerProofFields,
  })
  .superRefine(ownerProof);

export const apiKeySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    scopes: z.array(scope),
    prefix: z.string().openapi({ description: 'How the key is shown after creation: `prl_…` and its last four characters', example: 'prl_…x9Qa' }),
    created_by: z.uuid().nullable().openapi({ description: 'The user who made it (the key acts as them)' }),
    created_by_name: z.string().nullable(),
    created_at: z.string(),
    last_used_at: z.string().nullable().openapi({ description: 'Last request made with it (updated at most once a minute)' }),
  })
  .openapi('ApiKey');

export const createdApiKeySchema = apiKeySchema
  .extend({ key: z.string().openapi({ description: 'The key itself (`prl_…`): shown this once, never again', example: 'prl_…' }) })
  .openapi('ApiKeyCreated');

const eventType = z.enum(webhookEventTypes);

const webhookUrl = z.string().trim().min(1).max(2000).openapi({
  description: 'https:// (or http://) URL; internal addresses are refused unless the server allows them',
  example: 'https://example.com/parley-webhook',
});
const webhookEvents = z
  .array(eventType)
  .min(1)
  .max(webhookEventTypes.length * 2)
  .openapi({ description: `Event types to receive: ${webhookEventTypes.map((t) => `\`${t}\``).join(', ')}` });

export const createWebhookBody = z.object({
  url: webhookUrl,
  events: webhookEvents,
  active: z.boolean().default(true).openapi({ default: true }),
});

export const updateWebhookBody = z.object({
  url: webhookUrl.optional(),
  events: webhookEvents.optional(),
  active: z.boolean().optional().openapi({ description: 'Turning an endpoint back on clears `disabled_reason`' }),
});

export const webhookSchema = z
  .object({
    id: z.uuid(),
    url: z.string(),
    events: z.array(z.string()),
    active: z.boolean(),
    disabled_reason: z.string().nullable().openapi({ description: 'Why Parley turned it off (persistent delivery failure); null otherwise' }),
    last_success_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Webhook');

export const createdWebhookSchema = webhookSchema
  .extend({ secret: z.string().openapi({ description: 'The signing secret (`whsec_…`): shown this once; verify `Parley-Signature` with it' }) })
  .openapi('WebhookCreated');

export const deliverySchema = z
  .object({
    id: z.uuid(),
    event_id: z.uuid().openapi({ description: "The body's `id`: the same on every attempt (deduplicate on it)" }),
    event_type: z.string(),
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: z.number().int(),
    response_status: z.number().int().nullable().openapi({ description: 'HTTP status of the last attempt; null when no answer came' }),
    response_ms: z.number().int().nullable().openapi({ description: 'Time the last attempt took, in milliseconds' }),
    last_error: z.string().nullable(),
    created_at: z.string(),
    last_attempt_at: z.string().nullable(),
    delivered_at: z.string().nullable(),
    redelivery_of: z
      .uuid()
      .nullable()
      .openapi({ description: 'The delivery this one sends again (POST …/redeliver); null for the first delivery of its event' }),
  })
  .openapi('WebhookDelivery');

export const deliveryParams = z.object({ webhook_id: z.uuid(), delivery_id: z.uuid() });

export const auditQuery = z.object({
  limit: intParam({ min: 1, max: 100 }).default(50).openapi({ default: 50 }),
  before: intParam({ type: 'int8', min: 1 }).optional().openapi({ description: 'The X-Next-Cursor header of the previous page' }),
});

export const auditEntrySchema = z
  .object({
    id: z.string().openapi({ description: 'Increasing with time' }),
    action: z.enum(auditActions),
    actor: z.object({
      type: z.enum(['user', 'api_key', 'system']),
      user_id: z.uuid().nullable(),
      api_key_id: z.uuid().nullable(),
      name: z.string().openapi({ description: 'Who, as named when it happened' }),
    }),
    target_type: z.string(),
    target_id: z.string().nullable(),
    details: z.record(z.string(), z.unknown()).openapi({ description: 'What changed (never a secret)' }),
    created_at: z.string(),
  })
  .openapi('AuditEntry');

export const detailResponse = z.object({ detail: z.string() });
