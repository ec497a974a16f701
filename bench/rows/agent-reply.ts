/**
 * Agent replies: `POST /api/v1/conversations/{id}/messages` from 20 connections at once (closed
 * loop) against `parley web`, with a worker delivering the replies to the fake Graph API as in
 * production; first every request for one business, then spread over 20 businesses. Baseline:
 * Koa + one INSERT on a pool like Parley's (bench/baselines/koa-insert.ts) under the same loop.
 * Goal: req/s ≥ 0.5× the baseline (never below 0.25×), p99 ≤ 2× the baseline's.
 *
 * The same run gives the peak RSS rows: `web` and `worker` are fresh processes for this row, so
 * their high-water mark is this load's (goal ≤ 150 MiB each); the baselines are the Koa process
 * under the same load and an idle graphile-worker. And the CPU a reply cost each process over
 * both loads (harness/cpu.ts), beside what a request cost the Koa baseline's: for planning,
 * no goal; it moves far less than req/s with the machine's load. Beside them, for planning
 * too: the reply's own statement alone behind a bare Koa (bench/baselines/koa-reply-statement.ts),
 * the same worker delivering: the most the API around that statement could reach here.
 */
import { availableParallelism } from 'node:os';
import { createWorkspace, seedConversations, type Workspace } from '../harness/fixtures.ts';
import { closedLoop, describeFailures, warmUp, type LoadResult, type Request } from '../harness/http-load.ts';
import { freePort } from '../harness/processes.ts';
import { size, type Row } from '../harness/row.ts';
import { percentile, waitUntil } from '../harness/stats.ts';
import type { Stack } from '../harness/stack.ts';
import { countCpu, type CpuShares } from '../harness/cpu.ts';
import { result, type Result } from '../harness/table.ts';

const CONNECTIONS = 20;
const BUSINESSES = 20;
const RSS_GOAL_MIB = 150;

type Target = { conversationId: string; token: string };

/** Until no reply of these businesses waits in `queued`. */
const deliveredAll = (stack: Stack, workspaces: Workspace[]) =>
  waitUntil(
    async () =>
      (
        await stack.pool.query<{ n: number }>(`select count(*)::int as n from messages where business_id = any($1::uuid[]) and delivery_status = 'queued'`, [
          workspaces.map((w) => w.businessId),
        ])
      ).rows[0]!.n === 0,
    60_000,
    'every reply delivered',
    50,
  );

/** A reply to the baselines (Koa + one INSERT, the reply's statement alone): the same body. */
const statementRequest = (i: number): Request => ({
  method: 'POST',
  path: '/reply',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ content: `Thanks for writing, we are on it (${i}).` }),
});

const reply = (target: Target, i: number): Request => ({
  method: 'POST',
  path: `/api/v1/conversations/${target.conversationId}/messages`,
  headers: { 'content-type': 'application/json', authorization: `Bearer ${target.token}` },
  body: JSON.stringify({ content: `Thanks for writing, we are on it (${i}).` }),
});

