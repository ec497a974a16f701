/**
 * What the worker logs when jobs fail, through the real runner: a failed attempt that will be
 * retried is one `warn` line (task, job id, attempt, reason) with the stack at `debug`; the
 * last attempt is one `error` entry carrying the stack once.
 */
import test from 'ava';
import { EventEmitter } from 'node:events';
import { pino } from 'pino';
import { z } from 'zod';
import type { WorkerEvents } from 'graphile-worker';
import { addJob } from '../core/jobs.ts';
import { ConnectorError } from '../connectors/types.ts';
import { startWorker } from '../workers/main.ts';
import { defineTask } from '../workers/task.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

type Entry = { level: number; msg: string; task?: string; job_id?: string; attempt?: number; err?: { stack: string } };
const levels = { debug: 20, warn: 40, error: 50 };

/** Like a connector's failure: a transient ConnectorError wrapping the socket error. */
function unreachable(): ConnectorError {
  const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
  const error = new ConnectorError('transient', 'Telegram unreachable: connect ECONNREFUSED 127.0.0.1:9');
  error.cause = cause;
  return error;
}

test('a retried attempt is one warn line; the last attempt is one error with the stack', async (t) => {
  const entries: Entry[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => entries.push(JSON.parse(line)) });
  const events: WorkerEvents = new EventEmitter();
  const failures: number[] = [];
  events.on('job:error', ({ job }) => failures.push(job.attempts));
  const task = defineTask({
    name: 'log_flaky',
    payload: z.object({}),
    run: async () => {
      throw unreachable();
    },
  });
  const id = await addJob(app.deps.db, 'log_flaky', {}, { maxAttempts: 2 });
  const runner = await startWorker({ ...app.deps, logger }, { connectionString: app.databaseUrl, tasks: [task], pollInterval: 100, events });
  let stopped = false;
  t.teardown(() => (stopped ? undefined : runner.stop()));
  const until = (count: number) =>
    new Promise<void>((resolve) => {
      const check = () => (failures.length >= count ? resolve() : setTimeout(check, 50));
      check();
    });
  await until(1);
  await app.sql('update graphile_worker._private_jobs set run_at = now() where id = $1', [id]);
  await until(2);
  stopped = true;
  await runner.stop();

  const ofJob = entries.filter((e) => e.job_id === id);
  const warns = ofJob.filter((e) => e.level === levels.warn);
  t.is(warns.length, 1, JSON.stringify(ofJob));
  t.like(warns[0], { task: 'log_flaky', job_id: id, attempt: 1 });
  t.is(warns[0].msg, `log_flaky job ${id} attempt 1/2 failed, will retry: Telegram unreachable: connect ECONNREFUSED 127.0.0.1:9`);
  t.is(warns[0].err, undefined, 'no stack in the warn line');
  t.false(JSON.stringify(warns[0]).includes('\n'), 'one line');

  const debug = ofJob.find((e) => e.level === levels.debug && e.err);
  t.regex(debug?.err?.stack ?? '', /ConnectorError: Telegram unreachable.*\n\s+at /s);

  const errors = ofJob.filter((e) => e.level === levels.error);
  t.is(errors.length, 1, 'error level only for the last attempt');
  t.like(errors[0], { task: 'log_flaky', job_id: id, attempt: 2 });
  t.is(errors[0].msg, `log_flaky job ${id} attempt 2/2 failed, no attempts left (parley jobs failed): Telegram unreachable: connect ECONNREFUSED 127.0.0.1:9`);
  t.regex(errors[0].err?.stack ?? '', /\n\s+at /);
  t.false(errors[0].msg.includes('\n'), 'the stack is in err, not repeated in the message');
});
