/**
 * Parley as a platform (issue #20 items 1, 2 and 7): API keys (scopes, revocation, rate limit),
 * signed webhooks out (a fake receiver on 127.0.0.1 checks every signature as a customer would;
 * retries, delivered once, disabled after persistent failure, private addresses refused), the
 * audit log (a row per change, in its transaction), roles and isolation across businesses.
 */
import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, registerUser, type Workspace } from './helpers/fixtures.ts';
import { startTestWorker, waitFor } from './helpers/worker.ts';
import { startWebhookReceiver, verifyParleySignature, type WebhookReceiver } from './fakes/webhook-receiver.ts';
import { postWebhook, signatureHeader } from '../core/commands/webhooks-out.ts';
import type { SupervisedRunner } from '../workers/supervisor.ts';

let app: TestApp;
let receiver: WebhookReceiver;
let worker: SupervisedRunner;
test.before(async () => {
  [app, receiver] = await Promise.all([startTestApp(), startWebhookReceiver()]);
  // Only the webhook tasks run: other jobs (mail, channel registration) stay in the table to be checked.
  worker = await startTestWorker(app, { only: ['dispatch_webhooks', 'deliver_webhook'] });
});
test.after.always(async () => {
  await worker?.stop();
  await app?.close();
  await receiver?.close();
});

const one = async (text: string, params: unknown[] = []): Promise<any> => (await app.sql(text, params))[0];
let hookCount = 0;

async function apiKey(ws: Workspace, scopes: string[], name = 'Integration'): Promise<{ id: string; key: string }> {
  const res = await app.request('POST', '/api/v1/api-keys', { token: ws.token, body: { name, scopes, password: 'password123' } });
  if (res.status !== 200) throw new Error(`create key failed: ${res.status} ${res.text}`);
  return res.body;
}

/** An endpoint on the fake receiver, its secret handed to the receiver. */
async function webhook(ws: Workspace, events: string[]): Promise<{ id: string; path: string }> {
  const name = `h${(hookCount += 1)}`;
  const res = await app.request('POST', '/api/v1/webhooks', { token: ws.token, body: { url: receiver.url(name), events } });
  if (res.status !== 200) throw new Error(`create webhook failed: ${res.status} ${res.text}`);
  receiver.secrets.set(`/hooks/${name}`, res.body.secret);
  return { id: res.body.id, path: `/hooks/${name}` };
}

const received = (path: string) => receiver.verified.filter((r) => r.path === path);
const delivery = (webhookId: string) => one(`select * from webhook_deliveries where webhook_id = $1 order by created_at limit 1`, [webhookId]);
/** Jobs of a task (graphile-worker's private table: its `jobs` view leaves the payload out), with a condition on `payload`. */
const jobsWhere = (task: string, condition: string, params: unknown[]) =>
  app.sql(
    `select j.id, j.payload from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id where t.identifier = '${task}' and ${condition}`,
    params,
  );
const speedUp = (deliveryId: string, set = 'run_at = now()') =>
  app.sql(
    `update graphile_worker._private_jobs j set ${set} from graphile_worker._private_tasks t
     where t.id = j.task_id and t.identifier = 'deliver_webhook' and j.payload->>'delivery_id' = $1`,
    [deliveryId],
  );
const auditActions = async (businessId: string) =>
  (await app.sql(`select action from audit_log where business_id = $1 order by id`, [businessId])).map((r) => r.action);

// ---------------------------------------------------------------- API keys

test('api keys: shown once as prl_…, stored hashed, listed without the key, used as a bearer with last-used time', async (t) => {
  const ws = await createWorkspace(app);
  const created = await app.request('POST', '/api/v1/api-keys', {
    token: ws.token,
    body: { name: ' CRM sync ', scopes: ['read', 'write'], password: 'password123' },
  });
  t.is(created.status, 200, created.text);
  t.regex(created.body.key, /^prl_[0-9a-f]{32}[A-Za-z0-9_-]{43}$/);
  t.like(created.body, {
    name: 'CRM sync',
    scopes: ['read', 'write'],
    prefix: `prl_…${created.body.key.slice(-4)}`,
    created_by: ws.userId,
    last_used_at: null,
  });
  const row = await one(`select encode(secret_hash, 'hex') as hash, row_to_json(k)::text as everything from api_keys k where id = $1`, [created.body.id]);
  t.false(row.everything.includes(created.body.key.slice(4)), 'the key itself is nowhere in the row');
  t.is(row.hash.length, 64);

  const list = await app.request('GET', '/api/v1/api-keys', { token: ws.token });
  t.is(list.status, 200);
  t.is(list.body.length, 1);
  t.is(list.body[0].key, undefined);
  t.is(list.body[0].id, created.body.id);

  const convs = await app.request('GET', '/api/v1/conversations', { token: created.body.key });
  t.is(convs.status, 200, convs.text);
  const made = await app.request('POST', '/api/v1/conversations', {
    token: created.body.key,
    body: { business_id: ws.businessId, initial_message: 'From the CRM' },
  });
  t.is(made.status, 200, made.text);
  t.truthy((await one(`select last_used_at from api_keys where id = $1`, [created.body.id])).last_used_at);
});

