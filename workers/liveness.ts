/**
 * Worker liveness. graphile-worker releases the jobs of a worker that died without a graceful
 * stop (SIGKILL, OOM, a lost machine) only after four hours. Each process therefore records a
 * heartbeat for its workers every `timeout / 4` seconds, and any process that finds heartbeats
 * older than `timeout` unlocks those workers' jobs (graphile_worker.force_unlock_workers), so
 * they run again within about a minute. A worker that is merely slow keeps beating: its jobs
 * are never taken from it.
 */
import type { WorkerEvents } from 'graphile-worker';
import { z } from 'zod';
import { sql, type Db } from '../core/db.ts';
import type { Logger } from '../core/logger.ts';

export type Liveness = { stop: () => Promise<void> };

export function trackLiveness(db: Db, events: WorkerEvents, timeoutSeconds: number, logger: Logger): Liveness {
  const ids = new Set<string>();
  let running: Promise<void> = Promise.resolve();
  let stopped = false;

  const beat = async () => {
    if (stopped) return;
    try {
      if (ids.size > 0) {
        await db.query(sql.unsafe`
          insert into worker_heartbeats (worker_id, seen_at)
          select id, now() from unnest(${sql.array([...ids], 'text')}) as id
          on conflict (worker_id) do update set seen_at = now()`);
      }
      const dead = await db.anyFirst(sql.type(z.object({ worker_id: z.string() }))`
        delete from worker_heartbeats
        where seen_at < now() - make_interval(secs => ${timeoutSeconds})
        returning worker_id`);
      if (dead.length > 0) {
        await db.query(sql.unsafe`select graphile_worker.force_unlock_workers(${sql.array([...dead], 'text')})`);
        logger.warn({ workers: dead }, 'unlocked the jobs of workers that stopped beating');
      }
    } catch (error) {
      logger.warn({ err: error }, 'worker heartbeat failed');
    }
  };

  // Jobs are locked under the pool's id when jobs are fetched in batches, else the worker's.
  const track = (id: string) => {
    ids.add(id);
    running = running.then(beat);
  };
  events.on('pool:create', ({ workerPool }) => track(workerPool.id));
  events.on('worker:create', ({ worker }) => track(worker.workerId));
  const timer = setInterval(() => {
    running = running.then(beat);
  }, Math.max(250, (timeoutSeconds * 1000) / 4));
  timer.unref();

  return {
    stop: async () => {
      clearInterval(timer);
      await running;
      stopped = true;
      if (ids.size > 0) {
        await db.query(sql.unsafe`delete from worker_heartbeats where worker_id = any(${sql.array([...ids], 'text')})`).catch(() => {});
      }
    },
  };
}
