/**
 * `parley worker` lowers its CPU priority (WORKER_NICE, workers/cpu-priority.ts) so that web on a
 * shared host answers first: every thread of the process, read back from /proc as the kernel
 * schedules them. Linux only (the CI machine's); elsewhere the tests are skipped.
 */
import test from 'ava';
import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { spawnParley, stopProcess } from './helpers/processes.ts';
import { waitFor } from './helpers/worker.ts';
import { threadNices } from './helpers/thread-nices.ts';

const linux = existsSync('/proc/self/task');
const maybe = linux ? test : test.skip;

const moduleUrl = (file: string) => JSON.stringify(new URL(file, import.meta.url).href);
/** A fresh Node process that calls lowerCpuPriority(nice), optionally started under `nice -n start`; answers its threads' nice values. */
async function lowered(nice: number, start = 0): Promise<number[]> {
  const script = `
    const { lowerCpuPriority } = await import(${moduleUrl('../workers/cpu-priority.ts')});
    const { threadNices } = await import(${moduleUrl('./helpers/thread-nices.ts')});
    lowerCpuPriority(${nice}, { warn: (...a) => console.error(...a) });
    console.log(JSON.stringify(threadNices('self')));`;
  const node = [process.execPath, '--no-warnings', '--input-type=module', '-e', script];
  const [command, ...args] = start ? ['nice', '-n', String(start), ...node] : node;
  const { stdout } = await promisify(execFile)(command, args, { cwd: path.resolve(import.meta.dirname, '..') });
  return JSON.parse(stdout);
}

maybe('lowerCpuPriority lowers every thread of the process; 0 leaves them; a lower priority it started with is kept', async (t) => {
  const seven = await lowered(7);
  t.true(seven.length > 1, 'V8 and libuv threads are there too');
  t.deepEqual([...new Set(seven)], [7]);
  t.deepEqual([...new Set(await lowered(0))], [0]);
  t.deepEqual([...new Set(await lowered(7, 12))], [12], 'never raised back');
});

let app: TestApp | undefined;
test.after.always(() => app?.close());

maybe('a `parley worker` process runs at WORKER_NICE, every thread', async (t) => {
  app = await startTestApp();
  const worker: ChildProcess = spawnParley(app, ['worker'], { WORKER_TASKS: 'deliver_message', WORKER_NICE: '6', LOG_LEVEL: 'info' });
  try {
    let output = '';
    worker.stdout!.on('data', (chunk) => (output += chunk));
    await waitFor(async () => output.includes('workers running'), 30_000, 'the worker started');
    t.deepEqual([...new Set(threadNices(worker.pid!))], [6]);
  } finally {
    await stopProcess(worker, 'SIGTERM');
  }
});
