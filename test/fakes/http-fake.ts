/**
 * The plumbing every fake platform server shares: a node:http server on 127.0.0.1 (port 0), a
 * record of every request, and a queue of scripted failures ("the next N requests answer 500").
 *
 *   const server = await startHttpFake(async (request, respond) => respond(200, { ok: true }));
 *   server.failNext(2, { status: 500 });
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type RecordedRequest = {
  method: string;
  /** The path without the query string. */
  path: string;
  query: URLSearchParams;
  /** Lower-cased header names. */
  headers: Record<string, string | undefined>;
  rawBody: Buffer;
  /** The parsed JSON body when the content type was JSON and it parsed; else undefined. */
  json: any;
};

export type FakeAnswer = { status: number; body?: unknown; headers?: Record<string, string> };

/** A scripted failure; `body` undefined lets the fake fill in its platform's error body for `status`. */
export type FakeFailure = FakeAnswer;

/** How long an answer waits: fixed ms, or per request. */
export type Latency = number | ((request: RecordedRequest) => number | Promise<unknown>);

export type Respond = (status: number, body?: unknown, headers?: Record<string, string>) => void;

export type HttpFake = {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  requests: RecordedRequest[];
  /**
   * The next `count` requests get `failure` instead of the normal answer; with `match`, the
   * next `count` requests that match it (e.g. to one recipient), others pass.
   */
  failNext: (count: number, failure: FakeFailure, match?: (request: RecordedRequest) => boolean) => void;
  /**
   * Every answer waits first (a slow platform; default 0): `ms`, or per request the ms a
   * function gives (a random latency) or until the promise it returns settles.
   */
  setLatency: (latency: Latency) => void;
  close: () => Promise<void>;
};

/** The whole request body (also for fakes with a server of their own). */
export async function readAll(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A JSON answer with plain `application/json`, for fakes with a server of their own. */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

function headersOf(request: IncomingMessage): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  return headers;
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const isText = typeof body === 'string' || Buffer.isBuffer(body);
  const payload = body === undefined ? '' : isText ? body : JSON.stringify(body);
  response.writeHead(status, { 'content-type': isText ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8', ...headers });
  response.end(payload);
}

export async function startHttpFake(
  handle: (request: RecordedRequest, respond: Respond) => void | Promise<void>,
  failureBody: (failure: FakeFailure) => unknown,
): Promise<HttpFake> {
  const requests: RecordedRequest[] = [];
  const failures: { failure: FakeFailure; match?: (request: RecordedRequest) => boolean }[] = [];
  let latency: Latency = 0;
  const server = createServer(async (req, res) => {
    const rawBody = await readAll(req);
    const url = new URL(req.url ?? '/', 'http://fake');
    const headers = headersOf(req);
    let json: unknown;
    if ((headers['content-type'] ?? '').startsWith('application/json') && rawBody.length > 0) {
      try {
        json = JSON.parse(rawBody.toString('utf8'));
      } catch {
        json = undefined;
      }
    }
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers, rawBody, json };
    const wait = typeof latency === 'number' ? latency : latency(recorded);
    if (typeof wait === 'number') {
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    } else {
      await wait;
    }
    requests.push(recorded);
    const index = failures.findIndex((f) => !f.match || f.match(recorded));
    const failure = index >= 0 ? failures.splice(index, 1)[0]!.failure : undefined;
    if (failure) return send(res, failure.status, failure.body === undefined ? failureBody(failure) : failure.body, failure.headers);
    try {
      await handle(recorded, (status, body, extra) => send(res, status, body, extra));
    } catch (error) {
      send(res, 500, { fake_error: String(error) });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    failNext: (count, failure, match) => {
      for (let i = 0; i < count; i += 1) failures.push({ failure, match });
    },
    setLatency: (value) => {
      latency = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
