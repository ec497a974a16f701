/**
 * Socket fan-out: dashboard sockets of one business, half on each of two `parley web` nodes
 * sharing Redis; the owner changes their status (`PATCH /api/v1/team/status`) on the first node
 * and every socket must receive `agent_status_changed`. Latency per socket from the request's
 * start; several changes, all samples pooled. Baseline: two node:http + Socket.IO processes with
 * the Redis adapter, the same sockets, an emit to all posted to the first. Goal: all received,
 * p99 ≤ 100 ms.
 */
import type { Socket } from 'socket.io-client';
import { createWorkspace } from '../harness/fixtures.ts';
import { REQUEST_TIMEOUT_MS } from '../harness/http-load.ts';
import { freePort } from '../harness/processes.ts';
import { size, type Row } from '../harness/row.ts';
import { closeSockets, connectSockets, nextEvent } from '../harness/sockets.ts';
import { percentile, sleep } from '../harness/stats.ts';
import { result } from '../harness/table.ts';

type Fanout = { latencies: number[]; missed: number };

/** `changes` times: `trigger(i)` once, then each socket's first matching event; ms from the trigger. */
async function fanout(
  sockets: Socket[],
  event: string,
  changes: number,
  trigger: (i: number) => Promise<unknown>,
  matches: (payload: any, i: number) => boolean,
): Promise<Fanout> {
  const out: Fanout = { latencies: [], missed: 0 };
  for (let i = 0; i < changes; i++) {
    const started = performance.now();
    const received = sockets.map((s) => nextEvent(s, event, (p) => matches(p, i), 30_000).then((p) => (p ? performance.now() - started : null)));
    await trigger(i);
    for (const ms of await Promise.all(received)) ms === null ? (out.missed += 1) : out.latencies.push(ms);
    await sleep(200);
  }
  return out;
}

export const socketFanout: Row = {
  id: 'socket-fanout',
  run: async (stack) => {
    const total = size(stack, 1000, 100);
    const changes = size(stack, 10, 3);
    const half = total / 2;
    const [webA, webB] = await Promise.all([stack.startWeb('fanout-web-a'), stack.startWeb('fanout-web-b')]);
    let parley: Fanout;
    try {
      const workspace = await createWorkspace(stack, webA, { channels: 0 });
      const auth = { token: workspace.token };
      const sockets = [...(await connectSockets(webA.url, half, auth)), ...(await connectSockets(webB.url, half, auth))];
      try {
        const statuses = ['away', 'live'];
        parley = await fanout(
          sockets,
          'agent_status_changed',
          changes,
          (i) =>
            fetch(`${webA.url}/api/v1/team/status`, {
              method: 'PATCH',
              headers: { 'content-type': 'application/json', authorization: `Bearer ${workspace.token}` },
              body: JSON.stringify({ status: statuses[i % 2] }),
              signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
            }).then((r) => {
              if (!r.ok) throw new Error(`status change: ${r.status}`);
            }),
          (p, i) => p.status === statuses[i % 2],
        );
      } finally {
        closeSockets(sockets);
      }
    } finally {
      await webB.child.stop();
      await webA.child.stop();
    }

    const ports = [await freePort(), await freePort()];
    const bareA = await stack.startBaseline('fanout-bare-a', 'bare-socketio.ts', { PORT: String(ports[0]), BENCH_REDIS_URL: stack.redisUrl });
    const bareB = await stack.startBaseline('fanout-bare-b', 'bare-socketio.ts', { PORT: String(ports[1]), BENCH_REDIS_URL: stack.redisUrl });
    let baseline: Fanout;
    try {
      const [a, b] = ports.map((p) => `http://127.0.0.1:${p}`) as [string, string];
      const sockets = [...(await connectSockets(a, half)), ...(await connectSockets(b, half))];
      try {
        baseline = await fanout(
          sockets,
          'bench_event',
          changes,
          (i) =>
            fetch(`${a}/emit`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ change: i }),
              signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
            }),
          (p, i) => p.change === i,
        );
      } finally {
        closeSockets(sockets);
      }
    } finally {
      await bareB.stop();
      await bareA.stop();
    }

    const enforce = !stack.quick;
    const label = '2× node:http + Socket.IO, Redis adapter';
    return [
      result(
        {
          name: `socket fan-out, ${total} sockets on 2 web nodes: p99`,
          figure: percentile(parley.latencies, 99),
          unit: 'ms',
          baseline: percentile(baseline.latencies, 99),
          baselineLabel: label,
          goal: { text: '≤ 100 ms, all received', met: (r) => r.figure <= 100 && parley.missed === 0 },
          note: `${changes} status changes × ${total} sockets; not received within 30 s: ${parley.missed} (baseline ${baseline.missed}); p50 ${percentile(parley.latencies, 50).toFixed(1)} ms (baseline ${percentile(baseline.latencies, 50).toFixed(1)} ms)`,
        },
        enforce,
      ),
    ];
  },
};
