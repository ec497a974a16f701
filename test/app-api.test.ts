/**
 * API additions the agent app needs (so any third-party dashboard has them too): a customer's
 * conversation history, the webhook URL a channel's setup steps show, and reconnecting a
 * channel in error without retyping its credentials.
 */
import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, type Workspace } from './helpers/fixtures.ts';

const PUBLIC_URL = 'https://parley.example.com';
let app: TestApp;
test.before(async () => {
  app = await startTestApp({ env: { PUBLIC_URL } });
});
test.after.always(() => app?.close());

async function customer(ws: Workspace, name: string): Promise<string> {
  const [row] = await app.sql(`insert into customers (business_id, name) values ($1, $2) returning id`, [ws.businessId, name]);
  return row.id;
}

async function conversationOf(ws: Workspace, customerId: string): Promise<string> {
  const res = await app.request('POST', '/api/v1/conversations', { token: ws.token, body: { business_id: ws.businessId, customer_id: customerId } });
  if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
  return res.body.id;
}

test('conversations filter by customer: their history, newest first, within the business', async (t) => {
  const ws = await createWorkspace(app);
  const ana = await customer(ws, 'Ana');
  const ben = await customer(ws, 'Ben');
  const first = await conversationOf(ws, ana);
  await conversationOf(ws, ben);
  const second = await conversationOf(ws, ana);
  await app.request('PUT', `/api/v1/conversations/${first}/resolve`, { token: ws.token });

  const res = await app.request('GET', '/api/v1/conversations', { token: ws.token, query: { customer_id: ana } });
  t.is(res.status, 200);
  t.deepEqual(
    res.body.map((c: any) => c.id),
    [first, second],
    'every status, most recently updated first',
  );

  const other = await createWorkspace(app);
  const foreign = await app.request('GET', '/api/v1/conversations', { token: other.token, query: { customer_id: ana } });
  t.deepEqual(foreign.body, [], 'another business sees nothing of this customer');

  const bad = await app.request('GET', '/api/v1/conversations', { token: ws.token, query: { customer_id: 'ana' } });
  t.is(bad.status, 422);
  t.deepEqual(bad.body.detail[0].loc, ['query', 'customer_id']);
});

test('channels carry the webhook URL their platform posts to', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const created = await app.request('POST', '/api/v1/channels', {
    token: ws.token,
    body: { type: 'whatsapp', config: { phone_number_id: '1055', access_token: 'EAAG-secret' } },
  });
  t.is(created.status, 200, created.text);
  t.is(created.body.webhook_url, `${PUBLIC_URL}/api/v1/webhooks/whatsapp`);
  const sms = await app.request('POST', '/api/v1/channels', {
    token: ws.token,
    body: { type: 'sms', config: { account_sid: 'AC1', auth_token: 't', from_number: '+15550001' } },
  });
  t.is(sms.body.webhook_url, `${PUBLIC_URL}/api/v1/webhooks/sms/${sms.body.id}`);
  const list = await app.request('GET', '/api/v1/channels', { token: ws.token });
  t.is(list.body.find((c: any) => c.type === 'webchat').webhook_url, null, 'the built-in web chat has no platform');
  t.is(list.body.find((c: any) => c.type === 'whatsapp').webhook_url, `${PUBLIC_URL}/api/v1/webhooks/whatsapp`);
});

test('reconnect: a channel in error goes back to pending with a fresh registration job', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const created = await app.request('POST', '/api/v1/channels', { token: ws.token, body: { type: 'telegram', config: { bot_token: '123:ABC' } } });
  const id = created.body.id;
  // As the register job leaves it when Telegram refuses the token; its job is done.
  await app.sql(`update channels set status = 'error', last_error = 'Unauthorized' where id = $1`, [id]);
  await app.sql(`delete from graphile_worker._private_jobs where key = $1`, [`register:${id}`]);

  const res = await app.request('POST', `/api/v1/channels/${id}/reconnect`, { token: ws.token });
  t.is(res.status, 200, res.text);
  t.like(res.body, { id, status: 'pending', last_error: null, config: { bot_token: '123:ABC' } });
  const jobs = await app.sql(`select task_identifier from graphile_worker.jobs where key = $1`, [`register:${id}`]);
  t.deepEqual(
    jobs.map((j) => j.task_identifier),
    ['register_channel'],
  );
});

test('reconnect: only owners and admins, only platform channels, only active ones, only their own', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const agent = await addMember(app, ws.businessId, 'agent');
  const created = await app.request('POST', '/api/v1/channels', { token: ws.token, body: { type: 'telegram', config: { bot_token: '456:DEF' } } });
  const id = created.body.id;

  t.is((await app.request('POST', `/api/v1/channels/${id}/reconnect`, { token: agent.token })).status, 403);
  const webchat = (await app.request('GET', '/api/v1/channels', { token: ws.token })).body.find((c: any) => c.type === 'webchat');
  const builtin = await app.request('POST', `/api/v1/channels/${webchat.id}/reconnect`, { token: ws.token });
  t.is(builtin.status, 400);
  t.is(builtin.body.detail, 'This channel has no platform to reconnect to');
  await app.request('PATCH', `/api/v1/channels/${id}`, { token: ws.token, body: { is_active: false } });
  t.is((await app.request('POST', `/api/v1/channels/${id}/reconnect`, { token: ws.token })).status, 400);
  const other = await createWorkspace(app, { plan: 'Pro' });
  const foreign = await app.request('POST', `/api/v1/channels/${id}/reconnect`, { token: other.token });
  t.is(foreign.status, 404);
  t.deepEqual(foreign.body, { detail: 'Channel not found' });
});

test('conversations filter by several statuses at once: open and pending are what waits for the team', async (t) => {
  const ws = await createWorkspace(app);
  const who = await customer(ws, 'Cy');
  const open = await conversationOf(ws, who);
  const pending = await conversationOf(ws, who);
  const resolved = await conversationOf(ws, who);
  await app.sql(`update conversations set status = 'pending' where id = $1`, [pending]);
  await app.request('PUT', `/api/v1/conversations/${resolved}/resolve`, { token: ws.token });

  const res = await app.request('GET', '/api/v1/conversations', { token: ws.token, query: { status: 'open,pending' } });
  t.is(res.status, 200);
  t.deepEqual(res.body.map((c: any) => c.id).sort(), [open, pending].sort());
  const one = await app.request('GET', '/api/v1/conversations', { token: ws.token, query: { status: 'resolved' } });
  t.deepEqual(
    one.body.map((c: any) => c.id),
    [resolved],
  );
  const bad = await app.request('GET', '/api/v1/conversations', { token: ws.token, query: { status: 'open,waiting' } });
  t.is(bad.status, 422);
  t.deepEqual(bad.body.detail[0].loc.slice(0, 2), ['query', 'status']);
});
