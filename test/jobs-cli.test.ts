/**
 * `parley jobs …` run as a child process against this file's database: jobs made to fail for
 * good by a real worker run, listed, shown, retried, and gone once they succeed. Serial: the
 * commands see every job of the database.
 */
import test from 'ava';
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { z } from 'zod';
import type { WorkerEvents } from 'graphile-worker';
import { addJob } from '../core/jobs.ts';
import { defineTask, type AnyTask } from '../workers/task.ts';
import { startWorker } from '../workers/main.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { runParley, type CliRun } from './helpers/cli.ts';

let app: TestApp;
let dataDir: string;

test.before(async () => {
  app = await startTestApp();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'parley-jobs-cli-'));
});
test.after.always(async () => {
  await app?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

function parley(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runParley(args, { DATABASE_URL: app.databaseUrl, DATA_DIR: dataDir, JWT_SECRET: randomBytes(32).toString('hex'), ...env });
}
const jobs = (...args: string[]) => parley(['jobs', ...args]);

/** A statement on the server itself (creating and dropping a database), outside the app's database. */
async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.PARLEY_TEST_ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

const jobRow = (id: string) =>
  app.sql('select id::text, task_identifier, attempts, max_attempts, locked_at, run_at <= now() as due from graphile_worker.jobs where id = $1', [id]);

/** Runs a worker with these tasks until `count` jobs have ended with `event`, then stops it. */
async function work(tasks: AnyTask[], event: 'job:failed' | 'job:error' | 'job:success', count: number): Promise<void> {
  const events: WorkerEvents = new EventEmitter();
  let seen = 0;
  const done = new Promise<void>((resolve) =>
    events.on(event, () => {
      if (++seen === count) resolve();
    }),
  );
  const runner = await startWorker(app.deps, { connectionString: app.databaseUrl, tasks, concurrency: 1, events });
  try {
    await done;
  } finally {
    await runner.stop();
  }
}

function failingTask(name: string, state: { fail: boolean }): AnyTask {
  return defineTask({
    name,
    payload: z.object({ n: z.number() }),
    run: async () => {
      if (state.fail) throw new Error('upstream refused the message (550 mailbox unavailable, a long explanation follows here)\nsecond line of detail');
    },
  });
}

test.serial('a permanently failed job is listed, shown, counted, retried, and gone once it succeeds', async (t) => {
  const state = { fail: true };
  const flaky = failingTask('cli_flaky', state);
  const id = await addJob(app.deps.db, 'cli_flaky', { n: 1 }, { maxAttempts: 1 });
  await work([flaky], 'job:failed', 1);

  const failed = await jobs('failed');
  t.is(failed.code, 0, failed.stderr);
  const lines = failed.stdout.split('\n');
  t.regex(lines[0], /^ID\s+TASK\s+ATTEMPTS\s+AGE\s+LAST ERROR$/);
  const row = lines.find((l) => l.trimStart().startsWith(`${id} `));
  t.truthy(row, failed.stdout);
  t.regex(row!, new RegExp(`^\\s*${id}\\s+cli_flaky\\s+1/1\\s+\\d+[smhd]\\s+upstream refused the message`));
  t.true(row!.endsWith('…'), 'the error is cut to one line');
  t.false(failed.stdout.includes('second line of detail'));
  t.regex(failed.stdout, /1 failed job\./);

  const shown = await jobs('show', id);
  t.is(shown.code, 0, shown.stderr);
  t.regex(shown.stdout, new RegExp(`^id\\s+${id}$`, 'm'));
  t.regex(shown.stdout, /^task\s+cli_flaky$/m);
  t.regex(shown.stdout, /^state\s+failed$/m);
  t.regex(shown.stdout, /^attempts\s+1\/1$/m);
  t.regex(shown.stdout, /^payload\n {2}\{\n {4}"n": 1\n {2}\}$/m);
  t.regex(
    shown.stdout,
    /^last_error\n {2}upstream refused the message \(550 mailbox unavailable, a long explanation follows here\)\n {2}second line of detail$/m,
  );

  const stats = await jobs('stats');
  t.is(stats.code, 0, stats.stderr);
  t.regex(stats.stdout, /^TASK\s+QUEUED\s+RUNNING\s+FAILED$/m);
  t.regex(stats.stdout, /^cli_flaky\s+0\s+0\s+1$/m);

  const retried = await jobs('retry', id);
  t.is(retried.code, 0, retried.stderr);
  t.is(retried.stdout, `Rescheduled to run now: ${id}\n`);
  const [rescheduled] = await jobRow(id);
  t.like(rescheduled, { attempts: 0, max_attempts: 1, locked_at: null, due: true }, 'a fresh set of attempts, due now');
  t.is((await jobs('failed')).stdout, 'No failed jobs.\n');
  t.regex((await jobs('stats')).stdout, /^cli_flaky\s+1\s+0\s+0$/m);

  state.fail = false;
  await work([flaky], 'job:success', 1);
  t.deepEqual(await jobRow(id), [], 'completed jobs are deleted');
  const gone = await jobs('show', id);
  t.is(gone.code, 3);
  t.regex(gone.stderr, new RegExp(`job ${id} not found`));
  t.is((await jobs('stats')).stdout, 'No jobs.\n');
});

test.serial('retry --all, with and without --task', async (t) => {
  const state = { fail: true };
  const a = failingTask('cli_all_a', state);
  const b = failingTask('cli_all_b', state);
  const idA = await addJob(app.deps.db, 'cli_all_a', { n: 1 }, { maxAttempts: 1 });
  const idB = await addJob(app.deps.db, 'cli_all_b', { n: 2 }, { maxAttempts: 1 });
  await work([a, b], 'job:failed', 2);

  const onlyB = await jobs('failed', '--task', 'cli_all_b');
  t.is(onlyB.code, 0);
  t.true(onlyB.stdout.includes('cli_all_b') && !onlyB.stdout.includes('cli_all_a'), onlyB.stdout);

  const someTask = await jobs('retry', '--all', '--task', 'cli_all_a');
  t.is(someTask.code, 0, someTask.stderr);
  t.is(someTask.stdout, `Rescheduled 1 failed cli_all_a jobs to run now: ${idA}\n`);
  t.like((await jobRow(idA))[0], { attempts: 0 });
  t.like((await jobRow(idB))[0], { attempts: 1 }, 'the other task is left failed');

  const all = await jobs('retry', '--all');
  t.is(all.code, 0, all.stderr);
  t.is(all.stdout, `Rescheduled 1 failed jobs to run now: ${idB}\n`);
  t.is((await jobs('retry', '--all')).stdout, 'No failed jobs.\n');

  state.fail = false;
  await work([a, b], 'job:success', 2);
  t.deepEqual([...(await jobRow(idA)), ...(await jobRow(idB))], []);
});

test.serial('retry: unknown ids are exit 3, a running job is exit 1, the others are still retried', async (t) => {
  const id = await addJob(app.deps.db, 'cli_mixed', { n: 1 }, { maxAttempts: 1 });
  await app.sql('update graphile_worker._private_jobs set attempts = 1 where id = $1', [id]);
  const mixed = await jobs('retry', id, '999999999');
  t.is(mixed.code, 3);
  t.is(mixed.stdout, `Rescheduled to run now: ${id}\n`);
  t.regex(mixed.stderr, /job 999999999 not found/);
  t.like((await jobRow(id))[0], { attempts: 0 });

  // Running on its last attempt (attempts = max_attempts while locked): running, not failed.
  await app.sql(`update graphile_worker._private_jobs set attempts = 1, locked_at = now(), locked_by = 'worker-test' where id = $1`, [id]);
  const running = await jobs('retry', id);
  t.is(running.code, 1);
  t.regex(running.stderr, new RegExp(`job ${id} is running; not rescheduled`));
  t.is((await jobs('failed')).stdout, 'No failed jobs.\n');
  t.regex((await jobs('stats')).stdout, /^cli_mixed\s+0\s+1\s+0$/m);
  t.regex((await jobs('show', id)).stdout, /^locked_by\s+worker-test$/m);

  // A lock older than four hours is a dead worker's: the job counts as failed again.
  await app.sql(`update graphile_worker._private_jobs set locked_at = now() - interval '5 hours' where id = $1`, [id]);
  t.regex((await jobs('stats')).stdout, /^cli_mixed\s+0\s+0\s+1$/m);
  await app.sql('select graphile_worker.complete_jobs(array[$1::bigint])', [id]);
});

test.serial('retrying lists jobs that failed and will run again, not permanently failed ones', async (t) => {
  const state = { fail: true };
  const id = await addJob(app.deps.db, 'cli_retrying', { n: 1 }, { maxAttempts: 3 });
  const gone = await addJob(app.deps.db, 'cli_retrying_done', { n: 2 }, { maxAttempts: 1 });
  await work([failingTask('cli_retrying_done', state)], 'job:failed', 1);
  // job:error: an attempt failed and another one is left.
  await work([failingTask('cli_retrying', state)], 'job:error', 1);

  const retrying = await jobs('retrying');
  t.is(retrying.code, 0, retrying.stderr);
  const lines = retrying.stdout.split('\n');
  t.regex(lines[0], /^ID\s+TASK\s+ATTEMPTS\s+NEXT\s+LAST ERROR$/);
  const row = lines.find((l) => l.trimStart().startsWith(`${id} `));
  t.regex(row ?? '', new RegExp(`^\\s*${id}\\s+cli_retrying\\s+1/3\\s+(now|in \\d+s)\\s+upstream refused the message`), retrying.stdout);
  t.false(retrying.stdout.includes('cli_retrying_done'), 'a job without attempts left is under `failed`');
  t.regex(retrying.stdout, /job(s)? waiting for a retry\./);
  t.true((await jobs('failed', '--task', 'cli_retrying_done')).stdout.includes(`${gone} `));

  const filtered = await jobs('retrying', '--task', 'cli_other');
  t.is(filtered.stdout, 'No cli_other jobs waiting for a retry.\n');
  t.is((await jobs('retrying', '--all')).code, 2);
});

test.serial('usage errors are exit 2 and say what is wrong; --help documents the exit codes', async (t) => {
  for (const [args, message] of [
    [[], /missing command/],
    [['nope'], /unknown command 'nope'/],
    [['show'], /'show' takes one job id/],
    [['show', 'abc'], /not a job id: abc/],
    [['retry'], /'retry' needs job ids or --all/],
    [['retry', '--all', '5'], /'retry --all' takes no job ids/],
    [['retry', '5', '--task', 'x'], /--task goes with 'retry --all'/],
    [['stats', '--bogus'], /Unknown option '--bogus'/],
  ] as [string[], RegExp][]) {
    const run = await jobs(...args);
    t.is(run.code, 2, `jobs ${args.join(' ')}`);
    t.regex(run.stderr, message);
    t.regex(run.stderr, /usage: parley jobs/);
  }
  const help = await jobs('--help');
  t.is(help.code, 0);
  t.regex(help.stdout, /exit codes: 0 ok, 1 error.*2 usage,\s+3 job not found/s);
  const top = await parley(['--help']);
  t.is(top.code, 0);
  t.regex(top.stdout, /jobs\s+inspect the job queue/);
  t.regex(top.stdout, /retry --all \[--task NAME\]/);
});

test.serial('a database without the job queue, or none at all, is exit 1', async (t) => {
  const adminUrl = process.env.PARLEY_TEST_ADMIN_URL!;
  const name = `parley_t_${process.env.PARLEY_TEST_TEMPLATE}_empty_${randomBytes(3).toString('hex')}`;
  await adminQuery(`create database "${name}"`);
  try {
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const empty = await parley(['jobs', 'failed'], { DATABASE_URL: url.toString() });
    t.is(empty.code, 1);
    t.regex(empty.stderr, /no job queue yet; run `parley migrate` first/);
  } finally {
    await adminQuery(`drop database if exists "${name}" with (force)`);
  }
  const unreachable = await parley(['jobs', 'stats'], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/nothing', DATABASE_CONNECT_TIMEOUT: '0' });
  t.is(unreachable.code, 1);
  t.regex(unreachable.stderr, /^parley: cannot reach the database at 127\.0\.0\.1:1 .*correct DATABASE_URL\.$/m);
});
