/**
 * Agent replies: `POST /api/v1/conversations/{id}/messages` from 20 connections at once (closed
 * loop) against `parley web`, with a worker delivering the replies to the fake Graph API as in
 * production; first every request for one business, then spread over 20 businesses. Baseline:
 * Koa + one INSERT on a pool like Parley's (bench/baselines/koa-insert.ts) under the same loop.
 * Goal: req/s ≥ 0.5× the baseline (never below 0.25×), p99 ≤ 2× the baseline's.
 *
 * The same run gives the peak RSS rows: `web` and `worker` are fresh processes for this row, so
 * their high-water mark is this load's (goal ≤ 150 MiB each); the baselines are the Koa process
 * under the same load and an idle graphile-worker.
 */
import { createWorkspace, seedConversations, type Workspace } from '../harness/fixtures.ts';
import { closedLoop, describeFailures, warmUp, type LoadResult, type Request } from '../harness/http-load.ts';
import { freePort } from '../harness/processes.ts';
import { size, type Row } from '../harness/row.ts';
import { percentile } from '../harness/stats.ts';
import { result, type Result } from '../harness/table.ts';

const CONNECTIONS = 20;
const BUSINESSES = 20;
const RSS_GOAL_MIB = 150;

type Target = { conversationId: string; token: string };

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

    const { web, worker } = await stack.startWebAndWorker('reply');
    let one: LoadResult;
    let many: LoadResult;
    let webRss: number;
    let workerRss: number;
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
      one = await load(web.url, (i) => reply(first[i % first.length]!, i));
      many = await load(web.url, (i) => reply(all[i % all.length]!, i));
      webRss = web.child.peakRssMiB();
      workerRss = worker.peakRssMiB();
    } finally {
      await worker.stop();
      await web.child.stop();
    }

    const port = await freePort();
    const koa = await stack.startBaseline('reply-koa-insert', 'koa-insert.ts', { PORT: String(port) });
    const idleWorker = await stack.startBaseline('reply-noop-worker', 'noop-worker.ts');
    let baseline: LoadResult;
    let koaRss: number;
    let idleWorkerRss: number;
    try {
      const origin = `http://127.0.0.1:${port}`;
      const make = (i: number): Request => ({
        method: 'POST',
        path: '/reply',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: `Thanks for writing, we are on it (${i}).` }),
      });
      await warmUp(origin, 100, make);
      baseline = await load(origin, make);
      koaRss = koa.peakRssMiB();
      idleWorkerRss = idleWorker.peakRssMiB();
    } finally {
      await idleWorker.stop();
      await koa.stop();
    }

    const enforce = !stack.quick;
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
    return [
      ...rows('1 business', one),
      ...rows(`${BUSINESSES} businesses`, many),
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
