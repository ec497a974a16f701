/**
 * PUT /settings/customer-attributes: the business's attribute definitions replaced as a whole,
 * in the order given (core/domain/customer-attributes.ts). Values customers already hold are
 * kept: a key no longer defined can still be removed (set to null), not set.
 */
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { recordAudit, type AuditActor } from '../domain/platform/audit.ts';
import { loadAttributeDefinitions, type AttributeDefinition } from '../domain/customer-attributes.ts';

export async function replaceAttributeDefinitions(
  tx: Queryable,
  input: { businessId: string; actor: AuditActor; definitions: readonly AttributeDefinition[] },
): Promise<{ definitions: AttributeDefinition[] }> {
  // Two PUTs at once: one after the other (the business row is the lock), never a mix of both.
  await tx.query(sql.unsafe`select 1 from businesses where id = ${input.businessId} for update`);
  await tx.query(sql.unsafe`delete from customer_attribute_definitions where business_id = ${input.businessId}`);
  for (const [position, d] of input.definitions.entries()) {
    await tx.query(sql.unsafe`
      insert into customer_attribute_definitions (business_id, key, label, type, options, position)
      values (${input.businessId}, ${d.key}, ${d.label}, ${d.type}, ${d.type === 'list' ? sql.array(d.options ?? [], 'text') : null}, ${position})`);
  }
  await recordAudit(tx, {
    businessId: input.businessId,
    actor: input.actor,
    action: 'customer_attributes.updated',
    targetType: 'business',
    targetId: null,
    details: { keys: input.definitions.map((d) => d.key) },
  });
  return { definitions: await loadAttributeDefinitions(tx, input.businessId) };
}
