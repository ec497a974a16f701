/**
 * Snooze and priority (docs/decisions.md#snooze-priority-bulk-and-scheduled-send).
 *
 * Snooze sets an open or pending conversation aside: until a time (`snoozed_until`) or until the
 * customer writes (`snoozed_until` null). It keeps its status; `snoozed_at` marks it, the inbox's
 * open view leaves it out (`?snoozed=false`) and the Snoozed view lists it (`?snoozed=true`). It
 * wakes when the customer writes (the SQL function inbound_apply_message clears the mark in the
 * same statement that stores the message), when its time comes (the minute crontab job
 * wake_snoozed_conversations), when a member wakes it (DELETE …/snooze) and when it is resolved,
 * closed or reopened. Waking moves it up the inbox (`updated_at`); snoozing does not (it leaves
 * the view anyway). Each change fires `conversation_updated`.
 *
 * Priority is one of none|low|medium|high|urgent; changing it fires `conversation_updated` and,
 * like a label, does not move the conversation up the inbox.
 */
import { z } from 'zod';
import type { DomainEventInput } from '../events/domain-types.ts';
import { domainEvent } from './conversations.ts';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import type { Deps } from '../deps.ts';
import { badRequest, notFound } from '../errors.ts';
import { conversationUpdated, type PendingEvent } from '../events/live.ts';
import type { Priority } from '../presenters/conversation.ts';
import { runCommand } from './run-command.ts';

const idRow = z.object({ id: z.string(), business_id: z.string() });

async function assertExists(tx: Queryable, businessId: string, conversationId: string): Promise<void> {
  const exists = await tx.exists(sql.unsafe`select 1 from conversations where id = ${conversationId} and business_id = ${businessId}`);
  if (!exists) throw notFound('Conversation not found');
}

/**
 * Snoozes until `until`, or until the customer writes when null (snoozing again replaces the
 * time). 404 outside the business; 400 for a resolved or closed conversation.
 */
export async function snoozeConversation(
  tx: Queryable,
  input: { businessId: string; conversationId: string; until: Date | null },
): Promise<{ events: PendingEvent[]; domainEvents: DomainEventInput[] }> {
  const row = await tx.maybeOne(sql.type(idRow)`
    update conversations set snoozed_at = now(), snoozed_until = ${input.until?.toISOString() ?? null}::timestamptz
    where id = ${input.conversationId} and business_id = ${input.businessId} and status in ('open', 'pending')
    returning id, business_id`);
  if (!row) {
    await assertExists(tx, input.businessId, input.conversationId);
    throw badRequest('Only an open or pending conversation can be snoozed');
  }
  const until = input.until?.toISOString() ?? null;
  return { events: [conversationUpdated(row)], domainEvents: [domainEvent('conversation.snoozed', row, undefined, { until })] };
}

/** Wakes it now; a conversation that is not snoozed is left as it is (no event). 404 outside the business. */
export async function wakeConversation(
  tx: Queryable,
  input: { businessId: string; conversationId: string },
): Promise<{ events: PendingEvent[]; domainEvents?: DomainEventInput[] }> {
  const row = await tx.maybeOne(sql.type(idRow)`
    update conversations set snoozed_at = null, snoozed_until = null, updated_at = now()
    where id = ${input.conversationId} and business_id = ${input.businessId} and snoozed_at is not null
    returning id, business_id`);
  if (!row) {
    await assertExists(tx, input.businessId, input.conversationId);
    return { events: [] };
  }
  return { events: [conversationUpdated(row)], domainEvents: [domainEvent('conversation.woken', row, undefined, {})] };
}

/** Sets the priority; the same one again changes nothing (no event). 404 outside the business. */
export async function setPriority(
  tx: Queryable,
  input: { businessId: string; conversationId: string; priority: Priority },
): Promise<{ events: PendingEvent[]; domainEvents?: DomainEventInput[] }> {
  const row = await tx.maybeOne(sql.type(idRow)`
    update conversations set priority = ${input.priority}
    where id = ${input.conversationId} and business_id = ${input.businessId} and priority <> ${input.priority}
    returning id, business_id`);
  if (!row) {
    await assertExists(tx, input.businessId, input.conversationId);
    return { events: [] };
  }
  return { events: [conversationUpdated(row)], domainEvents: [domainEvent('conversation.prioritized', row, undefined, { priority: input.priority })] };
}

/** Batch size of one wake-up transaction. */
const WAKE_BATCH = 500;

/**
 * The crontab's wake-up: every conversation whose `snoozed_until` has come, in batches of
 * WAKE_BATCH (rows another transaction holds are left for the next minute), each batch a
 * command whose `conversation_updated` events follow its commit. Returns how many woke.
 */
export async function wakeDueSnoozes(deps: Pick<Deps, 'db' | 'events' | 'logger'>): Promise<number> {
  let woken = 0;
  for (;;) {
    const { count } = await runCommand(deps, async (tx) => {
      const rows = await tx.any(sql.type(idRow)`
        update conversations c set snoozed_at = null, snoozed_until = null, updated_at = now()
        where c.id in (
          select id from conversations
          where snoozed_until <= now()
          order by snoozed_until
          limit ${WAKE_BATCH}
          for update skip locked)
        returning c.id, c.business_id`);
      const woke = { type: 'system', name: 'Snooze' } as const;
      return { count: rows.length, events: rows.map(conversationUpdated), domainEvents: rows.map((row) => domainEvent('conversation.woken', row, woke, {})) };
    });
    woken += count;
    if (count < WAKE_BATCH) return woken;
  }
}
