import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

test('register then me', async (t) => {
  const reg = await app.request('POST', '/api/v1/auth/register', { body: { email: ' Ada@Example.com ', full_name: 'Ada', password: 'correct horse' } });
  t.is(reg.status, 200, reg.text);
  t.is(reg.body.token_type, 'bearer');
  const me = await app.request('GET', '/api/v1/auth/me', { token: reg.body.access_token });
  t.is(me.status, 200, me.text);
  t.is(me.body.user.email, 'ada@example.com');
  t.is(me.body.business, null);
  t.truthy(reg.headers.get('x-request-id'));
});

test('validation and malformed json', async (t) => {
  const bad = await app.request('POST', '/api/v1/auth/register', { body: { email: 'nope', password: 'short' } });
  t.is(bad.status, 422);
  t.deepEqual(bad.body.detail.map((d: any) => [d.loc.join('.'), d.type]).sort(), [['body.email', 'value_error'], ['body.full_name', 'missing'], ['body.password', 'string_too_short']]);
  const malformed = await app.request('POST', '/api/v1/auth/login', { rawBody: '{"email":', headers: { 'content-type': 'application/json' } });
  t.is(malformed.status, 422);
  t.deepEqual(malformed.body, { detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] });
  const openapi = await app.request('GET', '/api/v1/openapi.json');
  t.is(openapi.status, 200);
  t.truthy(openapi.body.paths['/api/v1/auth/register'].post);
});

test('workspace fixture', async (t) => {
  const { createWorkspace } = await import('./helpers/fixtures.ts');
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const res = await app.request('GET', '/api/v1/business', { token: ws.token });
  t.is(res.status, 200, res.text);
  t.is(res.body.plan, 'Mini');
  const again = await app.request('POST', '/api/v1/business', { token: ws.token, body: { name: 'x' } });
  t.is(again.status, 400);
});
