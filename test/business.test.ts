import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, registerUser, type Account, type Workspace } from './helpers/fixtures.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

async function invite(ws: Workspace, role: 'agent' | 'admin'): Promise<Account> {
  const user = await registerUser(app, role);
  const res = await app.request('POST', '/api/v1/team/invite', { token: ws.token, query: { email: user.email, role } });
  if (res.status !== 200) throw new Error(`invite failed: ${res.status} ${res.text}`);
  return user;
}

const businessCount = async (ownerId: string) => Number((await app.sql('select count(*) from businesses where owner_id = $1', [ownerId]))[0].count);

// ---------- POST /business

test('create: the business, the owner membership and the built-in webchat channel', async (t) => {
  const user = await registerUser(app, 'Bea');
  const res = await app.request('POST', '/api/v1/business', {
    token: user.token,
    body: { name: "  Bea's Bakery ", website: 'https://bea.example', industry: 'Food', team_size: '1-10', goal: 'Support', unknown: 'ignored' },
  });
  t.is(res.status, 200, res.text);
  t.deepEqual(Object.keys(res.body).sort(), ['created_at', 'goal', 'id', 'industry', 'name', 'number', 'plan', 'team_size', 'website']);
  t.like(res.body, { name: "Bea's Bakery", website: 'https://bea.example', industry: 'Food', team_size: '1-10', goal: 'Support', plan: 'Free' });
  t.true(Number.isInteger(res.body.number));
  t.regex(res.body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

  const member = await app.sql('select role, status, is_active, agent_number from team_members where user_id = $1 and business_id = $2', [
    user.userId,
    res.body.id,
  ]);
  t.deepEqual(member, [{ role: 'owner', status: 'offline', is_active: true, agent_number: 1 }]);
  const channels = await app.sql('select type, is_builtin, is_active from channels where business_id = $1', [res.body.id]);
  t.deepEqual(channels, [{ type: 'webchat', is_builtin: true, is_active: true }]);
  const business = await app.sql('select owner_id, next_agent_number from businesses where id = $1', [res.body.id]);
  t.deepEqual(business[0], { owner_id: user.userId, next_agent_number: 2 });

  const me = await app.request('GET', '/api/v1/auth/me', { token: user.token });
  t.like(me.body, { onboarding_complete: true, team_role: 'owner' });
  t.is(me.body.business.id, res.body.id);
});

test('create: optional fields default to empty strings', async (t) => {
  const user = await registerUser(app);
  const res = await app.request('POST', '/api/v1/business', { token: user.token, body: { name: 'Minimal' } });
  t.is(res.status, 200, res.text);
  t.like(res.body, { name: 'Minimal', website: '', industry: '', team_size: '', goal: '' });
});

test('create: a second business is 400, also for an invited member', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const again = await app.request('POST', '/api/v1/business', { token: ws.token, body: { name: 'Second' } });
  t.is(again.status, 400);
  t.deepEqual(again.body, { detail: 'User already belongs to a business' });
  t.is(await businessCount(ws.userId), 1);
  const agent = await invite(ws, 'agent');
  const own = await app.request('POST', '/api/v1/business', { token: agent.token, body: { name: 'Mine' } });
  t.is(own.status, 400);
  t.is(await businessCount(agent.userId), 0);
});

test('create: two at once make one business and one 400', async (t) => {
  const user = await registerUser(app);
  const results = await Promise.all([1, 2].map((n) => app.request('POST', '/api/v1/business', { token: user.token, body: { name: `Race ${n}` } })));
  t.deepEqual(results.map((r) => r.status).sort(), [200, 400]);
  t.is(await businessCount(user.userId), 1);
});

test('a business name with control characters or bidi overrides is 422, on create and on update', async (t) => {
  const user = await registerUser(app);
  const bad = await app.request('POST', '/api/v1/business', { token: user.token, body: { name: 'Acme\u202e' } });
  t.is(bad.status, 422);
  t.deepEqual(
    bad.body.detail.map((d: any) => [d.loc.join('.'), d.type]),
    [['body.name', 'string_pattern_mismatch']],
  );
  t.is((await app.sql('select 1 from team_members where user_id = $1', [user.userId])).length, 0);
  const ws = await createWorkspace(app);
  const update = await app.request('PATCH', '/api/v1/business', { token: ws.token, body: { name: 'Acme\r\nBcc: x' } });
  t.is(update.status, 422);
  const [row] = await app.sql('select name from businesses where id = $1', [ws.businessId]);
  t.not(row.name, 'Acme\r\nBcc: x');
});

