/**
 * Worker liveness. graphile-worker releases the jobs of a worker that died without a graceful
 * stop (SIGKILL, OOM, a lost machine) only after four hours. Each process therefore records a
 * heartbeat for its workers every `timeout / 4` seconds, and any process that finds heartbeats
 * older than `timeout` unlocks those workers' jobs (graphile_worker.force_unlock_workers), so
 * they run again within about a minute. A worker that is merely slow keeps beating: its jobs
 * are never taken from it.
 *
 * A pool that ends (stop(), or on its own after a database error) stops beating at once; so
 * does one the supervisor gives up on while it is still ending (supervisor.ts). Its
 * rows are deleted only when it holds no job; otherwise they age out, and the jobs it left
 * locked (a completion it could not record) are released like a dead worker's. Jobs locked
 * longer than the timeout by an id that has no heartbeat at all (its beats all failed) are
 * released the same way.
 */
import type { WorkerEvents } from 'graphile-worker';
import { z } from 'zod';
import { sql, type Db } from '../core/adapters/postgres/db.ts';
import type { Logger } from '../core/adapters/logger.ts';
import { holdsJobs, staleLockHolders } from '../core/adapters/graphile-internals.ts';

export type Liveness = {
  /** Stops beating for a pool (and its workers) that will run no job again, before it has ended. */
  forgetPool: (poolId: string) => Promise<void>;
  stop: () => Promise<void>;
};

export function trackLiveness(db: Db, events: WorkerEvents, timeoutSeconds: number, logger: Logger): Liveness {
  /** Every id jobs may be locked under (pools and their workers), with the pool it belongs to. */
  const poolOf = new Map<string, string>();
  let running: Promise<void> = Promise.resolve();
  let stopped = false;

  const beat = async () => {
    if (stopped) return;
    try {
      if (poolOf.size > 0) {
        await db.query(sql.unsafe`
          insert into worker_heartbeats (worker_id, seen_at)
          select id, now() from unnest(${sql.array([...poolOf.keys()], 'text')}) as id
          on conflict (worker_id) do update set seen_at = now()`);
      }
      // Dead: stopped beating. Orphans: hold jobs locked longer than the timeout but never
      // recorded a beat (a pool created while the database was cutting connections, whose
      // every beat failed, then given up): nobody would ever release their jobs otherwise.
      const dead = await db.anyFirst(sql.type(z.object({ worker_id: z.string() }))`
        with dead as (
          delete from worker_heartbeats
          where seen_at < now() - make_interval(secs => ${timeoutSeconds})
          returning worker_id
        )
        select worker_id from dead
        union
        select stale.locked_by from (${staleLockHolders(timeoutSeconds)}) as stale
        where not exists (select 1 from worker_heartbeats h where h.worker_id = stale.locked_by)`);
      if (dead.length > 0) {
        await db.query(sql.unsafe`select graphile_worker.force_unlock_workers(${sql.array([...dead], 'text')})`);
        logger.warn({ workers: dead }, 'unlocked the jobs of workers that stopped beating');
      }
    } catch (error) {
      logger.warn({ err: error }, 'worker heartbeat failed');
    }
  };
  const enqueue = (step: () => Promise<void>) => {
    running = running.then(step);
    return running;
  };

  /** Stops beating for these ids; forgets the rows of those that hold no job. */
  const forget = (ids: string[]) =>
    enqueue(async () => {
      for (const id of ids) poolOf.delete(id);
      await db
        .query(sql.unsafe`
          delete from worker_heartbeats h where worker_id = any(${sql.array(ids, 'text')})
          and not ${holdsJobs(sql.fragment`h.worker_id`)}`)
        .catch((error) => logger.warn({ err: error }, 'could not remove the heartbeats of a stopped worker pool'));
    });

  // Jobs are locked under the pool's id when jobs are fetched in batches, else the worker's.
  events.on('pool:create', ({ workerPool }) => {
    poolOf.set(workerPool.id, workerPool.id);
    void enqueue(beat);
  });
  events.on('worker:create', ({ worker }) => {
    poolOf.set(worker.workerId, worker.workerPool.id);
    void enqueue(beat);
  });
  const forgetPool = (poolId: string) => forget([...poolOf].filter(([, pool]) => pool === poolId).map(([id]) => id));
  events.on('pool:release', ({ workerPool }) => void forgetPool(workerPool.id));
  const timer = setInterval(() => void enqueue(beat), Math.max(250, (timeoutSeconds * 1000) / 4));
  timer.unref();

  return {
    forgetPool,
    stop: async () => {
      clearInterval(timer);
      await forget([...poolOf.keys()]);
      stopped = true;
    },
  };
}
