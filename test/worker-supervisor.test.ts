/**
 * The worker's supervisor (workers/supervisor.ts) against a real graphile-worker and PostgreSQL:
 * a runner whose first task lookup failed keeps that failure cached (graphile-worker 0.18) and
 * would never fetch a job again; the supervisor sees the same error come back and starts a new
 * runner, which runs the job once the database answers again. And liveness (workers/liveness.ts)
 * releases a job locked by a worker that never recorded a heartbeat.
 */
import test from 'ava';
import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { WorkerEvents } from 'graphile-worker';
import { startWorker } from '../workers/main.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { query, waitFor } from './helpers/worker.ts';

let app: TestApp;

test.before(async () => {
  // Liveness beats every 0.5 s and gives up on a worker after 2 s.
  app = await startTestApp({ env: { WORKER_LIVENESS_TIMEOUT: '2' } });
});

test.after.always(async () => {
  await app?.close();
});

test.serial('a runner whose task lookup failed is replaced, and the next one runs the job', async (t) => {
  // The job exists before the lock: adding a job also touches the task table.
  await query(app, `select graphile_worker.add_job('send_email', json_build_object('to', 'pat@example.com', 'subject', 'Hello', 'text', 'Hi'))`);
  // The task table is locked and the worker's statements give up after 300 ms: its first
  // task lookup fails (query canceled, which graphile-worker does not retry).
  const locker = new pg.Client({ connectionString: app.databaseUrl });
  await locker.connect();
  await locker.query('begin');
  await locker.query('lock table graphile_worker._private_tasks in access exclusive mode');
  const events = new EventEmitter() as WorkerEvents;
  const fetchErrors: unknown[] = [];
  events.on('worker:getJob:error', ({ error }) => fetchErrors.push(error));
  const url = new URL(app.databaseUrl);
  url.searchParams.set('options', '-c statement_timeout=300');
  const worker = await startWorker(app.deps, {
    connectionString: url.toString(),
    concurrency: 1,
    pollInterval: 100,
    only: ['send_email'],
    events,
    restartDelay: 100,
  });
  try {
    // The same error object twice: the runner's cached lookup.
    await waitFor(async () => fetchErrors.some((e, i) => fetchErrors.indexOf(e) !== i), 20_000, 'a repeated job-fetch error');
    await locker.query('commit');
    await waitFor(
      async () => (await query(app, `select 1 from graphile_worker.jobs where task_identifier = 'send_email'`)).length === 0,
      20_000,
      'the job run by a new runner',
    );
    t.true(worker.restarts >= 1, `restarts: ${worker.restarts}`);
  } finally {
    await locker.end().catch(() => {});
    await worker.stop();
  }
});

test.serial('a job locked by a worker that never recorded a heartbeat is released after the timeout and runs', async (t) => {
  // As a pool created while the database cut its connections leaves it: locked, no heartbeat row.
  await query(app, `select graphile_worker.add_job('send_email', json_build_object('to', 'orphan@example.com', 'subject', 'Hello', 'text', 'Hi'))`);
  await query(
    app,
    `update graphile_worker._private_jobs set locked_by = 'pool-never-beat', locked_at = now() - interval '1 minute'
     where payload->>'to' = 'orphan@example.com'`,
  );
  const worker = await startWorker(app.deps, { connectionString: app.databaseUrl, concurrency: 1, pollInterval: 100, only: ['send_email'] });
  try {
    await waitFor(
      async () => (await query(app, `select 1 from graphile_worker._private_jobs where payload->>'to' = 'orphan@example.com'`)).length === 0,
      20_000,
      'the orphaned job run',
    );
    t.pass();
  } finally {
    await worker.stop();
  }
});
