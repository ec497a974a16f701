/**
 * Inbound end to end: a signed WhatsApp webhook sent → `message_created` received by a dashboard
 * socket (web → inbound_events → process_inbound on the worker → Redis → Socket.IO). Probes go one
 * at a time from one customer; idle, then while 200 webhooks/s from 50 customers of another
 * business with 10 channels run in the background (the platform is busy; how one busy channel
 * drains is the inbound-drain row's question). Baseline: node:http + Socket.IO in one process emitting what it
 * is posted, probed the same way with the same background rate. Goal: p50 ≤ 15 ms, p99 ≤ 60 ms.
 */
import type { Socket } from 'socket.io-client';
import { createWorkspace, customerPhone, inboundWebhook, seedConversations } from '../harness/fixtures.ts';
import { openLoop, type Request } from '../harness/http-load.ts';
import { freePort } from '../harness/processes.ts';
import { size, type Row } from '../harness/row.ts';
import { closeSockets, connectSockets, nextEvent } from '../harness/sockets.ts';
import { percentile, sleep } from '../harness/stats.ts';
import { result } from '../harness/table.ts';

const BACKGROUND_RATE = 200;
const PROBE_TIMEOUT_MS = 30_000;

type Target = {
  origin: string;
  socket: Socket;
  event: string;
  probe: (i: number) => Request;
  isProbe: (payload: any) => boolean;
  background: (i: number) => Request;
};

type Latencies = { idle: number[]; loaded: number[]; lost: number };

/** One probe: its latency in ms, or null when the event never came. */
async function probeOnce(target: Target, i: number): Promise<number | null> {
  const request = target.probe(i);
  const received = nextEvent(target.socket, target.event, target.isProbe, PROBE_TIMEOUT_MS);
  const started = performance.now();
  void fetch(`${target.origin}${request.path}`, { method: request.method, headers: request.headers, body: request.body }).then(
    (r) => r.arrayBuffer(),
    () => undefined,
  );
  return (await received) ? performance.now() - started : null;
}

async function measure(target: Target, idleProbes: number, loadedSeconds: number): Promise<Latencies> {
  const out: Latencies = { idle: [], loaded: [], lost: 0 };
  let i = 0;
  const record = (into: number[], ms: number | null) => (ms === null ? (out.lost += 1) : into.push(ms));
  for (; i < idleProbes; i++) {
    record(out.idle, await probeOnce(target, i));
    await sleep(10);
  }
  const count = BACKGROUND_RATE * loadedSeconds;
  let loading = true;
  const background = openLoop(target.origin, { rate: BACKGROUND_RATE, count, maxMs: loadedSeconds * 1000 + 30_000, make: target.background }).finally(
    () => (loading = false),
  );
  while (loading) {
    record(out.loaded, await probeOnce(target, i++));
    await sleep(20);
  }
  await background;
  return out;
}

export const inboundLatency: Row = {
  id: 'inbound-latency',
  run: async (stack) => {
    const idleProbes = size(stack, 100, 20);
    const loadedSeconds = size(stack, 15, 1);
    const { web, worker } = await stack.startWebAndWorker('latency');
    let parley: Latencies;
    try {
      const workspace = await createWorkspace(stack, web);
      const busy = await createWorkspace(stack, web, { channels: 10 });
      const channel = workspace.channels[0]!;
      const [conversationId] = await seedConversations(stack, web, workspace, channel, 1, 0);
      const [socket] = await connectSockets(web.url, 1, { token: workspace.token });
      try {
        parley = await measure(
          {
            origin: web.url,
            socket: socket!,
            event: 'message_created',
            probe: (i) => inboundWebhook(channel, customerPhone(0), `probe ${i}`),
            isProbe: (p) => p.conversation_id === conversationId,
            background: (i) => inboundWebhook(busy.channels[i % 10]!, customerPhone(1 + (i % 50)), `background ${i}`),
          },
          idleProbes,
          loadedSeconds,
        );
      } finally {
        closeSockets([socket!]);
      }
    } finally {
      await worker.stop();
      await web.child.stop();
    }

    const port = await freePort();
    const bare = await stack.startBaseline('latency-bare-socketio', 'bare-socketio.ts', { PORT: String(port) });
    let baseline: Latencies;
    try {
      const origin = `http://127.0.0.1:${port}`;
      const [socket] = await connectSockets(origin, 1);
      const post = (body: unknown): Request => ({ method: 'POST', path: '/emit', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      try {
        baseline = await measure(
          {
            origin,
            socket: socket!,
            event: 'bench_event',
            probe: (i) => post({ probe: i }),
            isProbe: (p) => p.probe !== undefined,
            background: (i) => post({ background: i }),
          },
          idleProbes,
          loadedSeconds,
        );
      } finally {
        closeSockets([socket!]);
      }
    } finally {
      await bare.stop();
    }

    const enforce = !stack.quick;
    const label = 'node:http + Socket.IO';
    const note = `${parley.idle.length} idle and ${parley.loaded.length} loaded probes; events never received within ${PROBE_TIMEOUT_MS / 1000} s: ${parley.lost}`;
    const row = (name: string, of: 'idle' | 'loaded', p: number, limit: number, withNote = false) =>
      result(
        {
          name,
          figure: percentile(parley[of], p),
          unit: 'ms',
          baseline: percentile(baseline[of], p),
          baselineLabel: label,
          goal: { text: `≤ ${limit} ms`, met: (r) => r.figure <= limit && parley.lost === 0 },
          ...(withNote ? { note } : {}),
        },
        enforce,
      );
    return [
      row('inbound end to end, idle: p50', 'idle', 50, 15, true),
      row('inbound end to end, idle: p99', 'idle', 99, 60),
      row(`inbound end to end, ${BACKGROUND_RATE} webhooks/s: p50`, 'loaded', 50, 15),
      row(`inbound end to end, ${BACKGROUND_RATE} webhooks/s: p99`, 'loaded', 99, 60),
    ];
  },
};
