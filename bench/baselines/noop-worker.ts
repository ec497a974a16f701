/**
 * Baseline of job throughput: graphile-worker with one task, `bench_noop`, that does nothing,
 * with Parley's concurrency (WORKER_CONCURRENCY, default 5), poll interval and batching.
 * Prints "ready" once the runner is up.
 */
import { run } from 'graphile-worker';

const runner = await run({
  connectionString: process.env.DATABASE_URL!,
  concurrency: Number(process.env.WORKER_CONCURRENCY ?? 5),
  noHandleSignals: true,
  pollInterval: 1000,
  preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
  taskList: { bench_noop: async () => {} },
});
console.log('ready');
process.on('SIGTERM', () => runner.stop().then(() => process.exit(0)));
