/**
 * The worker process: a graphile-worker runner with every task (or those WORKER_TASKS names)
 * and the crontab entries of those tasks. Payloads are checked with each task's zod schema.
 *
 * runner.stop() is the graceful shutdown: the pool stops taking jobs at once and waits for the
 * running ones to finish; `shutdownAbortTimeout` ms into it, tasks see `helpers.abortSignal`
 * fire (a task that honours it fails its attempt and is retried later, never lost). A job
 * fetched while the pool was already stopping is handed back unrun (shutdown-guard.ts), and a
 * runner that ends on its own is started again (supervisor.ts).
 */
import { EventEmitter } from 'node:events';
import { parseCronItems, run, type CronItem, type Runner, type TaskList, type WorkerEvents } from 'graphile-worker';
import pg from 'pg';
import type { Deps } from '../core/deps.ts';
import { workerLogger } from '../core/adapters/worker-logger.ts';
import { assertGraphileWorkerVersion, makeLastAttempt } from '../core/adapters/graphile-internals.ts';
import { crontab as defaultCrontab } from './crontab.ts';
import { allTasks } from './tasks/index.ts';
import { trackLiveness } from './liveness.ts';
import { shutdownGuard, type ShutdownGuard } from './shutdown-guard.ts';
import { superviseRunner, type SupervisedRunner } from './supervisor.ts';
import type { AnyTask } from './task.ts';

export type WorkerOptions = {
  connectionString: string;
  concurrency?: number;
  /** Restrict to these task names (default: all). */
  only?: string[];
  /** The tasks available (default: every task in tasks/index.ts). */
  tasks?: AnyTask[];
  /**
   * Recurring jobs (default: workers/crontab.ts, or none when `tasks` is given); only entries
   * whose task this process runs are scheduled.
   */
  crontab?: CronItem[];
  /** Poll interval in ms (graphile-worker also listens for new jobs). */
  pollInterval?: number;
  /** Ms after stop() begins before running tasks' abort signal fires (default 20,000). */
  shutdownAbortTimeout?: number;
  /** graphile-worker's event emitter (job and cron events), for callers that watch the runner from its start. */
  events?: WorkerEvents;
  /** Ms before a runner that ended on its own is started again (default 1,000; doubles while it fails). */
  restartDelay?: number;
};

export function buildTaskList(deps: Deps, tasks: AnyTask[], handBack?: ShutdownGuard): TaskList {
  const list: TaskList = {};
  for (const task of tasks) {
    list[task.name] = async (raw, helpers) => {
      // Thrown, not returned: a returned job would be recorded as done (deleted).
      if (await handBack?.(helpers.job)) throw new Error('worker pool is stopping: job handed back to the queue unrun');
      const parsed = task.payload.safeParse(raw);
      if (!parsed.success) {
        // Failed for good, not dropped: `parley jobs failed` shows it with the parse error, and
        // `parley jobs show` its payload. Retrying the same payload would fail the same way.
        const detail = parsed.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`).join('; ');
        deps.logger.error({ task: task.name, job_id: helpers.job.id, issues: parsed.error.issues }, 'invalid job payload: failed for good');
        if (helpers.job.locked_by) await makeLastAttempt(deps.db, helpers.job.id, helpers.job.locked_by);
        throw new Error(`invalid ${task.name} payload: ${detail}`);
      }
      await task.run(parsed.data, deps, helpers);
    };
  }
  return list;
}

/**
 * Runs a runner on a pg pool of its own, ended when the runner is done. graphile-worker's own
 * pool loses its error handlers as soon as its runner stops, before the pool has ended: a
 * connection cut by PostgreSQL in between was an uncaught error that killed the process.
 */
async function runWithOwnPool(connectionString: string, deps: Deps, start: (pgPool: pg.Pool) => Promise<Runner>): Promise<Runner> {
  const pgPool = new pg.Pool({ connectionString, max: 10 });
  const warn = (error: Error) => deps.logger.warn({ err: error }, 'worker database connection error');
  pgPool.on('error', warn);
  pgPool.on('connect', (client) => client.on('error', warn));
  try {
    const runner = await start(pgPool);
    runner.promise.finally(() => pgPool.end()).catch(() => {});
    return runner;
  } catch (error) {
    await pgPool.end();
    throw error;
  }
}

export async function startWorker(deps: Deps, options: WorkerOptions): Promise<SupervisedRunner> {
  assertGraphileWorkerVersion();
  const available = options.tasks ?? allTasks;
  const only = options.only;
  if (only) {
    const unknown = only.filter((name) => !available.some((t) => t.name === name));
    if (unknown.length) throw new Error(`WORKER_TASKS names unknown tasks: ${unknown.join(', ')}`);
  }
  const tasks = only ? available.filter((t) => only.includes(t.name)) : available;
  // The registered crontab belongs to the registered tasks; a caller's own task list brings its own.
  const crontab = options.crontab ?? (options.tasks ? [] : defaultCrontab);
  const unknownCron = crontab.filter((item) => !available.some((t) => t.name === item.task));
  if (unknownCron.length) throw new Error(`crontab names unknown tasks: ${unknownCron.map((i) => i.task).join(', ')}`);
  const events = options.events ?? (new EventEmitter() as WorkerEvents);
  const liveness = trackLiveness(deps.db, events, deps.config.WORKER_LIVENESS_TIMEOUT, deps.logger);
  const taskList = buildTaskList(deps, tasks, shutdownGuard(deps.db, events));
  const parsedCronItems = parseCronItems(crontab.filter((item) => tasks.some((t) => t.name === item.task)));
  const start = () =>
    runWithOwnPool(options.connectionString, deps, (pgPool) =>
      run({
        pgPool,
        concurrency: options.concurrency ?? deps.config.WORKER_CONCURRENCY,
        noHandleSignals: true,
        pollInterval: options.pollInterval ?? 1000,
        gracefulShutdownAbortTimeout: options.shutdownAbortTimeout ?? 20_000,
        logger: workerLogger(deps.logger),
        // Unbatched, graphile-worker 0.18 records a finished job without awaiting it, and stop()
        // ends its pool meanwhile: a job that finished during shutdown stayed locked (run again
        // four hours later). Batched, the pending writes are flushed before the pool ends; a delay
        // of 0 ms batches only what finishes in the same tick.
        preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
        events,
        taskList,
        parsedCronItems,
      }),
    );
  const runner = await superviseRunner(start, {
    logger: deps.logger,
    events,
    onAbandon: (poolId) => void liveness.forgetPool(poolId),
    minDelayMs: options.restartDelay,
  }).catch(async (error) => {
    await liveness.stop();
    throw error;
  });
  // The heartbeat goes on while running jobs finish, and ends with the runner.
  return {
    get restarts() {
      return runner.restarts;
    },
    stop: async () => {
      try {
        await runner.stop();
      } finally {
        await liveness.stop();
      }
    },
  };
}
