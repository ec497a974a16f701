/**
 * The worker runner: WORKER_TASKS restriction, the crontab, and graceful shutdown. Each test
 * uses task names of its own, so the runners of concurrent tests never take each other's jobs.
 */
import test from 'ava';
import { EventEmitter } from 'node:events';
import { z } from 'zod';
import type { WorkerEvents } from 'graphile-worker';
import { sql } from '../core/adapters/postgres/db.ts';
import { addJob } from '../core/jobs.ts';
import { listFailedJobs } from '../core/admin/jobs-admin.ts';
import { defineTask, type AnyTask } from '../workers/task.ts';
import { startWorker } from '../workers/main.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { waitFor } from './helpers/worker.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

type Deferred<T> = { promise: Promise<T>; resolve: (value: T) => void };
function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const jobRow = z.object({
  id: z.coerce.string(),
  task_identifier: z.string(),
  attempts: z.number(),
  locked_at: z.string().nullable(),
  last_error: z.string().nullable(),
});

function jobsOf(task: string) {
  return app.deps.db.any(sql.type(jobRow)`
    select id, task_identifier, attempts, locked_at, last_error from graphile_worker.jobs where task_identifier = ${task} order by id`);
}

function task(name: string, run: (payload: unknown) => Promise<void>): AnyTask {
  return defineTask({ name, payload: z.unknown(), run: (payload) => run(payload) });
}

test('WORKER_TASKS: a worker restricted to task a never runs task b', async (t) => {
  const ran: string[] = [];
  const aDone = deferred();
  const a = task('restrict_a', async () => {
    ran.push('a');
    aDone.resolve();
  });
  const b = task('restrict_b', async () => {
    ran.push('b');
  });
  // b is older, so a worker that could run b (one job at a time) would run it before a.
  const bId = await addJob(app.deps.db, 'restrict_b', {});
  await addJob(app.deps.db, 'restrict_a', {});
  const runner = await startWorker(app.deps, { connectionString: app.databaseUrl, only: ['restrict_a'], tasks: [a, b], concurrency: 1 });
  try {
    await aDone.promise;
  } finally {
    await runner.stop();
  }
  t.deepEqual(ran, ['a']);
  t.deepEqual(await jobsOf('restrict_a'), [], 'a completed');
  const [left] = await jobsOf('restrict_b');
  t.like(left, { id: bId, attempts: 0, locked_at: null }, 'b untouched');
});

test('WORKER_TASKS naming an unknown task stops the start', async (t) => {
  const a = task('unknown_a', async () => {});
  await t.throwsAsync(startWorker(app.deps, { connectionString: app.databaseUrl, only: ['unknown_a', 'nope'], tasks: [a] }), {
    message: 'WORKER_TASKS names unknown tasks: nope',
  });
  await t.throwsAsync(startWorker(app.deps, { connectionString: app.databaseUrl, tasks: [a], crontab: [{ task: 'nope', match: '* * * * *' }] }), {
    message: 'crontab names unknown tasks: nope',
  });
});

test('graceful shutdown: stop() stops taking jobs and waits for the running job to finish', async (t) => {
  const started = deferred();
  const release = deferred();
  const order: string[] = [];
  const slow = task('shutdown_slow', async () => {
    started.resolve();
    await release.promise;
    order.push('job finished');
  });
  const later = task('shutdown_later', async () => {
    order.push('later ran');
  });
  const events: WorkerEvents = new EventEmitter();
  const shuttingDown = deferred();
  events.on('pool:gracefulShutdown', () => shuttingDown.resolve());
  const runner = await startWorker(app.deps, { connectionString: app.databaseUrl, tasks: [slow, later], concurrency: 2, events });
  const slowId = await addJob(app.deps.db, 'shutdown_slow', {});
  await started.promise;

  let stopped = false;
  const stopping = runner.stop().then(() => {
    stopped = true;
    order.push('stopped');
  });
  await shuttingDown.promise;
  // Shutting down: a new job is not taken although a slot is free.
  const laterId = await addJob(app.deps.db, 'shutdown_later', {});
  t.false(stopped, 'stop() waits while a job runs');
  const [running] = await jobsOf('shutdown_slow');
  t.like(running, { id: slowId, attempts: 1 });
  t.truthy(running.locked_at, 'the running job is locked by the worker');

  release.resolve();
  await stopping;
  t.deepEqual(order, ['job finished', 'stopped']);
  t.deepEqual(await jobsOf('shutdown_slow'), [], 'the job completed; it is not left locked or failed');
  const [waiting] = await jobsOf('shutdown_later');
  t.like(waiting, { id: laterId, attempts: 0, locked_at: null }, 'the job added during shutdown waits for the next worker');
});

