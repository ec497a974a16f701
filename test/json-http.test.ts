/**
 * The JSON client of the hot send path (connectors/json-http.ts), against a local HTTP server:
 * what it sends, the answer's status, Retry-After and body (JSON, text, empty), one kept-alive
 * connection for request after request, and a refused connection rejecting.
 */
import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestJson } from '../connectors/json-http.ts';
import { closedPort } from './helpers/ports.ts';

type Seen = { method: string; url: string; headers: http.IncomingHttpHeaders; body: string };

async function server(answer: (seen: Seen, res: http.ServerResponse) => void) {
  const seen: Seen[] = [];
  let connections = 0;
  const srv = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const one = { method: req.method!, url: req.url!, headers: req.headers, body };
      seen.push(one);
      answer(one, res);
    });
  });
  srv.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  return { url, seen, connections: () => connections, close: () => new Promise<void>((resolve) => srv.close(() => resolve())) };
}

test('a POST sends JSON with its headers; the answer is the status, Retry-After and the parsed body; one connection serves both requests', async (t) => {
  const fake = await server((seen, res) => {
    if (seen.url.endsWith('/busy')) {
      res.writeHead(429, { 'retry-after': '7', 'content-type': 'application/json' });
      res.end('{"error":{"message":"slow down","code":4}}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"messages":[{"id":"wamid.1"}]}');
  });
  try {
    const sent = await requestJson('POST', `${fake.url}/v19.0/1066/messages`, { authorization: 'Bearer t0k' }, { to: '1555', text: { body: 'Hé' } });
    t.deepEqual(sent, { status: 200, retryAfter: null, body: { messages: [{ id: 'wamid.1' }] } });
    const busy = await requestJson('POST', `${fake.url}/busy`, { authorization: 'Bearer t0k' }, {});
    t.deepEqual(busy, { status: 429, retryAfter: '7', body: { error: { message: 'slow down', code: 4 } } });
    const [first] = fake.seen;
    t.is(first!.method, 'POST');
    t.is(first!.url, '/v19.0/1066/messages');
    t.is(first!.headers.authorization, 'Bearer t0k');
    t.is(first!.headers['content-type'], 'application/json');
    t.is(first!.headers['content-length'], String(Buffer.byteLength(first!.body)));
    t.deepEqual(JSON.parse(first!.body), { to: '1555', text: { body: 'Hé' } });
    t.is(fake.connections(), 1, 'the second request reused the kept-alive connection');
  } finally {
    await fake.close();
  }
});

test('a GET sends no body; a text answer is its text, an empty one undefined', async (t) => {
  const fake = await server((seen, res) => {
    res.writeHead(seen.url === '/text' ? 502 : 204);
    res.end(seen.url === '/text' ? 'Bad Gateway' : undefined);
  });
  try {
    t.deepEqual(await requestJson('GET', `${fake.url}/text`, {}), { status: 502, retryAfter: null, body: 'Bad Gateway' });
    t.deepEqual(await requestJson('GET', `${fake.url}/empty`, {}), { status: 204, retryAfter: null, body: undefined });
    t.is(fake.seen[0]!.method, 'GET');
    t.is(fake.seen[0]!.body, '');
    t.is(fake.seen[0]!.headers['content-type'], undefined);
  } finally {
    await fake.close();
  }
});

test('a refused connection rejects (the connector makes it transient); a URL that is not HTTP is refused before any request', async (t) => {
  const port = await closedPort();
  await t.throwsAsync(requestJson('POST', `http://127.0.0.1:${port}/x`, {}, {}), { code: 'ECONNREFUSED' });
  await t.throwsAsync(requestJson('GET', 'file:///etc/passwd', {}), { message: /not an HTTP URL/ });
});
