/**
 * `parley jobs …`: look at the job queue and revive failed jobs (used by bin/parley.ts).
 * Boots like the other commands (DATABASE_URL or the embedded database) but starts neither the
 * API nor workers, applies no migrations, and keeps events in-process (no Redis).
 */
import { parseArgs } from 'node:util';
import type { WorkerUtils } from 'graphile-worker';
import type { Config } from '../core/config.ts';
import type { Queryable } from '../core/adapters/postgres/db.ts';
import { withCliDatabase } from './cli-database.ts';
import { age, exitCodes, oneLine, table, type CliOutput } from './cli-format.ts';
import { findJob, hasJobQueue, jobStats, listFailedJobs, listRetryingJobs, retryFailedJobs, retryJobs, type JobDetail } from '../core/admin/jobs-admin.ts';

export const jobsUsage = `usage: parley jobs <command>

  failed [--task NAME]          permanently failed jobs (attempts used up): id, task,
                                attempts, age (since created), last error (first line)
  retrying [--task NAME]        jobs that failed at least once and will run again: id, task,
                                attempts, next run, last error (first line)
  show ID                       every field of one job, with its payload and full last error
  retry ID...                   run these jobs again now with a fresh set of attempts
  retry --all [--task NAME]     the same for every permanently failed job (of one task)
  stats                         jobs per task: queued (incl. waiting retries), running, failed

exit codes: 0 ok, 1 error (also: a job is running and was not retried), 2 usage,
            3 job not found (retry: the others given were still retried)
`;

export type JobsCommand =
  | { kind: 'help' }
  | { kind: 'failed'; task?: string }
  | { kind: 'retrying'; task?: string }
  | { kind: 'show'; id: string }
  | { kind: 'retry'; ids: string[] }
  | { kind: 'retry-all'; task?: string }
  | { kind: 'stats' };

const jobId = /^[1-9][0-9]{0,17}$/;

/** Parses the arguments after `jobs`; a string is a usage error. */
export function parseJobsArgs(args: string[]): JobsCommand | string {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: { all: { type: 'boolean' }, task: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    return (error as Error).message;
  }
  const { values, positionals } = parsed;
  const [sub, ...rest] = positionals;
  if (values.help || sub === 'help') return { kind: 'help' };
  const badId = rest.find((id) => !jobId.test(id));
  switch (sub) {
    case 'failed':
    case 'retrying':
      if (values.all) return `'${sub}' takes no --all`;
      return rest.length ? `'${sub}' takes no arguments` : { kind: sub, task: values.task };
    case 'stats':
      if (Object.keys(values).length) return `'stats' takes no options`;
      return rest.length ? `'stats' takes no arguments` : { kind: 'stats' };
    case 'show':
      if (Object.keys(values).length) return `'show' takes no options`;
      if (rest.length !== 1) return `'show' takes one job id`;
      return badId ? `not a job id: ${badId}` : { kind: 'show', id: rest[0] };
    case 'retry':
      if (values.all) {
        if (rest.length) return `'retry --all' takes no job ids`;
        return { kind: 'retry-all', task: values.task };
      }
      if (values.task) return `--task goes with 'retry --all'`;
      if (!rest.length) return `'retry' needs job ids or --all`;
      return badId ? `not a job id: ${badId}` : { kind: 'retry', ids: rest };
    case undefined:
      return 'missing command';
    default:
      return `unknown command '${sub}'`;
  }
}