test('create: bad bodies are 422 and write nothing', async (t) => {
  const user = await registerUser(app);
  const cases: [unknown, string, string][] = [
    [{}, 'name', 'missing'],
    [{ name: '' }, 'name', 'string_too_short'],
    [{ name: '   ' }, 'name', 'string_too_short'],
    [{ name: 'x'.repeat(101) }, 'name', 'string_too_long'],
    [{ name: 42 }, 'name', 'string_type'],
    [{ name: 'ok', website: 'w'.repeat(201) }, 'website', 'string_too_long'],
    [{ name: 'ok', goal: ['a'] }, 'goal', 'string_type'],
  ];
  for (const [body, field, type] of cases) {
    const res = await app.request('POST', '/api/v1/business', { token: user.token, body });
    t.is(res.status, 422, JSON.stringify(body));
    t.deepEqual(
      res.body.detail.map((d: any) => [d.loc, d.type]),
      [[['body', field], type]],
      JSON.stringify(body),
    );
  }
  const malformed = await app.request('POST', '/api/v1/business', { token: user.token, rawBody: '{"name":', headers: { 'content-type': 'application/json' } });
  t.is(malformed.status, 422);
  t.deepEqual(malformed.body.detail[0], { loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' });
  t.is(await businessCount(user.userId), 0);
});

test('create: 401 without a token', async (t) => {
  const res = await app.request('POST', '/api/v1/business', { body: { name: 'Nobody' } });
  t.is(res.status, 401);
  t.deepEqual(res.body, { detail: 'Not authenticated' });
});

// ---------- GET /business

test("read: the caller's business, for every role", async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini', name: 'Reader' });
  const agent = await invite(ws, 'agent');
  const own = await app.request('GET', '/api/v1/business', { token: ws.token });
  t.is(own.status, 200, own.text);
  t.like(own.body, { id: ws.businessId, name: "Reader's Co", plan: 'Mini' });
  const asAgent = await app.request('GET', '/api/v1/business', { token: agent.token });
  t.is(asAgent.status, 200);
  t.deepEqual(asAgent.body, own.body);
});

test('read: 404 without a business, 401 without a token', async (t) => {
  const user = await registerUser(app);
  const res = await app.request('GET', '/api/v1/business', { token: user.token });
  t.is(res.status, 404);
  t.is(typeof res.body.detail, 'string');
  t.is((await app.request('GET', '/api/v1/business')).status, 401);
});

// ---------- PATCH /business

test('update: omitted fields keep their value', async (t) => {
  const ws = await createWorkspace(app);
  const before = (await app.request('GET', '/api/v1/business', { token: ws.token })).body;
  const res = await app.request('PATCH', '/api/v1/business', { token: ws.token, body: { website: 'https://new.example', goal: '' } });
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body, { ...before, website: 'https://new.example', goal: '' });
  const renamed = await app.request('PATCH', '/api/v1/business', { token: ws.token, body: { name: ' Renamed ' } });
  t.deepEqual(renamed.body, { ...before, website: 'https://new.example', goal: '', name: 'Renamed' });
  const nothing = await app.request('PATCH', '/api/v1/business', { token: ws.token, body: {} });
  t.deepEqual(nothing.body, renamed.body);
  const rows = await app.sql('select name, website from businesses where id = $1', [ws.businessId]);
  t.deepEqual(rows[0], { name: 'Renamed', website: 'https://new.example' });
});

test('update: an admin may, an agent may not (403)', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const admin = await invite(ws, 'admin');
  const agent = await invite(ws, 'agent');
  const byAdmin = await app.request('PATCH', '/api/v1/business', { token: admin.token, body: { industry: 'Retail' } });
  t.is(byAdmin.status, 200, byAdmin.text);
  t.is(byAdmin.body.industry, 'Retail');
  const byAgent = await app.request('PATCH', '/api/v1/business', { token: agent.token, body: { industry: 'Hacked' } });
  t.is(byAgent.status, 403);
  t.is(typeof byAgent.body.detail, 'string');
  const rows = await app.sql('select industry from businesses where id = $1', [ws.businessId]);
  t.is(rows[0].industry, 'Retail');
});