export const agentReply: Row = {
  id: 'agent-reply',
  run: async (stack) => {
    const seconds = size(stack, 10, 2);
    const perBusiness = size(stack, 5, 1);
    const load = (origin: string, make: (i: number) => Request) =>
      closedLoop(origin, { concurrency: CONNECTIONS, count: 100_000, maxMs: seconds * 1000, make });

    const database = new URL(stack.databaseUrl).pathname.slice(1);
    const { web, worker } = await stack.startWebAndWorker('reply');
    let one: LoadResult;
    let cpu: CpuShares;
    let baselineCpu: CpuShares;
    let many: LoadResult;
    let webRss: number;
    let workerRss: number;
    let statementAlone: LoadResult;
    try {
      const workspaces: Workspace[] = [];
      for (let b = 0; b < BUSINESSES; b++) workspaces.push(await createWorkspace(stack, web));
      const targets: Target[][] = [];
      for (const w of workspaces) {
        const ids = await seedConversations(stack, web, w, w.channels[0]!, perBusiness, 0);
        targets.push(ids.map((conversationId) => ({ conversationId, token: w.token })));
      }
      const first = targets[0]!;
      const all = targets.flat();
      await warmUp(web.url, 100, (i) => reply(all[i % all.length]!, i));
      const counting = countCpu({ web: web.child.pid, worker: worker.pid }, database);
      one = await load(web.url, (i) => reply(first[i % first.length]!, i));
      many = await load(web.url, (i) => reply(all[i % all.length]!, i));
      // The worker may still be delivering the last replies: they are part of their cost.
      await deliveredAll(stack, workspaces);
      cpu = counting.stop();
      webRss = web.child.peakRssMiB();
      workerRss = worker.peakRssMiB();
      // The reply's statement alone, the same worker delivering: the ceiling for planning.
      const port = await freePort();
      const owner = workspaces[0]!;
      const statementTargets = first.map((t) => ({ businessId: owner.businessId, userId: owner.userId, conversationId: t.conversationId }));
      const statement = await stack.startBaseline('reply-statement', 'koa-reply-statement.ts', {
        PORT: String(port),
        TARGETS: JSON.stringify(statementTargets),
      });
      try {
        const origin = `http://127.0.0.1:${port}`;
        await warmUp(origin, 100, statementRequest);
        statementAlone = await load(origin, statementRequest);
        await deliveredAll(stack, workspaces);
      } finally {
        await statement.stop();
      }
    } finally {
      await worker.stop();
      await web.child.stop();
    }

    const koaPort = await freePort();
    const koa = await stack.startBaseline('reply-koa-insert', 'koa-insert.ts', { PORT: String(koaPort) });
    const idleWorker = await stack.startBaseline('reply-noop-worker', 'noop-worker.ts');
    let baseline: LoadResult;
    let koaRss: number;
    let idleWorkerRss: number;
    try {
      const origin = `http://127.0.0.1:${koaPort}`;
      await warmUp(origin, 100, statementRequest);
      const counting = countCpu({ koa: koa.pid }, database);
      baseline = await load(origin, statementRequest);
      baselineCpu = counting.stop();
      koaRss = koa.peakRssMiB();
      idleWorkerRss = idleWorker.peakRssMiB();
    } finally {
      await idleWorker.stop();
      await koa.stop();
    }

    const enforce = !stack.quick;
    const planning = { text: 'for planning', met: () => true };
    const label = 'Koa + one INSERT';
    const rate = (r: LoadResult) => r.ok / (r.elapsedMs / 1000);
    const rows = (name: string, r: LoadResult): Result[] => [
      result(
        {
          name: `agent reply, ${name}: req/s`,
          figure: rate(r),
          unit: 'req/s',
          baseline: rate(baseline),
          baselineLabel: label,
          goal: { text: '≥ 0.5× baseline (never < 0.25×)', met: (x) => x.ratio >= 0.5 },
          note: [`${r.ok} replies in ${(r.elapsedMs / 1000).toFixed(1)} s from ${CONNECTIONS} connections`, describeFailures(r.failures)]
            .filter(Boolean)
            .join('; '),
        },
        enforce,
      ),
      result(
        {
          name: `agent reply, ${name}: p99`,
          figure: percentile(r.latencies, 99),
          unit: 'ms',
          baseline: percentile(baseline.latencies, 99),
          baselineLabel: label,
          goal: { text: '≤ 2× baseline', met: (x) => x.ratio <= 2 },
        },
        enforce,
      ),
    ];
    const rssGoal = { text: `≤ ${RSS_GOAL_MIB} MiB`, met: (x: { figure: number }) => x.figure <= RSS_GOAL_MIB };
    const replies = one.ok + many.ok;
    const perReply = (ms: number) => ms / replies;
    const perRequest = (ms: number) => ms / baseline.ok;
    const cpuRow = (name: string, figure: number, base?: number, baseLabel?: string, note?: string) =>
      result({ name: `agent reply: CPU per reply, ${name}`, figure, unit: 'ms', baseline: base, baselineLabel: baseLabel, goal: planning, note }, false);
    const total = (shares: CpuShares) => Object.values(shares).reduce((a, b) => a + b, 0);
    return [
      ...rows('1 business', one),
      ...rows(`${BUSINESSES} businesses`, many),
      result(
        {
          name: "agent reply: the reply's statement alone, req/s",
          figure: rate(statementAlone),
          unit: 'req/s',
          baseline: rate(baseline),
          baselineLabel: label,
          goal: planning,
          note: "Koa + core/commands/messages.ts's statement on the first business's conversations, the same worker delivering: no authentication, live events or route; what the API around the statement can reach at most",
        },
        false,
      ),
      cpuRow('web', perReply(cpu.web!), perRequest(baselineCpu.koa!), 'the Koa process, per request'),
      cpuRow('worker', perReply(cpu.worker!), undefined, undefined, 'delivering each reply to the fake Graph API'),
      cpuRow('PostgreSQL', perReply(cpu.postgres!), perRequest(baselineCpu.postgres!), 'per Koa request', "the scratch database's backends"),
      cpuRow('load and fakes', perReply(cpu.bench!), perRequest(baselineCpu.bench!), 'per Koa request', 'the bench process: HTTP load, fake Graph API'),
      cpuRow(
        'all',
        perReply(total(cpu)),
        perRequest(total(baselineCpu)),
        'per Koa request',
        `${replies} replies; the machine has ${availableParallelism()} cores`,
      ),
      result(
        {
          name: 'peak RSS of web under reply load',
          figure: webRss,
          unit: 'MiB',
          baseline: koaRss,
          baselineLabel: 'Koa + one INSERT, same load',
          goal: rssGoal,
        },
        enforce,
      ),
      result(
        {
          name: 'peak RSS of worker under reply load',
          figure: workerRss,
          unit: 'MiB',
          baseline: idleWorkerRss,
          baselineLabel: 'idle graphile-worker',
          goal: rssGoal,
        },
        enforce,
      ),
    ];
  },
};