test('graceful shutdown: a job whose fetch was under way when stop() began is returned to the queue, not run', async (t) => {
  const started = deferred();
  const release = deferred();
  const ran: string[] = [];
  const slow = task('fetch_race_slow', async () => {
    started.resolve();
    await release.promise;
  });
  const late = task('fetch_race_late', async () => {
    ran.push('late ran');
  });
  const events: WorkerEvents = new EventEmitter();
  const shuttingDown = deferred();
  events.on('pool:gracefulShutdown', () => shuttingDown.resolve());
  const runner = await startWorker(app.deps, { connectionString: app.databaseUrl, tasks: [slow, late], concurrency: 2, pollInterval: 50, events });
  await addJob(app.deps.db, 'fetch_race_slow', {});
  await started.promise;
  let stopping: Promise<void> | undefined;
  // The idle worker's next fetch (select … for update) waits behind this lock, so it reads the
  // jobs only after this transaction commits: the slow machine's race, made certain.
  const lateId = await app.deps.db.transaction(async (tx) => {
    await tx.query(sql.unsafe`lock table graphile_worker._private_jobs in exclusive mode`);
    await waitFor(
      async () => {
        const [row] = await app.sql(`select count(*)::int as n from pg_locks where relation = 'graphile_worker._private_jobs'::regclass and not granted`);
        return row.n > 0;
      },
      20_000,
      "the idle worker's fetch to wait on the lock",
    );
    stopping = runner.stop();
    await shuttingDown.promise;
    return addJob(tx, 'fetch_race_late', {});
  });
  release.resolve();
  await stopping;
  t.deepEqual(ran, [], 'the job fetched during shutdown did not run');
  const [waiting] = await jobsOf('fetch_race_late');
  t.like(waiting, { id: lateId, attempts: 0, locked_at: null }, 'it waits, unlocked and with no attempt spent, for the next worker');
});

test('a runner whose pool ends on its own (as when PostgreSQL restarts) is started again, and the dead pool stops beating', async (t) => {
  const ran = deferred();
  const after = task('restart_after', async () => ran.resolve());
  const events: WorkerEvents = new EventEmitter();
  const pools: { id: string; forcefulShutdown: (message: string) => unknown }[] = [];
  events.on('pool:create', ({ workerPool }) => pools.push(workerPool));
  const released = deferred();
  events.on('pool:release', () => released.resolve());
  const runner = await startWorker(app.deps, { connectionString: app.databaseUrl, tasks: [after], events, restartDelay: 50 });
  try {
    await Promise.resolve(pools[0].forcefulShutdown('simulated: could not record a job')).catch(() => {});
    await released.promise;
    await waitFor(async () => pools.length === 2, 20_000, 'a new pool');
    t.is(runner.restarts, 1);
    await addJob(app.deps.db, 'restart_after', {});
    await ran.promise;
    await waitFor(async () => (await jobsOf('restart_after')).length === 0, 20_000, 'the job to be recorded as done');
    // The ended pool, holding no job, stops beating and its row goes (it would be kept fresh forever otherwise).
    await waitFor(
      async () => (await app.sql('select 1 from worker_heartbeats where worker_id = $1', [pools[0].id])).length === 0,
      20_000,
      "the ended pool's heartbeat to go",
    );
    t.pass();
  } finally {
    await runner.stop();
  }
});

