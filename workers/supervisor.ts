/**
 * Keeps a graphile-worker runner running. A runner ends on its own when its pool gives up, e.g.
 * it could not record a finished job because PostgreSQL was restarting ("the database system
 * is shutting down"). The process would go on serving the API and never run a job again; so
 * a runner whose pool begins a shutdown nobody asked for is replaced: a new one starts after
 * 1 s, doubling up to 30 s while starting fails (the database still down). The old one is not
 * waited for: its teardown may hang for minutes (retrying writes, a pg pool waiting for a
 * broken client) while no job runs. Its heartbeat stops at once (`onAbandon`), so a job it
 * left locked is released after WORKER_LIVENESS_TIMEOUT.
 */
import type { Runner, WorkerEvents } from 'graphile-worker';
import type { Logger } from '../core/adapters/logger.ts';

export type SupervisedRunner = {
  /** Stops the current runner gracefully (running jobs finish) and starts no other. */
  stop: () => Promise<void>;
  /** How many times a runner was started again after ending on its own. */
  readonly restarts: number;
};

export type SupervisorOptions = {
  logger: Logger;
  /** The runners' event emitter (passed to run()): pool starts and shutdowns are watched there. */
  events: WorkerEvents;
  /** Called with the id of a pool that shut down on its own and is being replaced. */
  onAbandon?: (poolId: string) => void;
  /** First wait before a restart, in ms (default 1,000); doubles while starting fails. */
  minDelayMs?: number;
  /** Longest wait between restart attempts, in ms (default 30,000). */
  maxDelayMs?: number;
};

/** Starts a runner with `start` (a failure of the first start is thrown) and restarts it whenever it ends on its own. */
export async function superviseRunner(start: () => Promise<Runner>, options: SupervisorOptions): Promise<SupervisedRunner> {
  const { logger, events, onAbandon = () => {}, minDelayMs = 1000, maxDelayMs = 30_000 } = options;
  // Runners start one at a time, so the latest pool created is the current runner's.
  let currentPool: string | null = null;
  events.on('pool:create', ({ workerPool }) => (currentPool = workerPool.id));
  let current: Runner | null = await start();
  let starting: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let restarts = 0;

  // A runner that ended meanwhile answers "Runner is already stopped": nothing is left to stop.
  const stopQuietly = (runner: Runner) =>
    runner.stop().catch((error: Error) => {
      if (!/already stopped/.test(error.message)) throw error;
    });

  const restartLater = (delayMs: number) => {
    timer = setTimeout(() => {
      timer = null;
      starting = start().then(
        (runner) => {
          restarts++;
          if (stopped) return stopQuietly(runner);
          logger.info({ restarts }, 'worker runner started again');
          watch(runner);
        },
        (error) => {
          logger.error({ err: error, retry_in_ms: Math.min(delayMs * 2, maxDelayMs) }, 'worker runner could not start again');
          if (!stopped) restartLater(Math.min(delayMs * 2, maxDelayMs));
        },
      );
      void starting.finally(() => (starting = null));
    }, delayMs);
  };

  const replace = (runner: Runner, reason: unknown) => {
    if (stopped || current !== runner) return;
    current = null;
    logger.error({ err: reason, retry_in_ms: minDelayMs }, 'worker runner stopped on its own: starting another');
    // Its pool is already ending; stopping the runner also ends its crontab timer and, once the pool is done, its connections.
    stopQuietly(runner).catch((error) => logger.warn({ err: error }, 'the replaced worker runner did not stop cleanly'));
    restartLater(minDelayMs);
  };
  events.on('pool:gracefulShutdown', ({ workerPool, message }) => {
    if (stopped || workerPool.id !== currentPool || !current) return;
    onAbandon(workerPool.id);
    replace(current, message);
  });

  // graphile-worker 0.18 looks up its task ids once per runner and caches the promise
  // (taskIdentifiers.ts getTaskDetails): when that first lookup fails (its connection cut),
  // the cache keeps the rejected promise, and every later job fetch of that runner fails with
  // the very same error object, forever, while the database is fine. A fetch failing anew gets
  // a new error; the same object twice in a row is that poisoned cache, and only a new runner
  // (new options, new cache) fetches jobs again. (Seen under pg_terminate_backend storms:
  // test/reliability/pg-terminate.rel.ts.)
  let lastFetchError: unknown = null;
  let retiredPool: string | null = null;
  events.on('worker:getJob:error', ({ worker, error }) => {
    const again = error === lastFetchError;
    lastFetchError = error;
    if (!again || stopped || worker.workerPool.id !== currentPool || retiredPool === currentPool) return;
    retiredPool = currentPool;
    logger.warn({ err: error }, 'worker runner cached a failed task lookup: replacing it');
    worker.workerPool.gracefulShutdown('graphile-worker cached a failed task lookup; a new runner takes over');
  });

  const watch = (runner: Runner) => {
    current = runner;
    runner.promise.then(
      () => replace(runner, 'worker pool exited'),
      (error) => replace(runner, error),
    );
  };
  watch(current);

  return {
    get restarts() {
      return restarts;
    },
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await starting;
      const runner = current;
      current = null;
      if (runner) await stopQuietly(runner);
    },
  };
}
