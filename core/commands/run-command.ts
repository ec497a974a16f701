/**
 * The one way a caller commits a command: run it in a transaction with the domain events it
 * implies or states (core/events/domain.ts: recorded in that transaction, so the subscribers
 * react exactly when the change exists), and only once that has committed do what the command
 * asked for afterwards (publish its live events, drop the
 * per-process caches it made stale, close live connections that lost their right to exist).
 * Commands say what follows their write by returning it beside their result (`AfterCommit`), so
 * no route has to remember it: a route that forgot would show dashboards stale objects, or
 * route webhooks to a deleted channel for the cache's lifetime.
 *
 *   const { channel } = await runCommand(deps, (tx) => updateChannel(tx, key, businessId, id, changes));
 */
import type { Queryable } from '../adapters/postgres/db.ts';
import type { Deps } from '../deps.ts';
import { forgetCachedChannels } from '../domain/channels/channel-cache.ts';
import { publishEvents, type PendingEvent } from '../events/live.ts';
import { currentActor } from '../events/actor-context.ts';
import { impliedBy, recordEvents, type DomainEventInput } from '../events/domain.ts';

/** What a command's write makes necessary once it has committed. Every field is optional. */
export type AfterCommit = {
  /** Live events, published in order (objects read after the commit; see events/live.ts). */
  events?: readonly PendingEvent[];
  /** Per-process caches the write made stale. `channels`: the webhook routing lookups. */
  forget?: readonly 'channels'[];
  /** Socket.IO rooms whose live connections are to be closed (e.g. a removed member's user room). */
  disconnectRooms?: readonly string[];
  /** Rooms spared by `disconnectRooms` (e.g. the caller's own session, which carries on with a new token). */
  keepRooms?: readonly string[];
  /** Domain events the command states beyond those its live `events` imply (resolved, snoozed, settings changed…). */
  domainEvents?: readonly DomainEventInput[];
  /** The command recorded its domain events itself (in its own statement or transactions): nothing to record here. */
  eventsRecorded?: true;
};

export type RunOptions = {
  /**
   * The command is one SQL statement (atomic by itself): it runs on the pool without a
   * transaction around it, which saves the BEGIN and COMMIT round trips on hot paths.
   */
  oneStatement?: boolean;
};

/** Runs `command`, commits, then carries out its AfterCommit; returns the command's result. */
export async function runCommand<T extends object>(
  deps: Pick<Deps, 'db' | 'events' | 'logger'>,
  command: (q: Queryable) => Promise<T>,
  options: RunOptions = {},
): Promise<T> {
  const result = options.oneStatement
    ? await command(deps.db)
    : await deps.db.transaction(async (tx) => {
        const done = await command(tx);
        await recordEvents(tx, domainEventsOf(done as AfterCommit));
        return done;
      });
  // A command with nothing to do afterwards returns no AfterCommit fields (TypeScript would
  // refuse such a result as an AfterCommit: none of its fields in common).
  const after = result as AfterCommit;
  // A one-statement command committed by itself: its events follow at once, the one place where
  // a crash between two statements could lose them (a statement that records them itself, as
  // the reply's does, closes that gap and saves the round trip).
  if (options.oneStatement) await recordEvents(deps.db, domainEventsOf(after));
  if (after.forget?.includes('channels')) forgetCachedChannels();
  if (after.disconnectRooms?.length) deps.events.disconnect({ rooms: [...after.disconnectRooms], except: after.keepRooms ? [...after.keepRooms] : undefined });
  if (after.events?.length) await publishEvents(deps, after.events);
  return result;
}

/** What a command's result records: nothing when it recorded its events itself. */
function domainEventsOf(after: AfterCommit): DomainEventInput[] {
  if (after.eventsRecorded) return [];
  // The request's signed-in caller (api/route.ts), else the system.
  const actor = currentActor();
  return [...impliedBy(after.events, actor), ...(after.domainEvents ?? []).map((e) => (e.actor || !actor ? e : { ...e, actor }))];
}