test('update: bad bodies are 422, no business is 404', async (t) => {
  const ws = await createWorkspace(app);
  for (const [body, field, type] of [
    [{ name: '' }, 'name', 'string_too_short'],
    [{ name: null }, 'name', 'string_type'],
    [{ team_size: 't'.repeat(201) }, 'team_size', 'string_too_long'],
  ] as const) {
    const res = await app.request('PATCH', '/api/v1/business', { token: ws.token, body });
    t.is(res.status, 422, JSON.stringify(body));
    t.deepEqual(
      res.body.detail.map((d: any) => [d.loc, d.type]),
      [[['body', field], type]],
    );
  }
  const user = await registerUser(app);
  const none = await app.request('PATCH', '/api/v1/business', { token: user.token, body: { name: 'Ghost' } });
  t.is(none.status, 404);
  t.is((await app.request('PATCH', '/api/v1/business', { body: { name: 'x' } })).status, 401);
});

test('tenant isolation: each owner reads and changes only their own business', async (t) => {
  const a = await createWorkspace(app, { name: 'Alpha' });
  const b = await createWorkspace(app, { name: 'Beta' });
  const patched = await app.request('PATCH', '/api/v1/business', { token: b.token, body: { name: 'Beta Renamed' } });
  t.is(patched.body.id, b.businessId);
  const readA = await app.request('GET', '/api/v1/business', { token: a.token });
  t.like(readA.body, { id: a.businessId, name: "Alpha's Co" });
  const readB = await app.request('GET', '/api/v1/business', { token: b.token });
  t.like(readB.body, { id: b.businessId, name: 'Beta Renamed' });
  const plan = await app.request('GET', '/api/v1/business/plan', { token: a.token });
  t.is(plan.body.usage.agents, 0);
});

// ---------- GET /business/plan

test('plan: Free limits and empty usage', async (t) => {
  const ws = await createWorkspace(app);
  const res = await app.request('GET', '/api/v1/business/plan', { token: ws.token });
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body, {
    plan: 'Free',
    billing: false,
    limits: { agents: 0, channels: 3, kb_articles: 5, max_messages_per_month: 250, ai_auto_reply: false },
    usage: { agents: 0, channels: 0, kb_articles: 0, messages_this_month: 0 },
  });
});

test('plan: Mini and Pro limits', async (t) => {
  const mini = await createWorkspace(app, { plan: 'Mini' });
  const pro = await createWorkspace(app, { plan: 'Pro' });
  const m = await app.request('GET', '/api/v1/business/plan', { token: mini.token });
  t.deepEqual([m.body.plan, m.body.limits], ['Mini', { agents: 2, channels: 3, kb_articles: 25, max_messages_per_month: 5000, ai_auto_reply: true }]);
  const p = await app.request('GET', '/api/v1/business/plan', { token: pro.token });
  t.deepEqual([p.body.plan, p.body.limits], ['Pro', { agents: 5, channels: 100, kb_articles: 1000, max_messages_per_month: 50000, ai_auto_reply: true }]);
});

test("plan: usage counts agents, non-built-in channels, articles and this month's messages", async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const agent = await invite(ws, 'agent');
  await invite(ws, 'admin');
  await app.sql(`insert into channels (business_id, type) values ($1, 'widget')`, [ws.businessId]);
  await app.sql(`insert into kb_articles (business_id, title, content) values ($1, 'a', 'b'), ($1, 'c', 'd')`, [ws.businessId]);
  await app.sql(
    `insert into message_counters (business_id, month, count) values
       ($1, date_trunc('month', now() at time zone 'utc')::date, 7),
       ($1, (date_trunc('month', now() at time zone 'utc') - interval '1 month')::date, 99)`,
    [ws.businessId],
  );
  const res = await app.request('GET', '/api/v1/business/plan', { token: agent.token });
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body.usage, { agents: 2, channels: 1, kb_articles: 2, messages_this_month: 7 });
});

test('plan: 404 without a business, 401 without a token', async (t) => {
  const user = await registerUser(app);
  const res = await app.request('GET', '/api/v1/business/plan', { token: user.token });
  t.is(res.status, 404);
  t.is(typeof res.body.detail, 'string');
  t.is((await app.request('GET', '/api/v1/business/plan')).status, 401);
});
