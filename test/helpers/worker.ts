/**
 * The real worker (graphile-worker with Parley's tasks) against a test app's database, and
 * waiting helpers for tests that need jobs to have run.
 */
import test from 'ava';
import type { SupervisedRunner } from '../../workers/supervisor.ts';
import type pg from 'pg';
import { startWorker } from '../../workers/main.ts';
import type { AnyTask } from '../../workers/task.ts';
import type { TestApp } from './app.ts';

export async function startTestWorker(app: TestApp, options: { tasks?: AnyTask[]; only?: string[]; concurrency?: number } = {}): Promise<SupervisedRunner> {
  return startWorker(app.deps, {
    connectionString: app.databaseUrl,
    concurrency: options.concurrency ?? 4,
    pollInterval: 100,
    tasks: options.tasks,
    // The event pipeline arms every reaction (core/events/pipeline.ts): a worker limited to some tasks runs it too.
    only: options.only ? [...new Set([...options.only, 'handle_events', 'retry_subscriber'])] : undefined,
  });
}

/**
 * A worker a test starts when it needs one (`await runWorker()`, idempotent) and that is
 * stopped after each test, so every test begins with no worker running. Call at file level.
 */
export function workerPerTest(getApp: () => TestApp): () => Promise<void> {
  let worker: SupervisedRunner | null = null;
  test.afterEach.always(async () => {
    await worker?.stop();
    worker = null;
  });
  return async () => {
    worker ??= await startTestWorker(getApp());
  };
}

/** Polls `check` until it returns a truthy value (or throws after `timeoutMs`). */
export async function waitFor<T>(check: () => Promise<T | null | undefined | false>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One SQL query against the test database: `app.sql`, under the name the e2e tests use. */
export async function query<R extends pg.QueryResultRow = any>(app: TestApp, text: string, values: unknown[] = []): Promise<R[]> {
  return app.sql<R>(text, values);
}

/** What graphile-worker's getJobs does to a job it takes: lock it for `workerId` and count the attempt. */
export const lockAsWorker = (app: TestApp, id: string, workerId: string) =>
  app.sql(`update graphile_worker._private_jobs set locked_by = $2, locked_at = now(), attempts = attempts + 1 where id = $1::bigint`, [id, workerId]);