test('api keys: each route needs its scope; keys cannot manage keys nor use account routes', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const read = await apiKey(ws, ['read']);
  const write = await apiKey(ws, ['write']);
  const admin = await apiKey(ws, ['admin']);

  t.is((await app.request('GET', '/api/v1/conversations', { token: read.key })).status, 200);
  const refused = await app.request('POST', '/api/v1/conversations', { token: read.key, body: { business_id: ws.businessId } });
  t.is(refused.status, 403);
  t.deepEqual(refused.body, { detail: 'This API key lacks the `write` scope' });
  t.is((await app.request('GET', '/api/v1/conversations', { token: write.key })).status, 403, 'write does not include read');
  t.is((await app.request('POST', '/api/v1/conversations', { token: write.key, body: { business_id: ws.businessId } })).status, 200);
  t.is((await app.request('POST', '/api/v1/labels', { token: write.key, body: { name: 'x' } })).status, 403, 'labels.manage needs admin');
  t.is((await app.request('POST', '/api/v1/labels', { token: admin.key, body: { name: 'x' } })).status, 200);
  t.is((await app.request('GET', '/api/v1/audit-log', { token: admin.key })).status, 200);
  t.is((await app.request('GET', '/api/v1/audit-log', { token: read.key })).status, 403);

  // Keys never make keys, set a presence, or act on the account.
  const keyForKey = await app.request('POST', '/api/v1/api-keys', { token: admin.key, body: { name: 'escalate', scopes: ['admin'], password: 'password123' } });
  t.is(keyForKey.status, 403);
  t.deepEqual(keyForKey.body, { detail: 'API keys cannot do this; sign in as a person' });
  t.is((await app.request('PATCH', '/api/v1/team/status', { token: admin.key, body: { status: 'live' } })).status, 403);
  for (const [method, path] of [
    ['GET', '/api/v1/auth/me'],
    ['POST', '/api/v1/auth/logout'],
    ['POST', '/api/v1/auth/logout-all'],
  ] as const) {
    const res = await app.request(method, path, { token: admin.key });
    t.is(res.status, 401, path);
    t.deepEqual(res.body, { detail: 'Could not validate credentials' });
  }
  // A malformed or unknown key is 401 like a bad token.
  for (const token of ['prl_nope', `prl_${'0'.repeat(32)}${'A'.repeat(43)}`, admin.key.slice(0, -1) + (admin.key.endsWith('A') ? 'B' : 'A')]) {
    t.is((await app.request('GET', '/api/v1/conversations', { token })).status, 401);
  }
});

test('api keys: a revoked key fails at once; so does the key of a member who was removed', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const key = await apiKey(ws, ['read']);
  t.is((await app.request('GET', '/api/v1/conversations', { token: key.key })).status, 200);
  const revoked = await app.request('DELETE', `/api/v1/api-keys/${key.id}`, { token: ws.token });
  t.is(revoked.status, 200);
  t.deepEqual(revoked.body, { detail: 'API key revoked' });
  t.is((await app.request('GET', '/api/v1/conversations', { token: key.key })).status, 401);
  t.is((await app.request('DELETE', `/api/v1/api-keys/${key.id}`, { token: ws.token })).status, 404);
  t.deepEqual((await app.request('GET', '/api/v1/api-keys', { token: ws.token })).body, []);

  const admin = await addMember(app, ws.businessId, 'admin');
  const adminsKey = await apiKey({ ...admin, businessId: ws.businessId }, ['read']);
  t.is((await app.request('GET', '/api/v1/conversations', { token: adminsKey.key })).status, 200);
  const memberId = (await one(`select id from team_members where user_id = $1`, [admin.userId])).id;
  t.is((await app.request('DELETE', `/api/v1/team/members/${memberId}`, { token: ws.token })).status, 200);
  t.is((await app.request('GET', '/api/v1/conversations', { token: adminsKey.key })).status, 401);
});

