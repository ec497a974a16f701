/**
 * Recording domain events (the catalogue: domain-types.ts). A command records what it changed in
 * its own transaction; the SQL function domain_events_record (sql/functions/) stores the rows and
 * arms the handle_events job of the subscribers (core/events/subscribers.ts) in that same
 * statement, so a reaction exists exactly when its change does.
 *
 * Most commands return their live events (core/events/live.ts) and runCommand records the
 * domain events those imply (`impliedBy`: a message created, a conversation updated, a customer
 * merged…), next to the ones a command states itself (`AfterCommit.domainEvents`: resolved,
 * snoozed, settings changed…, with what changed).
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import type { FragmentSqlToken } from 'slonik';
import type { PendingEvent } from './live.ts';
import { systemActor, type Actor, type DomainEventInput, type DomainEventType } from './domain-types.ts';
import { handledTypes, subscriptions, type SubscriberName } from './subscriptions.ts';
import { interests } from './interests.ts';

export type { Actor, DomainEventInput, DomainEventType } from './domain-types.ts';
export { systemActor } from './domain-types.ts';

/** A recorded event as subscribers and the history read it. */
export const domainEventRow = z.object({
  id: z.string(),
  seq: z.coerce.number(),
  business_id: z.string(),
  conversation_id: z.string().nullable(),
  type: z.string(),
  actor_type: z.enum(['member', 'customer', 'ai', 'system', 'api_key']),
  actor_id: z.string().nullable(),
  actor_name: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
  created_at: z.string(),
});
export type DomainEventRow = z.infer<typeof domainEventRow>;

export const domainEventColumns = sql.fragment`e.id, e.seq, e.business_id, e.conversation_id, e.type, e.actor_type, e.actor_id, e.actor_name, e.data,
  to_char(e.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at`;

function actorColumns(actor: Actor): { actor_type: string; actor_id: string | null; actor_name: string | null } {
  switch (actor.type) {
    case 'member':
      return { actor_type: 'member', actor_id: actor.userId, actor_name: actor.name ?? null };
    case 'api_key':
      return { actor_type: 'api_key', actor_id: actor.apiKeyId, actor_name: actor.name ?? null };
    case 'customer':
      return { actor_type: 'customer', actor_id: actor.customerId ?? null, actor_name: null };
    case 'ai':
      return { actor_type: 'ai', actor_id: null, actor_name: null };
    case 'system':
      return { actor_type: 'system', actor_id: null, actor_name: actor.name ?? null };
  }
}

/** The JSON the SQL function domain_events_record takes. */
export function eventsJson(events: readonly DomainEventInput[]): unknown[] {
  return events.map((e) => ({
    business_id: e.businessId,
    conversation_id: e.conversationId ?? null,
    type: e.type,
    data: e.data,
    ...actorColumns(e.actor ?? systemActor),
  }));
}

/**
 * The `business:type` pairs of `events` some interested subscriber will handle, as an SQL array
 * evaluated in the recording statement (core/events/interests.ts): one condition per pair.
 */
function armedPairs(events: readonly DomainEventInput[]): FragmentSqlToken {
  const pairs = new Map<string, { businessId: string; type: DomainEventType }>();
  for (const e of events) if (handledTypes.includes(e.type)) pairs.set(`${e.businessId}:${e.type}`, { businessId: e.businessId, type: e.type });
  if (!pairs.size) return sql.fragment`'{}'::text[]`;
  const entries = [...pairs].map(([key, { businessId, type }]) => {
    const business = sql.fragment`${businessId}::uuid`;
    const conditions = (Object.keys(subscriptions) as SubscriberName[])
      .filter((name) => (subscriptions[name] as readonly string[]).includes(type))
      .map((name) => interests[name]?.(business, type) ?? sql.fragment`true`);
    return sql.fragment`case when ${sql.join(conditions, sql.fragment` or `)} then ${key}::text end`;
  });
  return sql.fragment`array_remove(array[${sql.join(entries, sql.fragment`, `)}], null)`;
}

/** The statement fragment that records `events` (for a command that is one statement). */
export const recordEventsFragment = (events: readonly DomainEventInput[]): FragmentSqlToken =>
  sql.fragment`domain_events_record(${sql.jsonb(eventsJson(events) as never)}, ${armedPairs(events)})`;