test('crontab: entries of the tasks a process runs are scheduled (backfilled here, so no waiting for a minute)', async (t) => {
  const ticked = deferred<any>();
  const tick = task('cron_tick', async (payload) => ticked.resolve(payload));
  // Known since an hour, last run ten minutes ago: the start backfills the ticks of the last three minutes.
  await app.deps.db.query(sql.unsafe`
    insert into graphile_worker._private_known_crontabs (identifier, known_since, last_execution)
    values ('cron_tick', now() - interval '1 hour', now() - interval '10 minutes')`);
  const events: WorkerEvents = new EventEmitter();
  const cronStarted = deferred();
  events.on('cron:started', () => cronStarted.resolve());
  const runner = await startWorker(app.deps, {
    connectionString: app.databaseUrl,
    tasks: [tick],
    crontab: [{ task: 'cron_tick', match: '* * * * *', identifier: 'cron_tick', options: { backfillPeriod: 3 * 60_000 } }],
    events,
  });
  try {
    await cronStarted.promise;
    const payload = await ticked.promise;
    t.true(payload._cron.backfilled);
  } finally {
    await runner.stop();
  }
});

test('crontab: a process restricted to other tasks does not schedule the entry', async (t) => {
  const tick = task('cron_skipped', async () => {});
  const other = task('cron_other', async () => {});
  await app.deps.db.query(sql.unsafe`
    insert into graphile_worker._private_known_crontabs (identifier, known_since, last_execution)
    values ('cron_skipped', now() - interval '1 hour', now() - interval '10 minutes')`);
  const events: WorkerEvents = new EventEmitter();
  const cronStarted = deferred();
  events.on('cron:started', () => cronStarted.resolve());
  const runner = await startWorker(app.deps, {
    connectionString: app.databaseUrl,
    tasks: [tick, other],
    only: ['cron_other'],
    crontab: [{ task: 'cron_skipped', match: '* * * * *', identifier: 'cron_skipped', options: { backfillPeriod: 3 * 60_000 } }],
    events,
  });
  try {
    await cronStarted.promise; // after the backfill it would have done
  } finally {
    await runner.stop();
  }
  t.deepEqual(await jobsOf('cron_skipped'), []);
});

test('a payload that fails the task schema fails for good, with the parse error, and is not retried', async (t) => {
  const failed = deferred();
  const succeeded = deferred();
  const ran: unknown[] = [];
  const strict = defineTask({ name: 'strict_payload', payload: z.object({ n: z.number() }), run: async (p) => void ran.push(p) });
  const events: WorkerEvents = new EventEmitter();
  // job:error, not job:failed: graphile-worker decides that from the attempts it read at fetch.
  events.on('job:error', () => failed.resolve());
  events.on('job:success', () => succeeded.resolve());
  const bad = await addJob(app.deps.db, 'strict_payload', { n: 'one' });
  await addJob(app.deps.db, 'strict_payload', { n: 1 });
  const runner = await startWorker(app.deps, { connectionString: app.databaseUrl, tasks: [strict], concurrency: 1, events });
  try {
    await Promise.all([failed.promise, succeeded.promise]);
  } finally {
    await runner.stop();
  }
  t.deepEqual(ran, [{ n: 1 }]);
  // Left behind for the operator: `parley jobs failed` lists it with the reason.
  const [job] = await jobsOf('strict_payload');
  t.is(job?.id, String(bad));
  t.is(job?.locked_at, null);
  t.regex(job?.last_error ?? '', /invalid strict_payload payload: n: /);
  const failedJobs = await listFailedJobs(app.deps.db, { task: 'strict_payload' });
  t.deepEqual(
    failedJobs.map((j) => j.id),
    [String(bad)],
  );
  t.is(failedJobs[0]!.attempts, failedJobs[0]!.max_attempts);
});
