/**
 * The one way a caller commits a command: run it in a transaction, and only once that has
 * committed do what the command asked for afterwards (publish its live events, drop the
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
import { enqueueWebhookEvents } from './webhooks-out.ts';

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
  /** The command's own statement handed `events` to the webhook endpoints already (sendMessage's `enqueueWebhooks`). */
  webhooksEnqueued?: true;
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
  // Webhook endpoints hear of the command's events through a job enqueued in its own
  // transaction (core/commands/webhooks-out.ts), so a committed event is never lost to them.
  const result = options.oneStatement
    ? await command(deps.db)
    : await deps.db.transaction(async (tx) => {
        const done = await command(tx);
        if (!(done as AfterCommit).webhooksEnqueued) await enqueueWebhookEvents(tx, (done as AfterCommit).events);
        return done;
      });
  // A command with nothing to do afterwards returns no AfterCommit fields (TypeScript would
  // refuse such a result as an AfterCommit: none of its fields in common).
  const after = result as AfterCommit;
  // A one-statement command committed by itself: its webhook job follows at once, the one
  // place where a crash between two statements could lose an event for webhooks.
  // (A statement that enqueued them itself closes that gap and saves the round trip.)
  if (options.oneStatement && !after.webhooksEnqueued) await enqueueWebhookEvents(deps.db, after.events);
  if (after.forget?.includes('channels')) forgetCachedChannels();
  if (after.disconnectRooms?.length) deps.events.disconnect({ rooms: [...after.disconnectRooms], except: after.keepRooms ? [...after.keepRooms] : undefined });
  if (after.events?.length) await publishEvents(deps, after.events);
  return result;
}
