/**
 * The bench harness's own arithmetic and load loops (npm run bench -- --quick in CI runs it end
 * to end): goals decide PASS/MISS only when enforced, the table shows what was measured, and
 * both load loops stop by themselves and count every request that did not get a 2xx.
 */
import test from 'ava';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closedLoop, openLoop } from '../bench/harness/http-load.ts';
import { percentile } from '../bench/harness/stats.ts';
import { markdownTable, result } from '../bench/harness/table.ts';

const atLeastHalf = { text: '≥ 0.5× baseline', met: (r: { ratio: number }) => r.ratio >= 0.5 };

test('a result sets the figure against its baseline and decides the goal only when enforced', (t) => {
  const miss = result({ name: 'reply', figure: 40, unit: 'req/s', baseline: 100, baselineLabel: 'Koa', goal: atLeastHalf }, true);
  t.is(miss.ratio, 0.4);
  t.false(miss.pass);
  t.true(result({ name: 'reply', figure: 60, unit: 'req/s', baseline: 100, goal: atLeastHalf }, true).pass);
  t.is(result({ name: 'reply', figure: 60, unit: 'req/s', baseline: 100, goal: atLeastHalf }, false).pass, null);
  const noBaseline = result({ name: 'rss', figure: 120, unit: 'MiB', goal: { text: '≤ 150 MiB', met: (r) => r.figure <= 150 } }, true);
  t.true(Number.isNaN(noBaseline.ratio));
  t.true(noBaseline.pass);
  t.is(result({ name: 'p50', figure: NaN, unit: 'ms', goal: { text: '≤ 5 ms', met: () => true } }, true).pass, null, 'nothing measured is never a pass');
});

test('the table prints figure, baseline, ratio, goal and verdict', (t) => {
  const table = markdownTable([
    result({ name: 'reply', figure: 40, unit: 'req/s', baseline: 100, baselineLabel: 'Koa', goal: atLeastHalf }, true),
    result({ name: 'ack p50', figure: 0.04, unit: 'ms', goal: { text: '≤ 5 ms', met: (r) => r.figure <= 5 } }, false),
  ]);
  t.true(table.includes('| reply | 40 req/s | 100 req/s (Koa) | 0.4 | ≥ 0.5× baseline | MISS |'));
  t.true(table.includes('| ack p50 | 0.04 ms | – | – | ≤ 5 ms | – |'));
});

test('percentiles are by nearest rank', (t) => {
  const samples = Array.from({ length: 100 }, (_, i) => 100 - i);
  t.is(percentile(samples, 50), 50);
  t.is(percentile(samples, 99), 99);
  t.true(Number.isNaN(percentile([], 50)));
});

/** Answers 200, except 503 for every third request and never for paths under /hang. */
async function server(): Promise<{ origin: string; server: Server; seen: () => number }> {
  let seen = 0;
  const s = createServer((req, res) => {
    seen += 1;
    if (req.url?.startsWith('/hang')) return;
    res.writeHead(seen % 3 === 0 ? 503 : 200).end();
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, server: s, seen: () => seen };
}

test('the closed loop sends exactly its count and tallies non-2xx answers', async (t) => {
  const { origin, server: s, seen } = await server();
  t.teardown(() => void s.close());
  const r = await closedLoop(origin, { concurrency: 4, count: 30, maxMs: 10_000, make: () => ({ method: 'GET', path: '/' }) });
  t.is(seen(), 30);
  t.is(r.ok, 20);
  t.deepEqual(r.failures, { 503: 10 });
  t.is(r.latencies.length, 20);
});

test('the open loop stops at its deadline and counts answers that never came', async (t) => {
  const { origin, server: s } = await server();
  t.teardown(() => {
    s.closeAllConnections();
    s.close();
  });
  const r = await openLoop(origin, { rate: 100, count: 20, maxMs: 1500, make: (i) => ({ method: 'POST', path: i < 5 ? '/hang' : '/', body: '{}' }) });
  t.is(r.failures.unanswered, 5);
  t.is(r.ok + (r.failures['503'] ?? 0), 15);
  t.true(r.elapsedMs < 5000);
});
