/**
 * What a subscriber is: a name (its line in core/events/subscriptions.ts, which says which
 * events it handles) and what it does with a batch of them. It runs after the events' command
 * committed, in the transaction of the handle_events job (core/events/pipeline.ts): whatever it
 * writes or enqueues commits with the batch's mark as handled, so a retry repeats nothing. It
 * does one thing and stays quick: slow or external work is a job it enqueues.
 */
import type { Queryable } from '../adapters/postgres/db.ts';
import type { Deps } from '../deps.ts';
import type { DomainEventRow } from './domain.ts';
import type { PendingEvent } from './live.ts';
import { subscriptions, type SubscriberName } from './subscriptions.ts';

export type Subscriber = {
  name: SubscriberName;
  /** `events`: this subscriber's events of the batch, in the order recorded. Returns live events to publish after commit, if any. */
  handle: (tx: Queryable, events: readonly DomainEventRow[], deps: Deps) => Promise<PendingEvent[] | void>;
};

/** A subscriber, typed by its line in the subscriptions list. */
export const defineSubscriber = (subscriber: Subscriber): Subscriber & { events: readonly string[] } => ({
  ...subscriber,
  events: subscriptions[subscriber.name],
});

/** The distinct values of `pick` over `events` (skipping nulls). */
export function distinct<T>(events: readonly DomainEventRow[], pick: (e: DomainEventRow) => T | null | undefined): T[] {
  const out = new Set<T>();
  for (const e of events) {
    const v = pick(e);
    if (v !== null && v !== undefined) out.add(v);
  }
  return [...out];
}