test('api keys: rate-limited per key (429 with Retry-After), other keys unaffected', async (t) => {
  const ws = await createWorkspace(app);
  const busy = await apiKey(ws, ['read']);
  const calm = await apiKey(ws, ['read']);
  await app.sql(`insert into rate_windows (key, window_start, count) values ($1, now(), 600)`, [`api_key:${busy.id}`]);
  const res = await app.request('GET', '/api/v1/conversations', { token: busy.key });
  t.is(res.status, 429);
  t.truthy(Number(res.headers.get('retry-after')) >= 1);
  t.is((await app.request('GET', '/api/v1/conversations', { token: calm.key })).status, 200);
});

test("api keys: owners and admins only; bad input is 422; another business's key is 404", async (t) => {
  const ws = await createWorkspace(app);
  const other = await createWorkspace(app);
  const agent = await addMember(app, ws.businessId, 'agent');
  t.is((await app.request('POST', '/api/v1/api-keys', { token: agent.token, body: { name: 'x', scopes: ['read'], password: 'password123' } })).status, 403);
  t.is((await app.request('GET', '/api/v1/api-keys', { token: agent.token })).status, 403);
  const admin = await addMember(app, ws.businessId, 'admin');
  t.is((await app.request('POST', '/api/v1/api-keys', { token: admin.token, body: { name: 'by admin', password: 'password123' } })).status, 200);
  for (const body of [{}, { name: '' }, { name: 'x', scopes: [] }, { name: 'x', scopes: ['root'] }, { name: 'x'.repeat(101) }, { name: 'a\nb' }]) {
    t.is((await app.request('POST', '/api/v1/api-keys', { token: ws.token, body })).status, 422, JSON.stringify(body));
  }
  const key = await apiKey(ws, ['read']);
  t.is((await app.request('DELETE', `/api/v1/api-keys/${key.id}`, { token: other.token })).status, 404);
  t.is((await app.request('DELETE', `/api/v1/api-keys/not-a-uuid`, { token: ws.token })).status, 422);
  t.is((await app.request('GET', '/api/v1/conversations', { token: key.key })).status, 200, 'still valid');
});

// ---------------------------------------------------------------- webhooks

test("webhooks: an agent's reply (one statement that enqueues its own webhook job) is delivered once per event, with the REST objects", async (t) => {
  const ws = await createWorkspace(app);
  const hook = await webhook(ws, ['message.created', 'conversation.updated']);
  const opened = await app.request('POST', '/api/v1/conversations', { token: ws.token, body: { business_id: ws.businessId, initial_message: 'Hello' } });
  t.is(opened.status, 200);
  // Opening it sends its own two (its first message, the conversation touched); then the reply.
  await waitFor(async () => received(hook.path).length >= 2 || null, 20_000, "the opening's deliveries");
  const reply = await app.request('POST', `/api/v1/conversations/${opened.body.id}/messages`, { token: ws.token, body: { content: 'Reply one' } });
  t.is(reply.status, 200);
  await waitFor(async () => received(hook.path).length >= 4 || null, 20_000, "the reply's deliveries");
  // Nothing more follows (the statement enqueued the reply's events; runCommand added none beside them).
  await new Promise((resolve) => setTimeout(resolve, 500));
  const bodies = received(hook.path).map((r) => r.json);
  t.is(bodies.length, 4);
  const ofReply = bodies.slice(2).sort((x, y) => x.type.localeCompare(y.type));
  t.like(ofReply[0], { type: 'conversation.updated', data: { id: opened.body.id, last_message: { id: reply.body.id } } });
  t.like(ofReply[1], { type: 'message.created', data: { id: reply.body.id, content: 'Reply one', sender_type: 'agent' } });
});

