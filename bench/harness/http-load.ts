/**
 * Load generators over node:http keep-alive connections, both bounded in count and time:
 * `closedLoop` keeps `concurrency` requests in flight (req/s a server sustains), `openLoop`
 * sends at a fixed rate whatever the answers (latency at an offered rate). Open-loop latency
 * counts from when a request was due, so a server that falls behind cannot hide its queue
 * (no coordinated omission).
 */
import http from 'node:http';

export type Request = { method: string; path: string; headers?: Record<string, string>; body?: Buffer | string };

export type LoadResult = {
  /** Requests answered with a 2xx. */
  ok: number;
  /** Other answers and connection errors, by status ("error" for no answer). */
  failures: Record<string, number>;
  /** Latency of every 2xx answer, ms. */
  latencies: number[];
  /** closedLoop: the request number `i` (as given to `make`) of each latency, in the same order. */
  indices?: number[];
  /** From the first request to the last answer, ms. */
  elapsedMs: number;
};

/** How long one request may go unanswered before it counts as an error. */
export const REQUEST_TIMEOUT_MS = 60_000;

/** One request over `agent`; resolves with the status (0 when no answer came in time). */
export function send(agent: http.Agent, origin: URL, request: Request): Promise<number> {
  return new Promise((resolve) => {
    const body = request.body === undefined ? undefined : Buffer.from(request.body);
    const req = http.request(
      {
        agent,
        host: origin.hostname,
        port: origin.port,
        method: request.method,
        path: request.path,
        headers: { ...request.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      },
    );
    // A request never answered would stall a closed loop forever: give up and count it.
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy());
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

function tally(failures: Record<string, number>, status: number): void {
  const key = status === 0 ? 'error' : String(status);
  failures[key] = (failures[key] ?? 0) + 1;
}

/** `concurrency` loops each sending `make(i)` back to back until `count` were sent or `maxMs` passed. */
export async function closedLoop(
  origin: string,
  options: { concurrency: number; count: number; maxMs: number; make: (i: number) => Request },
): Promise<LoadResult> {
  const url = new URL(origin);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const result: LoadResult = { ok: 0, failures: {}, latencies: [], indices: [], elapsedMs: 0 };
  const started = performance.now();
  let next = 0;
  const loop = async () => {
    while (next < options.count && performance.now() - started < options.maxMs) {
      const i = next++;
      const sent = performance.now();
      const status = await send(agent, url, options.make(i));
      if (status >= 200 && status < 300) {
        result.ok += 1;
        result.latencies.push(performance.now() - sent);
        result.indices!.push(i);
      } else tally(result.failures, status);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, loop));
  result.elapsedMs = performance.now() - started;
  agent.destroy();
  return result;
}

/** Sends `make(i)` at `rate` per second, `count` in all; answers still missing after `maxMs` count as errors. */
export async function openLoop(origin: string, options: { rate: number; count: number; maxMs: number; make: (i: number) => Request }): Promise<LoadResult> {
  const url = new URL(origin);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const result: LoadResult = { ok: 0, failures: {}, latencies: [], elapsedMs: 0 };
  const started = performance.now();
  const pending: Promise<void>[] = [];
  const interval = 1000 / options.rate;
  for (let i = 0; i < options.count; i++) {
    const due = started + i * interval;
    const wait = due - performance.now();
    // Timers fire late under load; requests that are due go out together instead of drifting.
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    if (performance.now() - started > options.maxMs) break;
    // A request sent up to 1 ms early (see above) is timed from when it went out, one sent late
    // from when it was due: never a negative latency, and a late client still counts against the server.
    const from = Math.min(due, performance.now());
    pending.push(
      send(agent, url, options.make(i)).then((status) => {
        if (status >= 200 && status < 300) {
          result.ok += 1;
          result.latencies.push(performance.now() - from);
        } else tally(result.failures, status);
      }),
    );
  }
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, options.maxMs - (performance.now() - started)));
  });
  await Promise.race([Promise.all(pending), deadline]);
  clearTimeout(timer);
  result.elapsedMs = performance.now() - started;
  const answered = result.ok + Object.values(result.failures).reduce((a, b) => a + b, 0);
  // A copy: answers arriving after the deadline must not change what was reported.
  const final: LoadResult = { ...result, failures: { ...result.failures }, latencies: [...result.latencies] };
  if (answered < options.count) final.failures.unanswered = options.count - answered;
  agent.destroy();
  return final;
}

/** A short description of failures for a row's note, e.g. "errors: 503×4, error×1". */
export const describeFailures = (failures: Record<string, number>) =>
  Object.keys(failures).length
    ? `errors: ${Object.entries(failures)
        .map(([k, v]) => `${k}×${v}`)
        .join(', ')}`
    : '';

/** `count` requests, `concurrency` at a time, before the clock starts: JIT, pools and caches warm. */
export const warmUp = (origin: string, count: number, make: (i: number) => Request) =>
  closedLoop(origin, { concurrency: 10, count, maxMs: 60_000, make }).then(() => undefined);
