/**
 * `npm run bench` (issue #8): every performance row of Parley against a baseline measured in
 * the same run, one table on stdout and bench/results.json.
 *
 *   npm run bench                          full size, goals enforced (PASS/MISS)
 *   npm run bench -- --quick               every row small, goals not enforced (CI)
 *   npm run bench -- --only agent-reply,webhook-ack
 *
 * Needs DATABASE_URL's server (the role needs CREATEDB; unset: an embedded PostgreSQL) and
 * redis-server on the PATH. A missed goal never fails the run; the exit code is 1 only when a
 * row could not be measured (the harness or the system under it broke).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root } from './harness/processes.ts';
import { openStack } from './harness/stack.ts';
import { markdownTable, writeResults, type Result } from './harness/table.ts';
import type { Row } from './harness/row.ts';
import { webhookAck } from './rows/webhook-ack.ts';
import { inboundDrain } from './rows/inbound-drain.ts';
import { inboundLatency } from './rows/inbound-latency.ts';
import { agentReply } from './rows/agent-reply.ts';
import { outboundDelivery } from './rows/outbound-delivery.ts';
import { replyOrder } from './rows/reply-order.ts';
import { socketFanout } from './rows/socket-fanout.ts';
import { kbSearch } from './rows/kb-search.ts';
import { analytics } from './rows/analytics.ts';
import { search } from './rows/search.ts';
import { reports } from './rows/reports.ts';

// Search, analytics and reports last: their millions of messages and conversations would make every later row's tables bigger.
const rows: Row[] = [webhookAck, inboundDrain, inboundLatency, agentReply, outboundDelivery, replyOrder, socketFanout, kbSearch, search, analytics, reports];

/** A bad command line: exit 2 with the message. */
class UsageError extends Error {}

function parseArgs(argv: string[]): { quick: boolean; only: string[] | null } {
  let quick = false;
  let only: string[] | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--quick') quick = true;
    else if (arg === '--only') only = (argv[++i] ?? '').split(',').filter(Boolean);
    else if (arg.startsWith('--only=')) only = arg.slice('--only='.length).split(',').filter(Boolean);
    else throw new UsageError(`unknown argument ${arg} (use --quick, --only ROW[,ROW])`);
  }
  const unknown = only?.filter((id) => !rows.some((r) => r.id === id)) ?? [];
  if (unknown.length) throw new UsageError(`unknown rows: ${unknown.join(', ')} (rows: ${rows.map((r) => r.id).join(', ')})`);
  return { quick, only };
}

function machine() {
  return {
    cpus: os.availableParallelism(),
    cpu: os.cpus()[0]?.model ?? 'unknown',
    memory_gib: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    load_average_at_start: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

async function main(): Promise<number> {
  const { quick, only } = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const at = new Date().toISOString();
  const host = machine();
  // The processes run as in production: their TypeScript stripped ahead (bin/stripped-sources.js),
  // also for files edited since the last install.
  execFileSync(process.execPath, ['--no-warnings', path.join(root, 'scripts', 'strip-types.js')], { stdio: 'inherit' });
  const stack = await openStack({ quick });
  // Interrupted (Ctrl-C, a CI timeout): stop the children and drop the scratch database first.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`bench: ${signal}, cleaning up\n`);
      void stack.close().finally(() => process.exit(130));
    });
  }
  const results: Result[] = [];
  const broken: string[] = [];
  try {
    for (const row of rows.filter((r) => !only || only.includes(r.id))) {
      const rowStarted = performance.now();
      process.stderr.write(`bench: ${row.id}…\n`);
      try {
        const measured = await row.run(stack);
        results.push(...measured);
        process.stderr.write(`${markdownTable(measured)}\n`);
      } catch (error) {
        broken.push(row.id);
        process.stderr.write(`bench: ${row.id} could not be measured: ${error instanceof Error ? error.stack : String(error)}\n`);
      }
      const discarded = await stack.discardJobs();
      process.stderr.write(`(${row.id}: ${((performance.now() - rowStarted) / 1000).toFixed(1)} s; ${discarded} jobs it left queued discarded)\n`);
    }
  } finally {
    await stack.close();
  }
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  const postgres = process.env.DATABASE_URL ? 'system PostgreSQL (DATABASE_URL)' : 'embedded PostgreSQL';
  console.log(
    `\nParley bench${quick ? ' --quick (goals not enforced)' : ''}: ${at}, ${host.cpus} CPUs (${host.cpu}), ${host.memory_gib} GiB, Node ${host.node}, load average ${host.load_average_at_start[0]} at start, ${postgres}, ${seconds} s\n`,
  );
  console.log(markdownTable(results));
  for (const r of results.filter((x) => x.note)) console.log(`- ${r.name}: ${r.note}`);
  mkdirSync(path.join(root, 'bench', 'results'), { recursive: true });
  // A --quick run never overwrites the committed full run: it goes beside the logs (gitignored).
  const file = quick ? path.join('bench', 'results', 'quick.json') : path.join('bench', 'results.json');
  writeResults(path.join(root, file), { at, quick, seconds, machine: host, postgres, broken }, results);
  console.log(`\nwrote ${file}`);
  if (broken.length) console.error(`bench: rows that could not be measured: ${broken.join(', ')}`);
  return broken.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error('bench:', error instanceof UsageError ? error.message : error);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