test('webhooks: an event is enqueued in its own transaction and delivered signed, with the REST object', async (t) => {
  const ws = await createWorkspace(app);
  const hook = await webhook(ws, ['conversation.created', 'message.created']);
  const res = await app.request('POST', '/api/v1/conversations', { token: ws.token, body: { business_id: ws.businessId, initial_message: 'Hi there' } });
  t.is(res.status, 200);
  const bodies = await waitFor(
    async () => {
      const got = received(hook.path);
      return got.length >= 2 ? got.map((r) => r.json) : null;
    },
    20_000,
    'two deliveries',
  );
  const conversation = bodies.find((b) => b.type === 'conversation.created');
  const message = bodies.find((b) => b.type === 'message.created');
  t.like(conversation, { type: 'conversation.created', data: { id: res.body.id, business_id: ws.businessId } });
  t.like(message, { type: 'message.created', data: { conversation_id: res.body.id, content: 'Hi there' } });
  for (const body of bodies) {
    t.regex(body.id, /^[0-9a-f-]{36}$/);
    t.truthy(Date.parse(body.created_at));
  }
  const rest = await app.request('GET', `/api/v1/conversations/${res.body.id}/messages`, { token: ws.token });
  t.deepEqual(message.data, rest.body.items?.[0] ?? rest.body[0], 'data is the message as REST shows it');
  const request = received(hook.path)[0]!;
  t.is(request.headers['parley-event-id'], request.json.id);
  t.is(receiver.refused.filter((r) => r.path === hook.path).length, 0);
  // Unsubscribed types are not sent; a business without endpoints gets no dispatch job at all.
  const quiet = await createWorkspace(app);
  await app.request('POST', '/api/v1/conversations', { token: quiet.token, body: { business_id: quiet.businessId, initial_message: 'x' } });
  t.is((await jobsWhere('dispatch_webhooks', `j.payload->>'business_id' = $1`, [quiet.businessId])).length, 0);
  const log = await app.request('GET', `/api/v1/webhooks/${hook.id}/deliveries`, { token: ws.token });
  t.is(log.status, 200);
  t.is(log.body.length, 2);
  t.true(log.body.every((d: any) => d.status === 'delivered' && d.attempts === 1 && d.response_status === 200 && typeof d.response_ms === 'number'));
});

test('webhooks: the signature is HMAC-SHA256 over "t.body"; a wrong secret, body or old timestamp fails verification', (t) => {
  const body = '{"id":"1"}';
  const now = Math.floor(Date.now() / 1000);
  const header = signatureHeader('whsec_test', body, now);
  t.regex(header, /^t=\d+,v1=[0-9a-f]{64}$/);
  t.true(verifyParleySignature('whsec_test', header, body));
  t.false(verifyParleySignature('whsec_other', header, body));
  t.false(verifyParleySignature('whsec_test', header, body + ' '));
  t.false(verifyParleySignature('whsec_test', signatureHeader('whsec_test', body, now - 301), body));
});

test('webhooks: a 500 is retried with backoff, then the event is delivered once', async (t) => {
  const ws = await createWorkspace(app);
  const hook = await webhook(ws, ['conversation.created']);
  receiver.failNext(1, { status: 500 }, (r) => r.path === hook.path);
  await app.request('POST', '/api/v1/conversations', { token: ws.token, body: { business_id: ws.businessId } });
  const first = await waitFor(
    async () => {
      const d = await delivery(hook.id);
      return d && d.attempts === 1 ? d : null;
    },
    20_000,
    'first attempt',
  );
  t.is(first.status, 'pending');
  t.is(first.response_status, 500);
  // The retry waits graphile-worker's backoff (e^1 s); bring it forward instead of sleeping.
  await speedUp(first.id);
  const done = await waitFor(
    async () => {
      const d = await delivery(hook.id);
      return d?.status === 'delivered' ? d : null;
    },
    20_000,
    'delivered',
  );
  t.is(done.attempts, 2);
  const all = receiver.requests.filter((r) => r.path === hook.path);
  t.is(all.length, 2);
  t.is(all[0]!.rawBody.toString(), all[1]!.rawBody.toString(), 'the same body (and id) on every attempt');
  t.is(received(hook.path).length, 1, 'verified and accepted once');
  // The job is recorded done just after the delivery row says delivered: wait for that, then nothing is left.
  await waitFor(
    async () => (await jobsWhere('deliver_webhook', `j.payload->>'delivery_id' = $1`, [first.id])).length === 0,
    20_000,
    'no job left to send it again',
  );
  t.is(receiver.requests.filter((r) => r.path === hook.path).length, 2, 'and nothing more was sent');
});

