/**
 * The audit log: who did what to the business's settings, members, channels, API keys, webhooks
 * and plan, and what is done to customer records (edits, merges, erasures: the fields and counts,
 * never the customer's data). A row is written by the command's own transaction (recordAudit inside runCommand),
 * so a change and its record commit or roll back together. `details` carries what changed but
 * never a secret (no channel credentials, no key, no webhook secret): for a channel update, the
 * names of the fields changed; for the business, the new values of its settings.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../../adapters/postgres/db.ts';

export type AuditActor =
  | { type: 'user'; userId: string; name: string }
  | { type: 'api_key'; apiKeyId: string; userId: string; name: string }
  | { type: 'system'; name: string };

/** The actor of a signed-in caller: the person, or the API key standing in for them. */
export function actorOf(caller: { userId: string; fullName: string; apiKey?: { id: string; name: string } }): AuditActor {
  if (caller.apiKey)
    return { type: 'api_key', apiKeyId: caller.apiKey.id, userId: caller.userId, name: `API key "${caller.apiKey.name}" (${caller.fullName})` };
  return { type: 'user', userId: caller.userId, name: caller.fullName };
}

export const auditActions = [
  'business.updated',
  'member.invited',
  'member.removed',
  'member.left',
  'channel.created',
  'channel.updated',
  'channel.deleted',
  'api_key.created',
  'api_key.revoked',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.disabled',
  'plan.changed',
  'customer.updated',
  'customer.merged',
  'customer.erasure_requested',
  'customer.erased',
  'retention.updated',
  'customer_attributes.updated',
  'customers.imported',
  'widget.identity_secret_rotated',
  'conversations.expired',
  /** A settings section changed (core/subscribers/audit-log.ts): `details` {section, before, after}. */
  'settings.updated',
] as const;
export type AuditAction = (typeof auditActions)[number];

export type AuditEntry = {
  businessId: string;
  actor: AuditActor;
  action: AuditAction;
  targetType: 'business' | 'member' | 'channel' | 'api_key' | 'webhook' | 'plan' | 'customer' | 'widget';
  targetId?: string | null;
  details?: Record<string, unknown>;
};

export async function recordAudit(q: Queryable, entry: AuditEntry): Promise<void> {
  const { actor } = entry;
  await q.query(sql.unsafe`
    insert into audit_log (business_id, actor_type, actor_user_id, actor_api_key_id, actor_name, action, target_type, target_id, details)
    values (${entry.businessId}, ${actor.type}, ${actor.type === 'system' ? null : actor.userId}, ${actor.type === 'api_key' ? actor.apiKeyId : null},
      ${actor.name}, ${entry.action}, ${entry.targetType}, ${entry.targetId ?? null}, ${sql.jsonb((entry.details ?? {}) as never)})`);
}

export const auditRow = z.object({
  id: z.coerce.string(),
  actor_type: z.enum(['user', 'api_key', 'system']),
  actor_user_id: z.string().nullable(),
  actor_api_key_id: z.string().nullable(),
  actor_name: z.string(),
  action: z.string(),
  target_type: z.string(),
  target_id: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  created_at: z.string(),
});

/** A page of the business's audit log, newest first, after the row `before` (an id) when given. */
export async function auditPage(q: Queryable, businessId: string, page: { before?: string; limit: number }) {
  return q.any(sql.type(auditRow)`
    select id, actor_type, actor_user_id, actor_api_key_id, actor_name, action, target_type, target_id, details, created_at
    from audit_log
    where business_id = ${businessId} ${page.before !== undefined ? sql.fragment`and id < ${page.before}` : sql.fragment``}
    order by id desc
    limit ${page.limit}`);
}
