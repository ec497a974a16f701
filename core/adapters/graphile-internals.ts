/**
 * Every place Parley relies on graphile-worker beyond its documented API: its private tables
 * (`_private_jobs`, `_private_job_queues`) and behaviour it does not promise. graphile-worker's
 * docs forbid writing those tables and warn against reading them; Parley does both where its
 * public API has no way, and does it here only, so that an upgrade is checked in one file.
 * The SQL side of the same door is migration 0085 (`graphile_job_waiting`,
 * `graphile_job_release_key`), used by the drains' arming functions.
 *
 * Written for graphile-worker 0.18.x: `assertGraphileWorkerVersion` refuses to start a worker
 * or the job CLI on another version, and test/graphile-internals.test.ts fails when an upgrade
 * changes a column, function or behaviour relied on below.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import type { FragmentSqlToken as SqlFragment } from 'slonik';
import { sql, type Queryable } from './postgres/db.ts';

/** The graphile-worker minor version this file was written against. */
export const SUPPORTED_GRAPHILE_WORKER = '0.18';

export function installedGraphileWorkerVersion(): string {
  // Its package.json is not in its exports: found beside the resolved entry point.
  let dir = dirname(fileURLToPath(import.meta.resolve('graphile-worker')));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version: string };
      if (pkg.name === 'graphile-worker') return pkg.version;
    }
    if (dirname(dir) === dir) throw new Error('graphile-worker: package.json not found');
    dir = dirname(dir);
  }
}

/** Throws a clear message when the installed graphile-worker is not the version relied on. */
export function assertGraphileWorkerVersion(version: string = installedGraphileWorkerVersion()): void {
  const [major, minor] = version.split('.');
  if (`${major}.${minor}` !== SUPPORTED_GRAPHILE_WORKER) {
    throw new Error(
      `graphile-worker ${version} is installed; Parley relies on the internals of ${SUPPORTED_GRAPHILE_WORKER}.x ` +
        '(core/adapters/graphile-internals.ts). Install graphile-worker@~0.18, or check that file against the new version and update it.',
    );
  }
}

/**
 * Hands a job its worker locked back to the queue unrun: unlocked, its attempt not counted
 * (graphile-worker counts an attempt when it locks a job). Only while `lockedBy` holds it.
 */
export async function handBackJob(q: Queryable, jobId: string, lockedBy: string): Promise<void> {
  await q.query(sql.unsafe`
    with returned as (
      update graphile_worker._private_jobs
      set attempts = greatest(0, attempts - 1), locked_by = null, locked_at = null
      where id = ${jobId} and locked_by = ${lockedBy}
      returning job_queue_id
    )
    update graphile_worker._private_job_queues q set locked_by = null, locked_at = null
    from returned where q.id = returned.job_queue_id and q.locked_by = ${lockedBy}`);
}

/**
 * Makes the attempt under way the job's last: the error its task then throws leaves it failed
 * for good (graphile-worker records the error and unlocks it; attempts stay at max_attempts),
 * shown by `parley jobs failed` and revived by `parley jobs retry`. graphile-worker 0.18 has no
 * way for a task to refuse retries; its public permanently_fail_jobs skips locked jobs.
 */
export async function makeLastAttempt(q: Queryable, jobId: string, lockedBy: string): Promise<void> {
  await q.query(sql.unsafe`
    update graphile_worker._private_jobs set attempts = max_attempts
    where id = ${jobId} and locked_by = ${lockedBy}`);
}

/** Ids that have locked jobs for longer than `timeoutSeconds` (a query: `select locked_by`). */
export const staleLockHolders = (timeoutSeconds: number): SqlFragment => sql.fragment`
  select distinct j.locked_by from graphile_worker._private_jobs j
  where j.locked_by is not null and j.locked_at < now() - make_interval(secs => ${timeoutSeconds})`;

/** A condition: the worker id in `workerId` (a column) holds a job locked. */
export const holdsJobs = (workerId: SqlFragment): SqlFragment => sql.fragment`
  exists (select 1 from graphile_worker._private_jobs j where j.locked_by = ${workerId})`;

/** A job's payload (the `jobs` view leaves it out), by the job id in `jobId` (a column). */
export const jobPayload = (jobId: SqlFragment): SqlFragment => sql.fragment`
  (select p.payload from graphile_worker._private_jobs p where p.id = ${jobId})`;

/**
 * Removes the permanently failed jobs of `task` whose payload holds `payload` (a reply's failed
 * delivery job once the reply was sent again from the app): complete_jobs is graphile-worker's
 * own; finding jobs by payload reads its private tables.
 */
export async function removeFailedJobs(q: Queryable, task: string, payload: Record<string, string>): Promise<void> {
  await q.query(sql.unsafe`
    select graphile_worker.complete_jobs(array(
      select j.id from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
      where t.identifier = ${task} and j.payload::jsonb @> ${sql.jsonb(payload)} and j.attempts >= j.max_attempts and j.locked_at is null))`);
}

/** Which of these job ids exist, in any state; on a pg client (WorkerUtils.withPgClient). */
export async function existingJobIds(client: Pick<pg.ClientBase, 'query'>, ids: readonly string[]): Promise<Set<string>> {
  const { rows } = await client.query<{ id: string }>('select id::text from graphile_worker._private_jobs where id = any($1::bigint[])', [ids]);
  return new Set(rows.map((r) => r.id));
}