test('webhooks: persistent failure disables the endpoint, mails the owner and is audited', async (t) => {
  const ws = await createWorkspace(app);
  const hook = await webhook(ws, ['conversation.created']);
  receiver.failNext(50, { status: 503 }, (r) => r.path === hook.path);
  await app.request('POST', '/api/v1/conversations', { token: ws.token, body: { business_id: ws.businessId } });
  const first = await waitFor(
    async () => {
      const d = await delivery(hook.id);
      return d && d.attempts === 1 ? d : null;
    },
    20_000,
    'first attempt',
  );
  // Three days of retries, shortened: the job's next attempt is its last.
  await speedUp(first.id, 'max_attempts = 2, run_at = now()');
  const failed = await waitFor(
    async () => {
      const d = await delivery(hook.id);
      return d?.status === 'failed' ? d : null;
    },
    20_000,
    'failed',
  );
  t.is(failed.attempts, 2);
  const endpoint = (await app.request('GET', '/api/v1/webhooks', { token: ws.token })).body[0];
  t.like(endpoint, { id: hook.id, active: false });
  t.regex(endpoint.disabled_reason, /three days/);
  const mail = await jobsWhere('send_email', `j.payload->>'to' = $1 and j.payload->>'subject' like '%webhook%'`, [ws.email]);
  t.is(mail.length, 1, 'the owner is told');
  t.true((await auditActions(ws.businessId)).includes('webhook.disabled'));
  // Turning it back on clears the reason.
  const on = await app.request('PATCH', `/api/v1/webhooks/${hook.id}`, { token: ws.token, body: { active: true } });
  t.like(on.body, { active: true, disabled_reason: null });
});

test('webhooks: private and internal addresses are refused, at creation and when sending', async (t) => {
  const ws = await createWorkspace(app);
  // Link-local (cloud metadata) is refused even where private networks are allowed.
  for (const url of ['http://169.254.169.254/latest/meta-data', 'http://0.0.0.0/x', 'ftp://example.com/x', 'http://user:pw@example.com/x', 'not a url']) {
    const res = await app.request('POST', '/api/v1/webhooks', { token: ws.token, body: { url, events: ['message.created'] } });
    t.is(res.status, 400, url);
  }
  const metadata = await app.request('POST', '/api/v1/webhooks', { token: ws.token, body: { url: 'http://169.254.169.254/', events: ['message.created'] } });
  t.regex(metadata.body.detail, /link-local/);

  // Without ALLOW_PRIVATE_HOSTS, loopback and private ranges are refused too: when sending, nothing reaches the receiver.
  const before = receiver.requests.length;
  const refused = await postWebhook(receiver.url('private'), '{}', {}, { allowPrivate: false });
  t.true('error' in refused && /loopback/.test(refused.error));
  t.is(receiver.requests.length, before);
  const strict = await startTestApp({ env: { ALLOW_PRIVATE_HOSTS: 'false' } });
  try {
    const owner = await createWorkspace(strict);
    for (const url of [receiver.url('x'), 'http://10.1.2.3/hook', 'http://[::1]:8080/hook', 'http://192.168.0.10/']) {
      const res = await strict.request('POST', '/api/v1/webhooks', { token: owner.token, body: { url, events: ['message.created'] } });
      t.is(res.status, 400, url);
      t.regex(res.body.detail, /^Webhook URL refused: .*(loopback|private)/);
    }
  } finally {
    await strict.close();
  }
});

