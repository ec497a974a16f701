/**
 * The widget's identity-verification secret (core/domain/visitors/identity-verification.ts):
 * read and rotated by the owner and admins. Rotating makes every hash signed with the old
 * secret fail at once (the business's server must sign with the new one).
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { notFound } from '../errors.ts';
import { recordAudit, type AuditActor } from '../domain/platform/audit.ts';
import { newIdentitySecret, openIdentitySecret, sealIdentitySecret } from '../domain/visitors/identity-verification.ts';

/** The secret of the business's widget; null for a widget made before identity verification existed (until rotated). 404 for another business's widget. */
export async function readIdentitySecret(q: Queryable, key: Uint8Array, input: { businessId: string; widgetId: string }): Promise<string | null> {
  const row = await q.maybeOne(sql.type(z.object({ sealed: z.string().nullable() }))`
    select identity_secret_encrypted as sealed from widgets where business_id = ${input.businessId} and id = ${input.widgetId}`);
  if (!row) throw notFound('Widget not found');
  return row.sealed ? openIdentitySecret(key, row.sealed) : null;
}

export async function rotateIdentitySecret(
  tx: Queryable,
  key: Uint8Array,
  input: { businessId: string; widgetId: string; actor: AuditActor },
): Promise<{ secret: string }> {
  const secret = newIdentitySecret();
  const updated = await tx.maybeOne(sql.type(z.object({ id: z.string(), domain: z.string() }))`
    update widgets set identity_secret_encrypted = ${sealIdentitySecret(key, secret)}, updated_at = now()
    where business_id = ${input.businessId} and id = ${input.widgetId}
    returning id, domain`);
  if (!updated) throw notFound('Widget not found');
  await recordAudit(tx, {
    businessId: input.businessId,
    actor: input.actor,
    action: 'widget.identity_secret_rotated',
    targetType: 'widget',
    targetId: updated.id,
    details: { domain: updated.domain },
  });
  return { secret };
}
