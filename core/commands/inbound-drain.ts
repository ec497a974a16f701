/**
 * The drain of one channel's inbound events (process_inbound {channel_id}): every pending event
 * of the channel, in arrival order (`seq`), in batches of one transaction each. It replaces one
 * job per event in a per-channel serial queue, which ran at the worker's poll speed (a few
 * messages a second on a busy WhatsApp number).
 *
 * Order: one drain of a channel runs at a time, holding the DRAIN lock on its own connection for
 * its whole run (SQL inbound_drain_enter, migration 0119), and each batch takes the oldest pending
 * events, so a customer's messages are threaded in the order they arrived. A drain that finds
 * DRAIN taken does not wait for it (a worker slot and a pool connection each, as a busy channel
 * piled them up): it comes back in a second, unless the running drain, leaving after a last look
 * that took every event stored meanwhile, removes it first (migrations 0119, 0122).
 *
 * Nothing is left behind: storing an event arms the drain job (key `inbound:<channel>`); a drain
 * gives that key up as it enters (migration 0124), so an event stored while it runs arms a new job
 * beside it and leaves the running job's attempts alone. The one gap — the job being
 * taken by a worker while the event's transaction arms it, so no new job is made — is closed by
 * the STORE lock: the drain's last look (SQL inbound_drain_leave) takes it exclusively, waiting
 * for every event still being stored (inbound.ts inboundLocks), and lets DRAIN go in that same
 * step, so no event can be stored between a last look that missed it and the drain's release.
 *
 * A failing event: the batch is rolled back and run again with each event in a savepoint; an
 * event that fails again is marked (failed_at, last_error) and handed to a job of its own
 * (process_inbound {event_id}, graphile-worker's retries and backoff, then `parley jobs failed`),
 * and the rest of the channel goes on. That one message may then land after the customer's next.
 */
import { z } from 'zod';
import { prepared, sql, type Db, type Queryable } from '../adapters/postgres/db.ts';
import { enqueue } from '../jobs.ts';
import type { PendingEvent } from '../events/live.ts';
import { impliedBy, recordEvents } from '../events/domain.ts';
import type { InboundEvent, InboundMessage } from '../../connectors/types.ts';
import { applyInboundEvent, applyMessages, inboundLocks, type InboundChannel } from './inbound.ts';
import { asTheDrain } from './drain-session.ts';

/** Events per transaction: bounds how long a batch holds its conversations' row locks. */
const BATCH_SIZE = 50;

const pendingRow = z.object({ id: z.string(), event: z.record(z.string(), z.unknown()) });
const channelRow = z.object({ id: z.string(), business_id: z.string(), type: z.string() });

export type DrainResult = {
  /** Events applied (duplicates included: they are done too). */
  processed: number;
  /** Events handed to a retry job of their own. */
  failed: number;
};

type Batch = { size: number; failed: number; published: PendingEvent[]; done: string[] };

/**
 * Drains the channel; `publish` gets each batch's live events after its commit. `jobId`: the
 * drain's own job, whose key it gives up on entering (null: run outside a job).
 */
export async function drainInbound(
  db: Db,
  channelId: string,
  publish: (events: PendingEvent[]) => void | Promise<void>,
  jobId: string | null = null,
): Promise<DrainResult> {
  return db.connect(async (connection) => {
    const channel = await connection.maybeOne(prepared(sql.type(channelRow)`select id, business_id, type from channels where id = ${channelId}`));
    // A deleted channel took its events with it (on delete cascade).
    if (!channel) return { processed: 0, failed: 0 };
    const drain = {
      lockClass: inboundLocks.drain,
      key: channel.id,
      enter: sql.fragment`inbound_drain_enter(${jobId}::bigint, ${channel.id}::uuid)`,
      leave: sql.fragment`inbound_drain_leave(${channel.id})`,
    };
    const drained = await asTheDrain(connection, drain, async (leave) => {
      const result: DrainResult = { processed: 0, failed: 0 };
      for (;;) {
        let batch: Batch;
        try {
          batch = await connection.transaction(async (tx) => markDone(tx, await runBatch(tx, channel, false)));
        } catch {
          // Something in the batch failed: find which event, apply the others.
          batch = await connection.transaction(async (tx) => markDone(tx, await runBatch(tx, channel, true)));
        }
        await publish(batch.published);
        result.processed += batch.size - batch.failed;
        result.failed += batch.failed;
        if (batch.size < BATCH_SIZE && (await leave())) return result;
      }
    });
    // Another drain of the channel runs: this one comes back (entering re-armed it).
    return drained ?? { processed: 0, failed: 0 };
  });
}

async function runBatch(tx: Queryable, channel: InboundChannel, isolateFailures: boolean): Promise<Batch> {
  const rows = await tx.any(
    prepared(sql.type(pendingRow)`
    select id, event from inbound_events
    where channel_id = ${channel.id} and processed_at is null and failed_at is null
    order by seq limit ${BATCH_SIZE}`),
  );
  const events = rows.map((row) => row.event as unknown as InboundEvent);
  if (!isolateFailures) {
    return { size: rows.length, failed: 0, published: await applyAll(tx, channel, events), done: rows.map((r) => r.id) };
  }
  const published: PendingEvent[] = [];
  const done: string[] = [];
  let failed = 0;
  for (const [i, row] of rows.entries()) {
    try {
      published.push(...(await tx.transaction((savepoint) => applyInboundEvent(savepoint, channel, events[i]))));
      done.push(row.id);
    } catch (error) {
      await handOff(tx, row.id, error);
      failed += 1;
    }
  }
  return { size: rows.length, failed, published, done };
}

/** The batch's events in order: each run of messages in one call (applyMessages), receipts one by one. */
async function applyAll(tx: Queryable, channel: InboundChannel, events: InboundEvent[]): Promise<PendingEvent[]> {
  const published: PendingEvent[] = [];
  let run: InboundMessage[] = [];
  const flush = async () => {
    published.push(...(await applyMessages(tx, channel, run)));
    run = [];
  };
  for (const event of events) {
    if (event.kind === 'message') {
      run.push(event);
      continue;
    }
    await flush();
    published.push(...(await applyInboundEvent(tx, channel, event)));
  }
  await flush();
  return published;
}

async function markDone(tx: Queryable, batch: Batch): Promise<Batch> {
  if (batch.done.length > 0) {
    await tx.query(prepared(sql.unsafe`update inbound_events set processed_at = now() where id = any(${sql.array(batch.done, 'uuid')})`));
  }
  // The batch's domain events, recorded in this same transaction (their subscribers: webhooks,
  // auto-assignment, the out-of-hours reply, SLA…).
  await recordEvents(tx, impliedBy(batch.published, { type: 'customer' }));
  return batch;
}

/** Marks the event and gives it a job of its own, so it is retried without holding up the channel. */
async function handOff(tx: Queryable, eventId: string, error: unknown): Promise<void> {
  const reason = error instanceof Error ? error.message : String(error);
  await tx.query(prepared(sql.unsafe`update inbound_events set failed_at = now(), last_error = ${reason.slice(0, 2000)} where id = ${eventId}`));
  await enqueue(tx, 'process_inbound', { event_id: eventId });
}
