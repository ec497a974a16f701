/**
 * Enqueueing jobs inside the caller's transaction: graphile_worker.add_job through the same
 * slonik connection, so a job exists exactly when the rows that asked for it do.
 */
import { z } from 'zod';
import { sql, type Queryable } from './db.ts';

export type JobOptions = {
  /** Deduplication key: a second add with the same key replaces the pending job. */
  jobKey?: string;
  /** Attempts before the job is left failed (default 25). */
  maxAttempts?: number;
  /** Earliest run time (default now). */
  runAt?: Date;
  queueName?: string;
  jobKeyMode?: 'replace' | 'preserve_run_at' | 'unsafe_dedupe';
};

export async function addJob(q: Queryable, task: string, payload: Record<string, unknown>, options: JobOptions = {}): Promise<string> {
  const row = await q.one(sql.type(z.object({ id: z.coerce.string() }))`
    select id from graphile_worker.add_job(
      identifier => ${task}::text,
      payload => ${JSON.stringify(payload)}::json,
      queue_name => ${options.queueName ?? null}::text,
      run_at => ${options.runAt ? options.runAt.toISOString() : null}::timestamptz,
      max_attempts => ${options.maxAttempts ?? null}::int,
      job_key => ${options.jobKey ?? null}::text,
      job_key_mode => ${options.jobKeyMode ?? 'replace'}::text
    )`);
  return row.id;
}
