/**
 * What every request shares: health and readiness, the OpenAPI document and docs page,
 * request ids, body size, unknown routes, the 500 body, and CORS.
 */
import test from 'ava';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type Koa from 'koa';
import { z } from '../lib/zod.ts';
import { createDb, sql } from '../core/adapters/postgres/db.ts';
import type { Deps } from '../core/deps.ts';
import { createApp } from '../api/app.ts';
import { defineRoute, type AnyRoute } from '../api/route.ts';
import { allRoutes } from '../api/routes/index.ts';
import authRoutes from '../api/routes/auth/routes.ts';
import systemRoutes from '../api/routes/system/routes.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { registerUser } from './helpers/fixtures.ts';
import { startDbProxy } from './helpers/db-proxy.ts';

const ALLOWED_ORIGIN = 'https://app.parley.example';

let app: TestApp;
test.before(async () => {
  app = await startTestApp({ env: { CORS_ORIGINS: `${ALLOWED_ORIGIN}, https://admin.parley.example` } });
});
test.after.always(() => app?.close());

/** Serves a Koa app on 127.0.0.1 for one test; returns a fetch bound to it. */
async function serve(koa: Koa) {
  const server = http.createServer(koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    fetch: (path: string, init?: RequestInit) => fetch(base + path, init),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function captureLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) }));
  return { logger, lines };
}

test('GET /healthz is 200 without touching the database', async (t) => {
  const res = await app.request('GET', '/healthz');
  t.is(res.status, 200);
  t.deepEqual(res.body, { status: 'ok' });
});

test('every answer carries X-Content-Type-Options: nosniff, errors and 404s included', async (t) => {
  const answers = [
    await app.request('GET', '/healthz'),
    await app.request('GET', '/api/v1/auth/me'),
    await app.request('GET', '/api/v1/no-such-route'),
    await app.request('POST', '/api/v1/auth/login', { body: { email: 'x' } }),
  ];
  t.deepEqual(
    answers.map((r) => r.status),
    [200, 401, 404, 422],
  );
  for (const res of answers) t.is(res.headers.get('x-content-type-options'), 'nosniff');
});

test('GET /readyz is 200 when the database answers', async (t) => {
  const res = await app.request('GET', '/readyz');
  t.is(res.status, 200);
  t.deepEqual(res.body, { status: 'ready' });
});

test('GET /readyz is 503 when the database is unreachable; /healthz stays 200', async (t) => {
  const proxy = await startDbProxy(app.databaseUrl);
  const db = await createDb(proxy.url, { maxPoolSize: 1 });
  const server = await serve(createApp({ ...app.deps, db } satisfies Deps, systemRoutes));
  try {
    t.is((await server.fetch('/readyz')).status, 200);
    await proxy.down();
    const ready = await server.fetch('/readyz');
    t.is(ready.status, 503);
    t.deepEqual(await ready.json(), { detail: 'Database unreachable' });
    t.is(ready.headers.get('retry-after'), null, "as /readyz's description says: a prober keeps its own schedule");
    t.is((await server.fetch('/healthz')).status, 200);
  } finally {
    await server.close();
    await db.end().catch(() => {});
  }
});

test('GET /api/v1/openapi.json is an OpenAPI 3.1 document listing every auth path', async (t) => {
  const res = await app.request('GET', '/api/v1/openapi.json');
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /application\/json/);
  const doc = res.body;
  t.is(doc.openapi, '3.1.0');
  t.is(doc.info.title, 'Parley API');
  t.deepEqual(doc.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  const expected: [string, string, boolean][] = [
    ['/api/v1/auth/register', 'post', false],
    ['/api/v1/auth/login', 'post', false],
    ['/api/v1/auth/google', 'post', false],
    ['/api/v1/auth/logout', 'post', true],
    ['/api/v1/auth/me', 'get', true],
    ['/api/v1/auth/verify-email/send', 'post', true],
    ['/api/v1/auth/verify-email', 'post', false],
    ['/api/v1/auth/password-reset', 'post', false],
    ['/api/v1/auth/password-reset/confirm', 'post', false],
    ['/api/v1/auth/password', 'post', true],
    ['/api/v1/auth/logout-all', 'post', true],
    ['/api/v1/auth/login/two-factor', 'post', false],
    ['/api/v1/auth/two-factor/setup', 'post', true],
    ['/api/v1/auth/two-factor/enable', 'post', true],
    ['/api/v1/auth/two-factor/disable', 'post', true],
    ['/api/v1/auth/two-factor/recovery-codes', 'post', true],
    ['/healthz', 'get', false],
    ['/readyz', 'get', false],
  ];
  for (const [path, method, secured] of expected) {
    const op = doc.paths[path]?.[method];
    t.truthy(op, `${method} ${path}`);
    t.deepEqual(op.security, secured ? [{ bearerAuth: [] }] : [], `${method} ${path} security`);
    t.truthy(op.responses['200'] ?? op.responses['202'], `${method} ${path} success`);
    if (secured) t.truthy(op.responses['401'], `${method} ${path} 401`);
  }
  // Every declared auth route is documented, with its error statuses.
  t.is(authRoutes.length, 16);
  for (const route of authRoutes) t.truthy(doc.paths[route.path]?.[route.method], route.path);
  t.deepEqual(Object.keys(doc.paths['/api/v1/auth/login'].post.responses).sort(), ['200', '401', '413', '415', '422', '429']);
  t.deepEqual(Object.keys(doc.paths['/api/v1/auth/google'].post.responses).sort(), ['200', '400', '401', '413', '415', '422', '503']);
  t.deepEqual(Object.keys(doc.paths['/api/v1/auth/register'].post.responses).sort(), ['200', '400', '413', '415', '422']);
  const register = doc.paths['/api/v1/auth/register'].post.requestBody.content['application/json'].schema;
  t.truthy(register);
  // Every mounted API route appears in the document (the agent app's pages are hidden).
  const toOpenApi = (p: string) => p.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  for (const route of allRoutes.filter((r) => !r.hidden)) t.truthy(doc.paths[toOpenApi(route.path)]?.[route.method], `${route.method} ${route.path}`);
});

