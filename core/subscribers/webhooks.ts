/**
 * Webhooks out: the business's events reach its subscribed endpoints. One dispatch_webhooks job
 * per business of the batch (only when an active endpoint subscribes to one of its types); the
 * delivery's `id` is the domain event's, so each event is delivered once per endpoint however
 * often anything is retried (core/commands/webhooks-out.ts).
 */
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { enqueue } from '../jobs.ts';
import { defineSubscriber } from '../events/subscriber.ts';
import type { DomainEventRow } from '../events/domain.ts';
import type { WebhookEventType } from '../commands/webhooks-out.ts';

function refOf(e: DomainEventRow) {
  const data = e.data as { message_id?: string; customer_id?: string };
  const base = { id: e.id, type: e.type as WebhookEventType, at: e.created_at };
  if (e.type.startsWith('message.')) return data.message_id ? { ...base, message_id: data.message_id } : null;
  if (e.type.startsWith('customer.')) return data.customer_id ? { ...base, customer_id: data.customer_id } : null;
  return e.conversation_id ? { ...base, conversation_id: e.conversation_id } : null;
}

/** One dispatch_webhooks job per business of `events` that has an active endpoint subscribed to one of their types. */
export async function dispatchToWebhooks(tx: Queryable, events: readonly DomainEventRow[]): Promise<void> {
  const byBusiness = new Map<string, NonNullable<ReturnType<typeof refOf>>[]>();
  for (const e of events) {
    const ref = refOf(e);
    if (ref) byBusiness.set(e.business_id, [...(byBusiness.get(e.business_id) ?? []), ref]);
  }
  for (const [businessId, refs] of byBusiness) {
    const types = [...new Set(refs.map((r) => r.type))];
    const subscribed = await tx.exists(sql.unsafe`
        select 1 from webhook_endpoints where business_id = ${businessId} and active and events && ${sql.array(types, 'text')}`);
    if (subscribed) await enqueue(tx, 'dispatch_webhooks', { business_id: businessId, events: refs });
  }
}

export default defineSubscriber({
  name: 'webhooks',
  handle: (tx, events) => dispatchToWebhooks(tx, events),
});
