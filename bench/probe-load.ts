/**
 * A small closed-loop HTTP load generator for the probes, run in a worker thread so it does not
 * share an event loop with anything measured: `connections` keep-alive connections, each sending
 * the next request when the previous answered, for `seconds`. Answers latency percentiles.
 */
import http from 'node:http';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

export type LoadRequest = { url: string; method: string; headers: Record<string, string>; body?: string };
export type LoadResult = { requests: number; per_second: number; p50_ms: number; p99_ms: number; statuses: Record<string, number> };

/**
 * Runs the load in a worker thread, cycling through the requests. With `ratePerSecond`, the
 * loop is open instead: requests start on schedule whether or not earlier ones answered
 * (`connections` is then the most sockets open at once).
 */
export function runLoad(request: LoadRequest | LoadRequest[], connections: number, seconds: number, ratePerSecond?: number): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { requests: Array.isArray(request) ? request : [request], connections, seconds, ratePerSecond } });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

async function generate(requests: LoadRequest[], connections: number, seconds: number, ratePerSecond?: number): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const end = performance.now() + seconds * 1000;
  let index = 0;
  const once = (r: LoadRequest) =>
    new Promise<number>((resolve, reject) => {
      const req = http.request(r.url, { method: r.method, headers: r.headers, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(r.body);
    });
  const started = performance.now();
  const record = async (r: LoadRequest) => {
    const t0 = performance.now();
    const status = await once(r).catch(() => 0);
    latencies.push(performance.now() - t0);
    statuses[status] = (statuses[status] ?? 0) + 1;
  };
  if (ratePerSecond) {
    const pending: Promise<void>[] = [];
    for (let sent = 0; performance.now() < end; ) {
      const due = Math.floor(((performance.now() - started) / 1000) * ratePerSecond);
      for (; sent < due; sent++) pending.push(record(requests[index++ % requests.length]));
      await new Promise((r) => setTimeout(r, 2));
    }
    await Promise.all(pending);
  } else await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const r = requests[index++ % requests.length];
        const t0 = performance.now();
        const status = await once(r);
        latencies.push(performance.now() - t0);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => +latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))].toFixed(1);
  return { requests: latencies.length, per_second: Math.round(latencies.length / elapsed), p50_ms: pct(50), p99_ms: pct(99), statuses };
}

if (!isMainThread && workerData?.requests) {
  const { requests, connections, seconds, ratePerSecond } = workerData as { requests: LoadRequest[]; connections: number; seconds: number; ratePerSecond?: number };
  parentPort!.postMessage(await generate(requests, connections, seconds, ratePerSecond));
}