/** A jobs command against a booted database. */
export async function runJobsCommand(
  command: Exclude<JobsCommand, { kind: 'help' }>,
  db: Queryable,
  utils: WorkerUtils,
  io: CliOutput,
  now = new Date(),
): Promise<number> {
  switch (command.kind) {
    case 'failed': {
      const jobs = await listFailedJobs(db, { task: command.task });
      if (!jobs.length) {
        io.out(command.task ? `No failed ${command.task} jobs.\n` : 'No failed jobs.\n');
        return exitCodes.ok;
      }
      io.out(
        table(
          ['ID', 'TASK', 'ATTEMPTS', 'AGE', 'LAST ERROR'],
          jobs.map((j) => [j.id, j.task, `${j.attempts}/${j.max_attempts}`, age(j.created_at, now), oneLine(j.last_error, 80)]),
          [0, 2, 3],
        ),
      );
      io.out(`\n${jobs.length} failed job${jobs.length === 1 ? '' : 's'}. Details: parley jobs show ID. Run again: parley jobs retry ID... (or --all).\n`);
      return exitCodes.ok;
    }
    case 'retrying': {
      const jobs = await listRetryingJobs(db, { task: command.task });
      if (!jobs.length) {
        io.out(command.task ? `No ${command.task} jobs waiting for a retry.\n` : 'No jobs waiting for a retry.\n');
        return exitCodes.ok;
      }
      const next = (runAt: string) => (new Date(runAt) <= now ? 'now' : `in ${age(now.toISOString(), new Date(runAt))}`);
      io.out(
        table(
          ['ID', 'TASK', 'ATTEMPTS', 'NEXT', 'LAST ERROR'],
          jobs.map((j) => [j.id, j.task, `${j.attempts}/${j.max_attempts}`, next(j.run_at), oneLine(j.last_error, 80)]),
          [0, 2],
        ),
      );
      io.out(`\n${jobs.length} job${jobs.length === 1 ? '' : 's'} waiting for a retry. Details: parley jobs show ID. Run now: parley jobs retry ID...\n`);
      return exitCodes.ok;
    }
    case 'show': {
      const job = await findJob(db, command.id);
      if (!job) {
        io.err(`parley jobs: job ${command.id} not found (completed jobs are deleted)\n`);
        return exitCodes.notFound;
      }
      io.out(describe(job, now));
      return exitCodes.ok;
    }
    case 'retry': {
      const result = await retryJobs(utils, command.ids);
      if (result.retried.length) io.out(`Rescheduled to run now: ${result.retried.join(', ')}\n`);
      for (const id of result.running) io.err(`parley jobs: job ${id} is running; not rescheduled\n`);
      for (const id of result.missing) io.err(`parley jobs: job ${id} not found (completed jobs are deleted)\n`);
      if (result.missing.length) return exitCodes.notFound;
      return result.running.length ? exitCodes.error : exitCodes.ok;
    }
    case 'retry-all': {
      const retried = await retryFailedJobs(db, utils, { task: command.task });
      const what = command.task ? `failed ${command.task} jobs` : 'failed jobs';
      io.out(retried.length ? `Rescheduled ${retried.length} ${what} to run now: ${retried.join(', ')}\n` : `No ${what}.\n`);
      return exitCodes.ok;
    }
    case 'stats': {
      const stats = await jobStats(db);
      if (!stats.length) {
        io.out('No jobs.\n');
        return exitCodes.ok;
      }
      io.out(
        table(
          ['TASK', 'QUEUED', 'RUNNING', 'FAILED'],
          stats.map((s) => [s.task, String(s.queued), String(s.running), String(s.failed)]),
          [1, 2, 3],
        ),
      );
      return exitCodes.ok;
    }
  }
}

/** `parley jobs ARGS`: parse, boot the database only, run, release. */
export async function jobsCli(loadConfig: () => Config, args: string[], io: CliOutput): Promise<number> {
  const command = parseJobsArgs(args);
  if (typeof command === 'string') {
    io.err(`parley jobs: ${command}\n\n${jobsUsage}`);
    return exitCodes.usage;
  }
  if (command.kind === 'help') {
    io.out(jobsUsage);
    return exitCodes.ok;
  }
  return withCliDatabase(loadConfig, async (booted) => {
    if (!(await hasJobQueue(booted.deps.db))) {
      io.err('parley jobs: this database has no job queue yet; run `parley migrate` first\n');
      return exitCodes.error;
    }
    const [{ makeWorkerUtils }, { workerLogger }] = await Promise.all([import('graphile-worker'), import('../core/adapters/worker-logger.ts')]);
    const utils = await makeWorkerUtils({ connectionString: booted.database.url, logger: workerLogger(booted.deps.logger) });
    try {
      return await runJobsCommand(command, booted.deps.db, utils, io);
    } finally {
      await utils.release();
    }
  });
}

function describe(job: JobDetail, now: Date): string {
  const fields: [string, string][] = [
    ['id', job.id],
    ['task', job.task],
    ['state', job.state],
    ['attempts', `${job.attempts}/${job.max_attempts}`],
    ['queue', job.queue_name ?? '-'],
    ['priority', String(job.priority)],
    ['key', job.key ?? '-'],
    ['run_at', job.run_at],
    ['created_at', `${job.created_at} (${age(job.created_at, now)} ago)`],
    ['updated_at', job.updated_at],
    ['locked_at', job.locked_at ?? '-'],
    ['locked_by', job.locked_by ?? '-'],
    ['revision', String(job.revision)],
    ['flags', job.flags ? Object.keys(job.flags).join(', ') || '-' : '-'],
  ];
  const width = Math.max(...fields.map(([name]) => name.length));
  const indent = (text: string) => text.replace(/^/gm, '  ');
  return [
    ...fields.map(([name, value]) => `${name.padEnd(width)}  ${value}`),
    'payload',
    indent(JSON.stringify(job.payload, null, 2)),
    'last_error',
    job.last_error === null ? '  -' : indent(job.last_error),
    '',
  ].join('\n');
}
