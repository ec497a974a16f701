/**
 * The admin commands next to a running `npm start` on the embedded PostgreSQL: they join the
 * server it runs (port in DATA_DIR/pg/postmaster.pid, password in DATA_DIR/secrets) instead of
 * failing to start a second one on the same directory. And an embedded server that cannot
 * start says why in one sentence.
 */
import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { runParley, spawnParley } from './helpers/cli.ts';
import { closedPort } from './helpers/ports.ts';

function tempDataDir(t: import('ava').ExecutionContext): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'parley-cli-embedded-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('parley jobs and parley business work while npm start runs the embedded server', async (t) => {
  const dataDir = tempDataDir(t);
  const env = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await closedPort()), PORT: '0' };
  const start = spawnParley(['start'], env);
  let output = '';
  const exited = new Promise<number | null>((resolve) => start.on('close', resolve));
  t.teardown(() => {
    if (start.exitCode === null) start.kill('SIGKILL');
  });
  await new Promise<void>((resolve, reject) => {
    start.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('workers running')) resolve();
    });
    start.stderr.on('data', (chunk) => (output += chunk));
    exited.then(() => reject(new Error(`parley start exited: ${output}`)));
  });

  const stats = await runParley(['jobs', 'stats'], env);
  t.is(stats.code, 0, stats.stderr);
  t.regex(stats.stdout, /^(No jobs\.|TASK\s+QUEUED\s+RUNNING\s+FAILED)$/m);
  const businesses = await runParley(['business', 'list'], env);
  t.is(businesses.code, 0, businesses.stderr);
  t.is(businesses.stdout, 'No workspaces.\n');

  // The server still belongs to `npm start`: it is there after the commands, and stops with it.
  t.is((await runParley(['jobs', 'failed'], env)).stdout, 'No failed jobs.\n');
  start.kill('SIGTERM');
  t.is(await exited, 0, output);
});

test('an embedded server that cannot start (its port is taken) says so in one sentence', async (t) => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.teardown(() => taken.close());
  const port = (taken.address() as { port: number }).port;
  const run = await runParley(['migrate'], { DATA_DIR: tempDataDir(t), EMBEDDED_PG_PORT: String(port), LOG_LEVEL: 'warn' });
  t.is(run.code, 1, run.stdout);
  t.regex(
    run.stderr,
    new RegExp(
      `^The embedded PostgreSQL in .* did not start \\(.*\\): port ${port} is in use: stop the program using it or set EMBEDDED_PG_PORT to a free port$`,
      'm',
    ),
  );
  t.notRegex(run.stderr, /undefined|^\s+at /m);
});
