/**
 * Running the subscribers (core/events/subscribers.ts) on recorded domain events.
 *
 * handle_events {event_ids}: one job per conversation per command (domain_events_record). In one
 * transaction it marks the events handled and runs every subscriber on its events of the batch,
 * in the registry's order, so what the subscribers write or enqueue commits with the mark: a
 * crash before the commit repeats the whole batch, after it nothing (a marked event is skipped).
 * A subscriber that throws does not hold the others back: the batch runs again with each
 * subscriber in a savepoint, and the failing one's events go to a retry_subscriber job of their
 * own (retried with backoff; `parley jobs failed` names the subscriber, its events and the
 * reason; `parley jobs retry` runs it again alone). Its later events may then be handled before
 * the failed ones.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import type { Deps } from '../deps.ts';
import { enqueue } from '../jobs.ts';
import { domainEventColumns, domainEventRow, type DomainEventRow } from './domain.ts';
import { publishEvents, type PendingEvent } from './live.ts';
import { subscriberNamed, subscribers } from './subscribers.ts';

const claimed = (ids: readonly string[]) => sql.type(domainEventRow)`
  with marked as (
    update domain_events set handled_at = now()
    where id = any(${sql.array([...ids], 'uuid')}) and handled_at is null
    returning *
  )
  select ${domainEventColumns} from marked e order by e.seq`;

async function runAll(tx: Queryable, deps: Deps, events: readonly DomainEventRow[], isolate: boolean): Promise<PendingEvent[]> {
  const published: PendingEvent[] = [];
  for (const subscriber of subscribers) {
    const mine = events.filter((e) => subscriber.events.includes(e.type));
    if (!mine.length) continue;
    if (!isolate) {
      published.push(...((await subscriber.handle(tx, mine, deps)) ?? []));
      continue;
    }
    try {
      published.push(...((await tx.transaction((savepoint) => subscriber.handle(savepoint, mine, deps))) ?? []));
    } catch (error) {
      deps.logger.warn({ subscriber: subscriber.name, events: mine.map((e) => e.id), err: (error as Error).message }, 'subscriber failed; retried alone');
      await enqueue(tx, 'retry_subscriber', { subscriber: subscriber.name, event_ids: mine.map((e) => e.id) });
    }
  }
  return published;
}

/** handle_events: every subscriber on the batch's events not yet handled. Returns how many events it handled. */
export async function handleEvents(deps: Deps, eventIds: readonly string[]): Promise<number> {
  const run = (isolate: boolean) =>
    deps.db.transaction(async (tx) => {
      const events = await tx.any(claimed(eventIds));
      return { count: events.length, published: events.length ? await runAll(tx, deps, events, isolate) : [] };
    });
  let result: { count: number; published: PendingEvent[] };
  try {
    result = await run(false);
  } catch {
    // Something failed: again, each subscriber on its own, so one failing holds back no other.
    result = await run(true);
  }
  if (result.published.length) await publishEvents(deps, result.published);
  return result.count;
}

const receiptRow = z.object({ event_id: z.string() });

/**
 * retry_subscriber: one subscriber on events whose batch it failed. Once: a receipt keyed by the
 * subscriber and the first event is written with its effects; a throw rolls both back, and the
 * job is retried.
 */
export async function retrySubscriber(deps: Deps, name: string, eventIds: readonly string[]): Promise<boolean> {
  const subscriber = subscriberNamed(name);
  if (!subscriber || !eventIds.length) return false;
  const published = await deps.db.transaction(async (tx) => {
    const first = await tx.maybeOne(sql.type(receiptRow)`
      insert into domain_event_receipts (business_id, subscriber, event_id)
      select business_id, ${name}, id from domain_events where id = ${eventIds[0]}
      on conflict do nothing
      returning event_id`);
    if (!first) return null;
    const events = await tx.any(sql.type(domainEventRow)`
      select ${domainEventColumns} from domain_events e where e.id = any(${sql.array([...eventIds], 'uuid')}) order by e.seq`);
    try {
      return (await subscriber.handle(tx, events, deps)) ?? [];
    } catch (error) {
      // `parley jobs failed` lists the reason: it names the subscriber and its first event.
      throw new Error(`subscriber ${name} on event ${eventIds[0]} (${events[0]?.type ?? 'gone'}): ${(error as Error).message}`, { cause: error });
    }
  });
  if (published?.length) await publishEvents(deps, published);
  return published !== null;
}
