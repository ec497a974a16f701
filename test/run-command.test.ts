/**
 * runCommand (core/commands/run-command.ts), the one way routes commit: what a command asks for
 * afterwards (live events, cache drops, closed connections) happens after the commit, and never
 * for a command that failed. Real PostgreSQL and the app's own event bus.
 */
import test from 'ava';
import { z } from 'zod';
import { sql } from '../core/adapters/postgres/db.ts';
import { runCommand } from '../core/commands/run-command.ts';
import { liveEvent } from '../core/events/catalogue.ts';
import { cachedChannels } from '../core/domain/channels/channel-cache.ts';
import type { ParleyEvent, SocketCut } from '../core/events/bus.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';

let app: TestApp;
let ws: Workspace;

test.before(async () => {
  app = await startTestApp();
  ws = await createWorkspace(app, { name: 'Rita Runner' });
});

test.after.always(async () => {
  await app?.close();
});

const statusEvent = (status: 'live' | 'away') =>
  liveEvent('agent_status_changed', { business_id: ws.businessId, user_id: ws.userId, member_id: ws.userId, status, at: new Date().toISOString() });

/** Events the bus publishes while `fn` runs, each with whether the business's name was already committed as `name`. */
async function published(fn: () => Promise<unknown>, name: string): Promise<{ events: ParleyEvent[]; committedFirst: boolean[] }> {
  const events: ParleyEvent[] = [];
  const checks: Promise<boolean>[] = [];
  const stop = app.deps.events.subscribe((event) => {
    events.push(event);
    // Read on another connection of the pool: sees only what has committed.
    checks.push(app.sql('select name from businesses where id = $1', [ws.businessId]).then(([row]) => row.name === name));
  });
  try {
    await fn().catch(() => {});
  } finally {
    stop();
  }
  return { events, committedFirst: await Promise.all(checks) };
}

test.serial('events are published after the transaction has committed', async (t) => {
  const { events, committedFirst } = await published(
    () =>
      runCommand(app.deps, async (tx) => {
        await tx.query(sql.unsafe`update businesses set name = 'Renamed In Command' where id = ${ws.businessId}`);
        return { events: [statusEvent('away')] };
      }),
    'Renamed In Command',
  );
  t.is(events.length, 1);
  t.like(events[0], { name: 'agent_status_changed' });
  t.deepEqual(committedFirst, [true], 'a listener reading on another connection sees the write');
});

test.serial('a command that throws writes nothing and publishes nothing', async (t) => {
  const before = (await app.sql('select name from businesses where id = $1', [ws.businessId]))[0].name;
  const { events } = await published(
    () =>
      runCommand(app.deps, async (tx) => {
        await tx.query(sql.unsafe`update businesses set name = 'Never Committed' where id = ${ws.businessId}`);
        if (before) throw new Error('refused after the write');
        return { events: [statusEvent('live')] };
      }),
    'Never Committed',
  );
  t.deepEqual(events, []);
  t.is((await app.sql('select name from businesses where id = $1', [ws.businessId]))[0].name, before);
});

test.serial('`forget: channels` drops the webhook routing cache; without it the cache stays', async (t) => {
  let loads = 0;
  const load = async () => {
    loads++;
    return [{ id: 'c-1' } as never];
  };
  await cachedChannels('run-command-test', load);
  await runCommand(app.deps, async () => ({ value: 1 }));
  await cachedChannels('run-command-test', load);
  t.is(loads, 1, 'a command with nothing to forget keeps the cache');
  await runCommand(app.deps, async () => ({ forget: ['channels'] as const }));
  await cachedChannels('run-command-test', load);
  t.is(loads, 2, 'read again after the forget');
});

test.serial("`disconnectRooms` asks the realtime layer to close those rooms' connections, after commit only", async (t) => {
  const cuts: SocketCut[] = [];
  const stop = app.deps.events.subscribeDisconnects((cut) => cuts.push(cut));
  try {
    await runCommand(app.deps, async () => ({ disconnectRooms: ['user:someone'] }));
    await runCommand(app.deps, async () => {
      if (cuts.length) throw new Error('failed command');
      return { disconnectRooms: ['user:never'] };
    }).catch(() => {});
  } finally {
    stop();
  }
  t.deepEqual(
    cuts.map((c) => c.rooms),
    [['user:someone']],
  );
});

const outsideRow = z.object({ outside: z.boolean() });

test.serial('oneStatement runs the command on the pool, outside any transaction', async (t) => {
  const inTransaction = await runCommand(
    app.deps,
    async (q) => ({ open: (await q.one(sql.type(outsideRow)`select now() = statement_timestamp() as outside`)).outside }),
    { oneStatement: true },
  );
  // Inside a transaction now() is the transaction's start, before this statement's own time.
  t.true(inTransaction.open);
  const wrapped = await runCommand(app.deps, async (q) => {
    await q.query(sql.unsafe`select pg_sleep(0.01)`);
    return { open: (await q.one(sql.type(outsideRow)`select now() = statement_timestamp() as outside`)).outside };
  });
  t.false(wrapped.open);
});
