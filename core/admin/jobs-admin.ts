/**
 * Job administration for operators (`parley jobs …`): read graphile-worker's queue and revive
 * failed jobs. Reads go through the `graphile_worker.jobs` view (the payload and job existence
 * through core/adapters/graphile-internals.ts); writes through WorkerUtils.
 *
 * States: `running` = locked by a live worker (a lock older than four hours is a dead worker's,
 * which graphile-worker itself ignores); `failed` = attempts used up (attempts >= max_attempts)
 * and not running (a job on its last attempt has attempts = max_attempts while it runs);
 * `scheduled` = waiting for a later run_at (a retry's backoff or a future job); `queued` = due now.
 */
import type { WorkerUtils } from 'graphile-worker';
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { existingJobIds, jobPayload } from '../adapters/graphile-internals.ts';

const jobSummary = z.object({
  id: z.coerce.string(),
  task: z.string(),
  state: z.enum(['queued', 'scheduled', 'running', 'failed']),
  attempts: z.number(),
  max_attempts: z.number(),
  /** The last attempt's error (graphile-worker stores the message and the stack); null if none. */
  last_error: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  /** When the job runs next (for a retry: after its backoff). */
  run_at: z.string(),
});
export type JobSummary = z.infer<typeof jobSummary>;

const jobDetail = jobSummary.extend({
  queue_name: z.string().nullable(),
  priority: z.number(),
  key: z.string().nullable(),
  locked_at: z.string().nullable(),
  locked_by: z.string().nullable(),
  revision: z.number(),
  flags: z.record(z.string(), z.unknown()).nullable(),
  payload: z.unknown(),
});
export type JobDetail = z.infer<typeof jobDetail>;

const taskStats = z.object({ task: z.string(), queued: z.number(), running: z.number(), failed: z.number() });
/** Jobs of one task by state; `queued` includes scheduled ones (retries waiting for their backoff). */
export type TaskStats = z.infer<typeof taskStats>;

const running = sql.fragment`(j.locked_at is not null and j.locked_at > now() - interval '4 hours')`;
const failed = sql.fragment`(j.attempts >= j.max_attempts and not ${running})`;
const state = sql.fragment`case when ${running} then 'running' when ${failed} then 'failed' when j.run_at > now() then 'scheduled' else 'queued' end`;
const summaryColumns = sql.fragment`
  j.id, j.task_identifier as task, ${state} as state, j.attempts, j.max_attempts, j.last_error, j.created_at, j.updated_at, j.run_at`;

/** Whether graphile-worker's schema exists (a database `parley migrate` never ran on has none). */
export async function hasJobQueue(db: Queryable): Promise<boolean> {
  const row = await db.one(sql.type(z.object({ present: z.boolean() }))`select to_regclass('graphile_worker.jobs') is not null as present`);
  return row.present;
}

/** Permanently failed jobs, most recently failed first. */
export async function listFailedJobs(db: Queryable, filter: { task?: string } = {}): Promise<JobSummary[]> {
  const rows = await db.any(sql.type(jobSummary)`
    select ${summaryColumns} from graphile_worker.jobs j
    where ${failed} ${filter.task ? sql.fragment`and j.task_identifier = ${filter.task}` : sql.fragment``}
    order by j.updated_at desc, j.id desc`);
  return [...rows];
}

/** Jobs that failed at least once and will run again (attempts left, not running), next first. */
export async function listRetryingJobs(db: Queryable, filter: { task?: string } = {}): Promise<JobSummary[]> {
  const rows = await db.any(sql.type(jobSummary)`
    select ${summaryColumns} from graphile_worker.jobs j
    where j.attempts > 0 and j.attempts < j.max_attempts and not ${running}
      ${filter.task ? sql.fragment`and j.task_identifier = ${filter.task}` : sql.fragment``}
    order by j.run_at, j.id`);
  return [...rows];
}

export async function findJob(db: Queryable, id: string): Promise<JobDetail | null> {
  return db.maybeOne(sql.type(jobDetail)`
    select ${summaryColumns}, j.queue_name, j.priority, j.key, j.locked_at, j.locked_by, j.revision, j.flags, ${jobPayload(sql.fragment`j.id`)} as payload
    from graphile_worker.jobs j
    where j.id = ${id}::bigint`);
}

export async function jobStats(db: Queryable): Promise<TaskStats[]> {
  const rows = await db.any(sql.type(taskStats)`
    select j.task_identifier as task,
      count(*) filter (where not ${running} and not ${failed})::int as queued,
      count(*) filter (where ${running})::int as running,
      count(*) filter (where ${failed})::int as failed
    from graphile_worker.jobs j
    group by j.task_identifier
    order by j.task_identifier`);
  return [...rows];
}

export type RetryResult = {
  /** Rescheduled to run now with their attempts reset. */
  retried: string[];
  /** Locked by a live worker: left alone. */
  running: string[];
  /** No such job (completed jobs are deleted, so also every job that has since succeeded). */
  missing: string[];
};

/**
 * Runs the jobs again now with a fresh set of attempts (any state but running). Calls the SQL
 * function behind WorkerUtils.rescheduleJobs directly: rescheduleJobs passes
 * `options.attempts || null`, so `attempts: 0` is dropped and a failed job would stay failed.
 */
export async function retryJobs(utils: WorkerUtils, ids: string[]): Promise<RetryResult> {
  const unique = [...new Set(ids)];
  return utils.withPgClient(async (client) => {
    const found = await existingJobIds(client, unique);
    const rescheduled = await client.query<{ id: string }>(
      'select id::text from graphile_worker.reschedule_jobs($1::bigint[], run_at := now(), attempts := 0)',
      [unique.filter((id) => found.has(id))],
    );
    const retried = new Set(rescheduled.rows.map((r) => r.id));
    return {
      retried: unique.filter((id) => retried.has(id)),
      running: unique.filter((id) => found.has(id) && !retried.has(id)),
      missing: unique.filter((id) => !found.has(id)),
    };
  });
}

/** Retries every permanently failed job (of one task when given); returns the rescheduled ids. */
export async function retryFailedJobs(db: Queryable, utils: WorkerUtils, filter: { task?: string } = {}): Promise<string[]> {
  const failedJobs = await listFailedJobs(db, filter);
  if (!failedJobs.length) return [];
  const { retried } = await retryJobs(
    utils,
    failedJobs.map((job) => job.id),
  );
  return retried;
}
