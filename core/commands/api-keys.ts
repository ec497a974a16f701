/**
 * API keys of a business (docs/decisions.md#api-keys): made by an owner or admin, acting as that
 * member within their scopes; the key is returned once and stored as its SHA-256; revoking
 * takes effect on the next request on every node (the key is looked up on every request).
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { badRequest, notFound } from '../errors.ts';
import { newApiKey } from '../domain/platform/api-keys.ts';
import { recordAudit, type AuditActor } from '../domain/platform/audit.ts';

/** Unrevoked keys per business. */
export const MAX_API_KEYS = 50;

export const apiKeyRow = z.object({
  id: z.string(),
  name: z.string(),
  scopes: z.array(z.enum(['read', 'write', 'admin'])),
  last_four: z.string(),
  created_by: z.string().nullable(),
  created_by_name: z.string().nullable(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});
export type ApiKeyRow = z.infer<typeof apiKeyRow>;

export const apiKeyColumns = sql.fragment`k.id, k.name, k.scopes, k.last_four, k.created_by, (select u.full_name from users u where u.id = k.created_by) as created_by_name, k.created_at, k.last_used_at`;

export async function createApiKey(
  tx: Queryable,
  input: { businessId: string; memberId: string; userId: string; actor: AuditActor; name: string; scopes: ('read' | 'write' | 'admin')[] },
): Promise<{ apiKey: ApiKeyRow; key: string }> {
  await tx.query(sql.unsafe`select 1 from businesses where id = ${input.businessId} for update`);
  const count = await tx.oneFirst(sql.type(z.object({ n: z.number() }))`
    select count(*)::int as n from api_keys where business_id = ${input.businessId} and revoked_at is null`);
  if (count >= MAX_API_KEYS) throw badRequest(`A business can have at most ${MAX_API_KEYS} API keys; revoke one first`);
  const scopes = (['read', 'write', 'admin'] as const).filter((s) => input.scopes.includes(s));
  const { key, hash, lastFour } = newApiKey(input.businessId);
  const apiKey = await tx.one(sql.type(apiKeyRow)`
    insert into api_keys as k (business_id, name, scopes, secret_hash, last_four, member_id, created_by)
    values (${input.businessId}, ${input.name}, ${sql.array(scopes, 'text')}, ${sql.binary(hash)}, ${lastFour}, ${input.memberId}, ${input.userId})
    returning ${apiKeyColumns}`);
  await recordAudit(tx, {
    businessId: input.businessId,
    actor: input.actor,
    action: 'api_key.created',
    targetType: 'api_key',
    targetId: apiKey.id,
    details: { name: apiKey.name, scopes: apiKey.scopes },
  });
  return { apiKey, key };
}

/** Revokes the key (kept, for the audit log); 404 for an unknown, revoked or other business's key. */
export async function revokeApiKey(tx: Queryable, input: { businessId: string; keyId: string; actor: AuditActor }): Promise<{ revoked: true }> {
  const key = await tx.maybeOne(sql.type(z.object({ id: z.string(), name: z.string() }))`
    update api_keys set revoked_at = now()
    where business_id = ${input.businessId} and id = ${input.keyId} and revoked_at is null
    returning id, name`);
  if (!key) throw notFound('API key not found');
  await recordAudit(tx, {
    businessId: input.businessId,
    actor: input.actor,
    action: 'api_key.revoked',
    targetType: 'api_key',
    targetId: key.id,
    details: { name: key.name },
  });
  return { revoked: true };
}
