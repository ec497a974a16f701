import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, registerUser } from './helpers/fixtures.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

const stored = async (businessId: string) =>
  (await app.sql(`select ai_auto_reply_enabled from businesses where id = $1`, [businessId]))[0].ai_auto_reply_enabled;

test('read defaults to off; owner on Mini enables and disables', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const read = await app.request('GET', '/api/v1/ai/settings', { token: ws.token });
  t.is(read.status, 200, read.text);
  t.deepEqual(read.body, { auto_reply_enabled: false });
  const on = await app.request('PUT', '/api/v1/ai/settings', { token: ws.token, body: { auto_reply_enabled: true } });
  t.is(on.status, 200, on.text);
  t.deepEqual(on.body, { auto_reply_enabled: true });
  t.true(await stored(ws.businessId));
  t.deepEqual((await app.request('GET', '/api/v1/ai/settings', { token: ws.token })).body, { auto_reply_enabled: true });
  const off = await app.request('PUT', '/api/v1/ai/settings', { token: ws.token, body: { auto_reply_enabled: false } });
  t.deepEqual(off.body, { auto_reply_enabled: false });
  t.false(await stored(ws.businessId));
});

test('Free: enabling is 402 feature_not_available and changes nothing; disabling is fine', async (t) => {
  const ws = await createWorkspace(app);
  const on = await app.request('PUT', '/api/v1/ai/settings', { token: ws.token, body: { auto_reply_enabled: true } });
  t.is(on.status, 402, on.text);
  t.like(on.body, { error: 'feature_not_available', plan: 'Free', feature: 'ai_auto_reply' });
  t.is(typeof on.body.message, 'string');
  t.false(await stored(ws.businessId));
  const off = await app.request('PUT', '/api/v1/ai/settings', { token: ws.token, body: { auto_reply_enabled: false } });
  t.is(off.status, 200, off.text);
  t.deepEqual(off.body, { auto_reply_enabled: false });
});

test('Pro admin may change it; an agent reads but gets 403 on change', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const admin = await addMember(app, ws.businessId, 'admin');
  const agent = await addMember(app, ws.businessId, 'agent');
  const byAdmin = await app.request('PUT', '/api/v1/ai/settings', { token: admin.token, body: { auto_reply_enabled: true } });
  t.is(byAdmin.status, 200, byAdmin.text);
  t.deepEqual((await app.request('GET', '/api/v1/ai/settings', { token: agent.token })).body, { auto_reply_enabled: true });
  const byAgent = await app.request('PUT', '/api/v1/ai/settings', { token: agent.token, body: { auto_reply_enabled: false } });
  t.is(byAgent.status, 403, byAgent.text);
  t.true(await stored(ws.businessId));
});

test('validation 422, no business 400, no token 401', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const missing = await app.request('PUT', '/api/v1/ai/settings', { token: ws.token, body: {} });
  t.is(missing.status, 422);
  t.deepEqual(
    missing.body.detail.map((d: any) => [d.loc.join('.'), d.type]),
    [['body.auto_reply_enabled', 'missing']],
  );
  const wrongType = await app.request('PUT', '/api/v1/ai/settings', { token: ws.token, body: { auto_reply_enabled: 'yes' } });
  t.is(wrongType.status, 422);
  t.deepEqual(
    wrongType.body.detail.map((d: any) => [d.loc.join('.'), d.type]),
    [['body.auto_reply_enabled', 'bool_type']],
  );
  const loner = await registerUser(app, 'Loner');
  t.is((await app.request('GET', '/api/v1/ai/settings', { token: loner.token })).status, 400);
  t.is((await app.request('PUT', '/api/v1/ai/settings', { token: loner.token, body: { auto_reply_enabled: false } })).status, 400);
  t.is((await app.request('GET', '/api/v1/ai/settings')).status, 401);
  t.is((await app.request('PUT', '/api/v1/ai/settings', { body: { auto_reply_enabled: false } })).status, 401);
});