/** Records `events` in the caller's transaction and arms their subscribers. */
export async function recordEvents(q: Queryable, events: readonly DomainEventInput[]): Promise<void> {
  if (!events.length) return;
  await q.query(sql.unsafe`select ${recordEventsFragment(events)}`);
}

/**
 * The domain events a command's live events imply (the business-wide ones: what webhooks, SLA,
 * assignment and the like react to). A visitor's own `/widget` copy and a mention's live event
 * (one member's notification) imply nothing: the dashboard event beside them does, once.
 */
export function impliedBy(pending: readonly PendingEvent[] | undefined, actor: Actor = systemActor): DomainEventInput[] {
  const out: DomainEventInput[] = [];
  for (const event of pending ?? []) {
    if ('audience' in event) continue;
    if ('load' in event) {
      if ('messageId' in event) {
        const type = event.load === 'message_created' ? 'message.created' : 'message.updated';
        out.push({ type, businessId: event.businessId, actor, data: { message_id: event.messageId }, conversationId: event.conversationId ?? null });
      } else if ('conversationId' in event) {
        const type = event.load === 'conversation_created' ? 'conversation.created' : 'conversation.updated';
        out.push({ type, businessId: event.businessId, conversationId: event.conversationId, actor, data: {} });
      }
      continue;
    }
    if (event.namespace) continue;
    const p = event.payload as { business_id?: string; conversation_id?: string; message_id?: string; customer_id?: string; sender_type?: string };
    if (!p.business_id) continue;
    const businessId = p.business_id;
    const conversationId = p.conversation_id ?? null;
    switch (event.name) {
      case 'message_created':
        if (p.message_id)
          out.push({ type: 'message.created', businessId, conversationId, actor, data: { message_id: p.message_id, sender_type: p.sender_type } });
        break;
      case 'message_updated':
        if (p.message_id) out.push({ type: 'message.updated', businessId, conversationId, actor, data: { message_id: p.message_id } });
        break;
      case 'conversation_created':
        out.push({ type: 'conversation.created', businessId, conversationId, actor, data: {} });
        break;
      case 'conversation_updated':
        out.push({ type: 'conversation.updated', businessId, conversationId, actor, data: {} });
        break;
      case 'conversation_assigned': {
        const a = event.payload as { assignee_id: string; assigned_by: string | null };
        out.push({ type: 'conversation.assigned', businessId, conversationId, actor, data: { assignee_id: a.assignee_id, assigned_by: a.assigned_by } });
        break;
      }
      case 'handoff_requested':
        out.push({ type: 'handoff.requested', businessId, conversationId, actor, data: { reason: (event.payload as { reason: string }).reason } });
        break;
      case 'customer_updated':
        if (p.customer_id) out.push({ type: 'customer.updated', businessId, actor, data: { customer_id: p.customer_id } });
        break;
      case 'customer_merged': {
        const m = event.payload as { customer_id: string; from_customer_id: string };
        out.push({ type: 'customer.merged', businessId, actor, data: { customer_id: m.customer_id, from_customer_id: m.from_customer_id } });
        break;
      }
      case 'customer_erased':
        if (p.customer_id) out.push({ type: 'customer.erased', businessId, actor, data: { customer_id: p.customer_id } });
        break;
      case 'agent_status_changed': {
        const s = event.payload as { user_id: string; status: string };
        out.push({ type: 'member.status_changed', businessId, actor, data: { user_id: s.user_id, status: s.status } });
        break;
      }
    }
  }
  return out;
}

/** `settings.changed` for a section of the business's settings, with its values before and after (as the API shows them). */
export const settingsChanged = (businessId: string, section: string, before: unknown, after: unknown, targetId: string | null = null): DomainEventInput => ({
  type: 'settings.changed',
  businessId,
  data: { section, target_id: targetId, before: before ?? null, after: after ?? null },
});

/**
 * A settings write after a read of the section as it was: the written settings (after), and
 * their settings.changed event for the command to return (the audit log's entry:
 * core/subscribers/audit-log.ts).
 */
export async function changingSettings<T>(
  businessId: string,
  section: string,
  read: () => Promise<unknown>,
  write: () => Promise<T>,
): Promise<{ result: T; domainEvents: DomainEventInput[] }> {
  const before = await read();
  const result = await write();
  return { result, domainEvents: [settingsChanged(businessId, section, before, result)] };
}