test('webhooks: create, list, change, test event, delete; bad input 422', async (t) => {
  const ws = await createWorkspace(app);
  const created = await app.request('POST', '/api/v1/webhooks', {
    token: ws.token,
    body: { url: receiver.url('crud'), events: ['message.created', 'message.created'] },
  });
  t.is(created.status, 200, created.text);
  t.regex(created.body.secret, /^whsec_/);
  t.like(created.body, { url: receiver.url('crud'), events: ['message.created'], active: true, disabled_reason: null });
  const stored = await one(`select secret_encrypted from webhook_endpoints where id = $1`, [created.body.id]);
  t.false(stored.secret_encrypted.includes(created.body.secret), 'the secret is sealed at rest');
  receiver.secrets.set('/hooks/crud', created.body.secret);

  const list = await app.request('GET', '/api/v1/webhooks', { token: ws.token });
  t.is(list.body.length, 1);
  t.is(list.body[0].secret, undefined);
  const patched = await app.request('PATCH', `/api/v1/webhooks/${created.body.id}`, {
    token: ws.token,
    body: { events: ['conversation.updated'], active: false },
  });
  t.is(patched.status, 200);
  t.like(patched.body, { events: ['conversation.updated'], active: false });

  for (let i = 0; i < 3; i += 1) t.is((await app.request('POST', `/api/v1/webhooks/${created.body.id}/test`, { token: ws.token })).status, 200);
  await waitFor(async () => received('/hooks/crud').length >= 3, 20_000, 'test events');
  t.true(received('/hooks/crud').every((r) => r.json.type === 'webhook.test' && r.json.data.webhook_id === created.body.id));
  const page1 = await app.request('GET', `/api/v1/webhooks/${created.body.id}/deliveries`, { token: ws.token, query: { limit: 2 } });
  t.is(page1.body.length, 2);
  const cursor = page1.headers.get('x-next-cursor');
  t.truthy(cursor);
  const page2 = await app.request('GET', `/api/v1/webhooks/${created.body.id}/deliveries`, { token: ws.token, query: { limit: 2, before: cursor! } });
  t.is(page2.body.length, 1);
  t.is(new Set([...page1.body, ...page2.body].map((d: any) => d.id)).size, 3);
  t.is((await app.request('GET', `/api/v1/webhooks/${created.body.id}/deliveries`, { token: ws.token, query: { before: 'junk' } })).status, 422);

  for (const body of [
    {},
    { url: receiver.url('y') },
    { url: receiver.url('y'), events: [] },
    { url: receiver.url('y'), events: ['nope'] },
    { url: 5, events: ['message.created'] },
  ]) {
    t.is((await app.request('POST', '/api/v1/webhooks', { token: ws.token, body })).status, 422, JSON.stringify(body));
  }
  t.is((await app.request('DELETE', `/api/v1/webhooks/${created.body.id}`, { token: ws.token })).status, 200);
  t.is((await app.request('DELETE', `/api/v1/webhooks/${created.body.id}`, { token: ws.token })).status, 404);
  t.is((await one(`select count(*)::int as n from webhook_deliveries where webhook_id = $1`, [created.body.id])).n, 0);
});

test('webhooks and audit log: owners and admins only; every id route is 404 for another business', async (t) => {
  const ws = await createWorkspace(app);
  const other = await createWorkspace(app);
  const hook = await webhook(ws, ['message.created']);
  const agent = await addMember(app, ws.businessId, 'agent');
  const admin = await addMember(app, ws.businessId, 'admin');
  const calls: [string, string, unknown?][] = [
    ['PATCH', `/api/v1/webhooks/${hook.id}`, { active: false }],
    ['GET', `/api/v1/webhooks/${hook.id}/deliveries`],
    ['POST', `/api/v1/webhooks/${hook.id}/test`],
    ['DELETE', `/api/v1/webhooks/${hook.id}`],
  ];
  for (const [method, path, body] of calls) {
    const res = await app.request(method, path, { token: other.token, body });
    t.is(res.status, 404, `${method} ${path}`);
    t.deepEqual(res.body, { detail: 'Webhook not found' });
    t.is((await app.request(method, path, { token: agent.token, body })).status, 403, `agent ${method} ${path}`);
  }
  // Another business's admin key is no better.
  const otherKey = await apiKey(other, ['admin']);
  t.is((await app.request('DELETE', `/api/v1/webhooks/${hook.id}`, { token: otherKey.key })).status, 404);
  for (const path of ['/api/v1/webhooks', '/api/v1/audit-log']) t.is((await app.request('GET', path, { token: agent.token })).status, 403, path);
  t.is((await app.request('GET', '/api/v1/webhooks', { token: admin.token })).body.length, 1);
  t.deepEqual((await app.request('GET', '/api/v1/webhooks', { token: other.token })).body, []);
  t.is((await app.request('GET', `/api/v1/webhooks/${hook.id}/deliveries`, { token: admin.token })).status, 200);
  t.is((await one(`select active from webhook_endpoints where id = $1`, [hook.id])).active, true, 'untouched by the refused calls');
});

// ---------------------------------------------------------------- audit log

