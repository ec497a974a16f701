/**
 * graphile-worker 0.18 checks that its pool is active before a worker fetches a job, not after:
 * a fetch under way when the graceful shutdown begins (waiting for a connection, or for the
 * database on a loaded machine) may still lock a job added meanwhile, and the worker then runs
 * it although the pool is stopping. The guard hands such a job back before its task starts:
 * unlocked, its attempt not counted, for the next worker. (The worker's own failure record
 * that follows matches nothing: it only touches jobs still locked by the pool.)
 */
import type { Job, WorkerEvents } from 'graphile-worker';
import type { Db } from '../core/adapters/postgres/db.ts';
import { handBackJob } from '../core/adapters/graphile-internals.ts';

/** Call with a job about to run: true when its pool is shutting down and the job was handed back. */
export type ShutdownGuard = (job: Job) => Promise<boolean>;

export function shutdownGuard(db: Db, events: WorkerEvents): ShutdownGuard {
  const closing = new Set<string>();
  events.on('pool:gracefulShutdown', ({ workerPool }) => closing.add(workerPool.id));
  events.on('pool:release', ({ workerPool }) => closing.delete(workerPool.id));
  return async (job) => {
    if (!job.locked_by || !closing.has(job.locked_by)) return false;
    await handBackJob(db, job.id, job.locked_by);
    return true;
  };
}