test('GET /docs is an HTML page that reads the OpenAPI document', async (t) => {
  const res = await app.request('GET', '/docs');
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^text\/html/);
  t.regex(res.text, /^<!doctype html>/i);
  t.true(res.text.includes('/api/v1/openapi.json'));
  // Its own script and stylesheet run by their hashes; nothing else may run, load or be fetched elsewhere.
  const policy = res.headers.get('content-security-policy') ?? '';
  t.regex(policy, /default-src 'none'/);
  t.regex(policy, /script-src 'sha256-[A-Za-z0-9+/]+=*'(;|$)/);
  t.regex(policy, /connect-src 'self'/);
  t.false(/unsafe-inline|unsafe-eval/.test(policy));
});

const decisionsMarkdown = readFileSync(new URL('../docs/decisions.md', import.meta.url), 'utf8');

/** Every `docs/decisions.md#anchor` the OpenAPI document names (the placeholder `#…` is not one). */
function linkedAnchors(document: unknown): string[] {
  const text = JSON.stringify(document);
  return [...new Set([...text.matchAll(/docs\/decisions\.md#([a-z0-9_-]+)/g)].map((m) => m[1]))];
}

test('GET /docs/decisions is an HTML page by default, with an element for every anchor the OpenAPI document links', async (t) => {
  const anchors = linkedAnchors((await app.request('GET', '/api/v1/openapi.json')).body);
  t.true(anchors.length >= 10, anchors.join());
  const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
  for (const headers of [{}, { accept: browserAccept }, { accept: 'application/json' }] as Record<string, string>[]) {
    const res = await app.request('GET', '/docs/decisions', { headers });
    t.is(res.status, 200);
    t.regex(res.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
    t.regex(res.headers.get('vary') ?? '', /Accept/);
    const ids = new Set([...res.text.matchAll(/<[a-z0-9]+ id="([^"]+)"/g)].map((m) => m[1]));
    t.deepEqual(
      anchors.filter((anchor) => !ids.has(anchor)),
      [],
      JSON.stringify(headers),
    );
  }
  const page = await app.request('GET', '/docs/decisions');
  t.regex(page.text, /^<!doctype html>/i);
  t.regex(page.text, /<title>Decisions Parley took where its contract was silent · Parley<\/title>/);
  t.regex(page.text, /<a href="\/docs">/);
  t.regex(page.text, /<h2 id="rate-and-size-limits">.*Rate and size limits/);
  t.regex(page.text, /<table>[\s\S]*<td>10,000 characters<\/td>/);
  t.false(page.text.includes('## '), 'no Markdown heading left unrendered');
  // Nothing on the page may run: no script, and a policy that would refuse one.
  t.false(/<script/i.test(page.text));
  const policy = page.headers.get('content-security-policy') ?? '';
  t.regex(policy, /default-src 'none'/);
  t.false(/script-src|unsafe-inline/.test(policy), policy);
});

test('GET /docs/decisions with Accept: text/markdown is the Markdown source', async (t) => {
  for (const accept of ['text/markdown', 'text/markdown, text/html;q=0.5']) {
    const res = await app.request('GET', '/docs/decisions', { headers: { accept } });
    t.is(res.status, 200);
    t.regex(res.headers.get('content-type') ?? '', /^text\/markdown; charset=utf-8/);
    t.regex(res.headers.get('vary') ?? '', /Accept/);
    t.is(res.text, decisionsMarkdown);
  }
});

test('GET /docs/decisions revalidates by ETag, one per representation', async (t) => {
  const html = await app.request('GET', '/docs/decisions');
  const markdown = await app.request('GET', '/docs/decisions', { headers: { accept: 'text/markdown' } });
  const htmlTag = html.headers.get('etag') ?? '';
  const markdownTag = markdown.headers.get('etag') ?? '';
  t.regex(htmlTag, /^"[\w-]+"$/);
  t.regex(markdownTag, /^"[\w-]+"$/);
  t.not(htmlTag, markdownTag);
  t.is(html.headers.get('cache-control'), 'no-cache');
  const again = await app.request('GET', '/docs/decisions', { headers: { 'if-none-match': htmlTag } });
  t.is(again.status, 304);
  t.is(again.text, '');
  // The other representation's tag does not match this one.
  t.is((await app.request('GET', '/docs/decisions', { headers: { 'if-none-match': markdownTag } })).status, 200);
  t.is((await app.request('GET', '/docs/decisions', { headers: { accept: 'text/markdown', 'if-none-match': markdownTag } })).status, 304);
});

test('the OpenAPI document describes /healthz, /readyz, /docs, and both types of /docs/decisions', async (t) => {
  const doc = (await app.request('GET', '/api/v1/openapi.json')).body;
  t.deepEqual(Object.keys(doc.paths['/docs/decisions'].get.responses['200'].content), ['text/html', 'text/markdown']);
  t.regex(doc.paths['/healthz'].get.description, /liveness/i);
  t.regex(doc.paths['/readyz'].get.description, /503/);
  t.regex(doc.paths['/docs'].get.description, /openapi\.json/);
});

test('every response carries X-Request-Id; a sane one sent by the client is echoed', async (t) => {
  const generated = await app.request('GET', '/healthz');
  t.regex(generated.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  const other = await app.request('GET', '/healthz');
  t.not(other.headers.get('x-request-id'), generated.headers.get('x-request-id'));
  const echoed = await app.request('GET', '/healthz', { headers: { 'x-request-id': 'lb-trace.42:abc_DEF' } });
  t.is(echoed.headers.get('x-request-id'), 'lb-trace.42:abc_DEF');
  // Errors carry it too.
  const missing = await app.request('GET', '/api/v1/auth/me', { headers: { 'x-request-id': 'req-401' } });
  t.is(missing.status, 401);
  t.is(missing.headers.get('x-request-id'), 'req-401');
  // Anything unsafe for a log line is replaced by a fresh id.
  for (const unsafe of ['has space', 'x'.repeat(129), 'new\u00e9line']) {
    const res = await app.request('GET', '/healthz', { headers: { 'x-request-id': unsafe } });
    t.regex(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, unsafe);
  }
});

test('a body over 1 MiB is 413 {detail}; just under the limit is read', async (t) => {
  const big = JSON.stringify({ email: 'big@example.com', password: 'password123', full_name: 'x'.repeat(1024 * 1024) });
  const res = await app.request('POST', '/api/v1/auth/register', { rawBody: big, headers: { 'content-type': 'application/json' } });
  t.is(res.status, 413);
  t.deepEqual(res.body, { detail: 'Request body too large' });
  const bigText = await app.request('POST', '/api/v1/auth/login', { rawBody: 'x'.repeat(1024 * 1024 + 1), headers: { 'content-type': 'application/json' } });
  t.is(bigText.status, 413);
  t.deepEqual(bigText.body, { detail: 'Request body too large' });
  // 1,000,000 bytes is within the limit: the body is parsed and validated (the name is too long).
  const under = JSON.stringify({ email: 'big@example.com', password: 'password123', full_name: 'x'.repeat(1_000_000) });
  const parsed = await app.request('POST', '/api/v1/auth/register', { rawBody: under, headers: { 'content-type': 'application/json' } });
  t.is(parsed.status, 422);
  t.deepEqual(
    parsed.body.detail.map((d: { loc: string[]; type: string }) => [d.loc.join('.'), d.type]),
    [['body.full_name', 'string_too_long']],
  );
});

test('an unknown route is 404 {detail}; a known path with another method is 405 {detail}', async (t) => {
  for (const path of ['/api/v1/nothing-here', '/nothing-here', '/api/v2/auth/me']) {
    const res = await app.request('GET', path);
    t.is(res.status, 404, path);
    t.deepEqual(res.body, { detail: 'Not Found' }, path);
    t.truthy(res.headers.get('x-request-id'));
  }
  const wrongMethod = await app.request('DELETE', '/api/v1/auth/login');
  t.is(wrongMethod.status, 405);
  t.deepEqual(wrongMethod.body, { detail: 'Method Not Allowed' });
  t.regex(wrongMethod.headers.get('allow') ?? '', /POST/);
});

test('an unexpected error is 500 {detail, request_id} without internals, and is logged', async (t) => {
  const { logger, lines } = captureLogger();
  const routes: AnyRoute[] = [
    defineRoute({
      method: 'get',
      path: '/boom',
      summary: 'throws',
      tags: ['Test'],
      auth: 'none',
      handler: async () => {
        throw new Error('secret internals: connection string postgres://admin:hunter2@db');
      },
    }),
    defineRoute({
      method: 'get',
      path: '/bad-sql',
      summary: 'bad SQL',
      tags: ['Test'],
      auth: 'none',
      handler: async ({ deps }) => deps.db.one(sql.type(z.object({ x: z.number() }))`select x from table_that_does_not_exist`),
    }),
  ];
  const server = await serve(createApp({ ...app.deps, logger }, routes));
  try {
    for (const path of ['/boom', '/bad-sql']) {
      const res = await server.fetch(path, { headers: { 'x-request-id': `req-${path.slice(1)}` } });
      t.is(res.status, 500, path);
      const text = await res.text();
      t.deepEqual(JSON.parse(text), { detail: 'Internal server error', request_id: `req-${path.slice(1)}` }, path);
      t.is(res.headers.get('x-request-id'), `req-${path.slice(1)}`);
      for (const leak of ['hunter2', 'internals', 'table_that_does_not_exist', 'select', ' at ', '.ts:']) t.false(text.includes(leak), `${path} leaks ${leak}`);
    }
    const errors = lines.filter((l) => l.msg === 'unhandled error');
    t.is(errors.length, 2);
    t.is(errors[0].request_id, 'req-boom');
    t.is(errors[0].level, 50);
  } finally {
    await server.close();
  }
});

test('CORS: the API answers only the configured origins', async (t) => {
  const { token } = await registerUser(app, 'Cors User');
  const allowed = await app.request('GET', '/api/v1/auth/me', { token, headers: { origin: ALLOWED_ORIGIN } });
  t.is(allowed.status, 200);
  t.is(allowed.headers.get('access-control-allow-origin'), ALLOWED_ORIGIN);
  t.regex(allowed.headers.get('vary') ?? '', /Origin/);
  t.regex(allowed.headers.get('access-control-expose-headers') ?? '', /X-Request-Id/);
  t.is(
    (await app.request('GET', '/healthz', { headers: { origin: 'https://admin.parley.example' } })).headers.get('access-control-allow-origin'),
    'https://admin.parley.example',
  );
  // Error responses carry it too, so the browser can read them.
  const unauthenticated = await app.request('GET', '/api/v1/auth/me', { headers: { origin: ALLOWED_ORIGIN } });
  t.is(unauthenticated.status, 401);
  t.is(unauthenticated.headers.get('access-control-allow-origin'), ALLOWED_ORIGIN);

  for (const origin of ['https://evil.example', 'https://app.parley.example.evil.example', 'http://app.parley.example', 'null']) {
    const res = await app.request('GET', '/api/v1/auth/me', { token, headers: { origin } });
    t.is(res.headers.get('access-control-allow-origin'), null, origin);
  }
  t.is((await app.request('GET', '/api/v1/auth/me', { token })).headers.get('access-control-allow-origin'), null);

  const preflight = await app.request('OPTIONS', '/api/v1/auth/login', {
    headers: { origin: ALLOWED_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization' },
  });
  t.is(preflight.status, 204);
  t.is(preflight.headers.get('access-control-allow-origin'), ALLOWED_ORIGIN);
  t.regex(preflight.headers.get('access-control-allow-methods') ?? '', /POST/);
  t.regex(preflight.headers.get('access-control-allow-headers') ?? '', /authorization/);
  const refused = await app.request('OPTIONS', '/api/v1/auth/login', { headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
  t.is(refused.headers.get('access-control-allow-origin'), null);
  t.is(refused.headers.get('access-control-allow-methods'), null);
});

test('CORS: public routes answer any origin; without CORS_ORIGINS no other route does', async (t) => {
  const routes: AnyRoute[] = [
    defineRoute({ method: 'get', path: '/public/:id', summary: 'public', tags: ['Test'], auth: 'none', publicCors: true, handler: async () => ({ ok: true }) }),
    ...systemRoutes,
  ];
  const server = await serve(createApp({ ...app.deps, config: { ...app.deps.config, CORS_ORIGINS: [] } }, routes));
  try {
    const pub = await server.fetch('/public/123', { headers: { origin: 'https://customer-site.example' } });
    t.is(pub.status, 200);
    t.is(pub.headers.get('access-control-allow-origin'), '*');
    const other = await server.fetch('/healthz', { headers: { origin: ALLOWED_ORIGIN } });
    t.is(other.status, 200);
    t.is(other.headers.get('access-control-allow-origin'), null);
  } finally {
    await server.close();
  }
});
