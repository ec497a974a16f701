/**
 * How request bodies are taken in (issue #11, items 6 and 17): the token (or the visitor token)
 * is checked before a byte of the body is read, so an unauthenticated request is 401 whatever
 * it carries; a JSON endpoint refuses another content type with 415 naming application/json;
 * a request without a body still works where every field is optional.
 */
import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace } from './helpers/fixtures.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

const notAuthenticated = { detail: 'Not authenticated' };
const badCredentials = { detail: 'Could not validate credentials' };

test('an upload without a token is 401 before the body is read: not 413 for its size, not 422 for its shape', async (t) => {
  const ws = await createWorkspace(app);
  const conversation = await app.request('POST', '/api/v1/conversations', { token: ws.token, body: { business_id: ws.businessId } });
  const url = `/api/v1/conversations/${conversation.body.id}/upload`;
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(11 * 1024 * 1024)], { type: 'image/png' }), 'big.png');
  const huge = await fetch(`${app.url}${url}`, { method: 'POST', body: form });
  t.is(huge.status, 401);
  t.deepEqual(await huge.json(), notAuthenticated);
  const broken = await app.request('POST', url, { rawBody: '--x\r\nnonsense', headers: { 'content-type': 'multipart/form-data; boundary=x' } });
  t.is(broken.status, 401);
  t.deepEqual(broken.body, notAuthenticated);
  const badToken = await app.request('POST', url, {
    token: 'nope',
    rawBody: '--x\r\nnonsense',
    headers: { 'content-type': 'multipart/form-data; boundary=x' },
  });
  t.deepEqual([badToken.status, badToken.body], [401, badCredentials]);
  t.is((await app.sql('select count(*)::int as n from uploads'))[0].n, 0);
});

test('JSON routes check the token before parsing: malformed or oversized bodies without a token are 401', async (t) => {
  for (const [path, body] of [
    ['/api/v1/conversations', '{"business_id": '],
    ['/api/v1/kb/articles', JSON.stringify({ title: 'x'.repeat(2 * 1024 * 1024) })],
    ['/api/v1/visitor/messages', '{not json'],
    ['/api/v1/visitor/messages', JSON.stringify({ content: '' })],
  ]) {
    const res = await app.request('POST', path, { rawBody: body, headers: { 'content-type': 'application/json' } });
    t.is(res.status, 401, path);
    t.deepEqual(res.body, notAuthenticated, path);
    t.is(res.headers.get('www-authenticate'), 'Bearer');
  }
  // An access token is not a visitor token: refused before the body is looked at.
  const ws = await createWorkspace(app);
  const asUser = await app.request('POST', '/api/v1/visitor/messages', {
    token: ws.token,
    rawBody: '{not json',
    headers: { 'content-type': 'application/json' },
  });
  t.deepEqual([asUser.status, asUser.body], [401, badCredentials]);
});

test('a JSON endpoint answers another content type with 415 naming application/json, and changes nothing', async (t) => {
  const ws = await createWorkspace(app);
  const json = JSON.stringify({ title: 'Refunds', content: 'Five days.' });
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', null]) {
    const headers: Record<string, string> = type ? { 'content-type': type } : {};
    const res = await app.request('POST', '/api/v1/kb/articles', { token: ws.token, rawBody: type === null ? Buffer.from(json) : json, headers });
    t.is(res.status, 415, String(type));
    t.regex(res.body.detail, /application\/json/, String(type));
  }
  t.is((await app.sql('select count(*)::int as n from kb_articles'))[0].n, 0);
  // The JSON type with parameters, in any case, is JSON.
  const ok = await app.request('POST', '/api/v1/kb/articles', {
    token: ws.token,
    rawBody: json,
    headers: { 'content-type': 'Application/JSON; charset=utf-8' },
  });
  t.is(ok.status, 200, ok.text);
});

test('a request without a body works where the body is optional; a required body still reports its fields', async (t) => {
  const ws = await createWorkspace(app);
  for (const headers of [{}, { 'content-type': 'text/plain' }, { 'content-type': 'application/json' }] as Record<string, string>[]) {
    const res = await app.request('PATCH', '/api/v1/business', { token: ws.token, headers });
    t.is(res.status, 200, `${JSON.stringify(headers)} ${res.text}`);
  }
  const logout = await app.request('POST', '/api/v1/auth/logout', { token: (await createWorkspace(app)).token });
  t.is(logout.status, 200, logout.text);
  const missing = await app.request('POST', '/api/v1/kb/articles', { token: ws.token });
  t.is(missing.status, 422);
  t.deepEqual(
    missing.body.detail.map((d: any) => [d.loc.join('.'), d.type]),
    [
      ['body.title', 'missing'],
      ['body.content', 'missing'],
    ],
  );
});

test('the OpenAPI document lists 401 for visitor routes, 413 and 415 for JSON bodies, and an optional body as optional', async (t) => {
  const doc = (await app.request('GET', '/api/v1/openapi.json')).body;
  const send = doc.paths['/api/v1/visitor/messages'].post;
  t.deepEqual(send.security, [{ visitorToken: [] }]);
  t.truthy(send.responses['401']);
  t.truthy(doc.paths['/api/v1/kb/articles'].post.responses['415']);
  t.truthy(doc.paths['/api/v1/kb/articles'].post.responses['413']);
  t.true(doc.paths['/api/v1/kb/articles'].post.requestBody.required);
  t.false(doc.paths['/api/v1/business'].patch.requestBody.required);
});