test('audit log: a row for each change, by whom, newest first and paged; no secrets in it', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const req = (method: string, path: string, body?: unknown, query?: Record<string, string>) => app.request(method, path, { token: ws.token, body, query });

  t.is((await req('PATCH', '/api/v1/business', { name: 'Renamed Co' })).status, 200);
  const newcomer = await registerUser(app, 'Newcomer');
  const invited = await req('POST', '/api/v1/team/invite', undefined, { email: newcomer.email, role: 'agent' });
  t.is(invited.status, 200, invited.text);
  t.is((await req('DELETE', `/api/v1/team/members/${invited.body.team_member_id}`)).status, 200);
  const leaver = await addMember(app, ws.businessId, 'admin', { name: 'Leaving Admin' });
  t.is((await app.request('POST', '/api/v1/team/leave', { token: leaver.token })).status, 200);
  const channel = await req('POST', '/api/v1/channels', { type: 'telegram', config: { bot_token: '123:secret-token' } });
  t.is(channel.status, 200, channel.text);
  t.is((await req('PATCH', `/api/v1/channels/${channel.body.id}`, { config: { bot_token: '456:other-secret' } })).status, 200);
  t.is((await req('DELETE', `/api/v1/channels/${channel.body.id}`)).status, 200);
  const key = await apiKey(ws, ['admin'], 'Audit key');
  t.is((await req('DELETE', `/api/v1/api-keys/${key.id}`)).status, 200);
  const key2 = await apiKey(ws, ['admin'], 'Robot');
  // Changes made with a key are recorded as the key.
  const hook = await app.request('POST', '/api/v1/webhooks', { token: key2.key, body: { url: receiver.url('audit'), events: ['message.created'] } });
  t.is(hook.status, 200);
  t.is((await req('PATCH', `/api/v1/webhooks/${hook.body.id}`, { active: false })).status, 200);
  t.is((await req('DELETE', `/api/v1/webhooks/${hook.body.id}`)).status, 200);

  t.deepEqual(await auditActions(ws.businessId), [
    'business.updated',
    'member.invited',
    'member.removed',
    'member.left',
    'channel.created',
    'channel.updated',
    'channel.deleted',
    'api_key.created',
    'api_key.revoked',
    'api_key.created',
    'webhook.created',
    'webhook.updated',
    'webhook.deleted',
  ]);
  const log = await req('GET', '/api/v1/audit-log');
  t.is(log.status, 200);
  t.is(log.body[0].action, 'webhook.deleted', 'newest first');
  const business = log.body.find((e: any) => e.action === 'business.updated');
  t.like(business, {
    actor: { type: 'user', user_id: ws.userId, name: 'Owner', api_key_id: null },
    target_type: 'business',
    target_id: ws.businessId,
    details: { changed: { name: 'Renamed Co' } },
  });
  t.like(
    log.body.find((e: any) => e.action === 'member.left'),
    { actor: { name: 'Leaving Admin', user_id: leaver.userId } },
  );
  t.like(
    log.body.find((e: any) => e.action === 'channel.updated'),
    { details: { type: 'telegram', config_keys: ['bot_token'] } },
  );
  t.like(
    log.body.find((e: any) => e.action === 'webhook.created'),
    { actor: { type: 'api_key', api_key_id: key2.id, user_id: ws.userId } },
  );
  const text = JSON.stringify(log.body);
  for (const secret of ['secret-token', 'other-secret', key.key, key2.key, hook.body.secret]) t.false(text.includes(secret), 'no secret in the log');

  const first = await req('GET', '/api/v1/audit-log', undefined, { limit: '5' });
  t.is(first.body.length, 5);
  const next = first.headers.get('x-next-cursor')!;
  const second = await req('GET', '/api/v1/audit-log', undefined, { limit: '100', before: next });
  t.is(second.body.length, 8);
  t.deepEqual(
    [...first.body, ...second.body].map((e: any) => e.id),
    log.body.map((e: any) => e.id),
  );
  // Another business sees none of it.
  const other = await createWorkspace(app);
  t.deepEqual((await app.request('GET', '/api/v1/audit-log', { token: other.token })).body, []);
});

test("audit log: the row is written in the change's transaction (a refused change leaves none)", async (t) => {
  const ws = await createWorkspace(app);
  // Free allows no telegram channel: 402, and no audit row.
  t.is((await app.request('POST', '/api/v1/channels', { token: ws.token, body: { type: 'telegram', config: { bot_token: '1:a' } } })).status, 402);
  t.is((await app.request('DELETE', `/api/v1/channels/00000000-0000-4000-8000-000000000000`, { token: ws.token })).status, 404);
  t.deepEqual(await auditActions(ws.businessId), []);
});
