/**
 * SLA targets and CSAT through the API (issue #18 items 4 and 5): policies (roles, validation,
 * isolation, paging), each conversation's due times with and without business hours (across a
 * DST change), breaches recorded and `sla_breached` sent once by the crontab job, the inbox's
 * filter and sort; CSAT settings, the question asked once on resolution, the rating through the
 * widget and through the public page posted as a plain form (no JavaScript), once only, 404/409.
 */
import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { startTestWorker, waitFor } from './helpers/worker.ts';
import { postTelegramWebhook, startFakeTelegram, telegramTextUpdate, type FakeTelegram } from './fakes/telegram.ts';
import { checkSlaBreaches } from '../workers/tasks/sla_check.ts';
import { crontab } from '../workers/crontab.ts';

const PUBLIC_URL = 'https://parley.example';
let app: TestApp;
let fake: FakeTelegram;

test.before(async () => {
  fake = await startFakeTelegram();
  app = await startTestApp({ env: { TELEGRAM_API_URL: fake.url, PUBLIC_URL } });
});

test.after.always(async () => {
  await app?.close();
  await fake?.close();
});

const JOBS = ['handle_events', 'sla_refresh', 'csat_request', 'deliver_message', 'process_inbound', 'register_channel'];

/** Runs a worker until none of the SLA, CSAT, delivery and inbound jobs is left. */
async function settle() {
  const worker = await startTestWorker(app);
  try {
    await waitFor(
      async () => {
        const [row] = await app.sql(`select count(*)::int as n from graphile_worker.jobs where task_identifier = any($1)`, [JOBS]);
        const [queued] = await app.sql(`select count(*)::int as n from messages where delivery_status = 'queued'`);
        return row.n === 0 && queued.n === 0;
      },
      20_000,
      'jobs settled',
    );
  } finally {
    await worker.stop();
  }
}

async function widgetOf(ws: Workspace): Promise<string> {
  const created = await app.request('POST', '/api/v1/widget/create', {
    token: ws.token,
    body: { domain: `w${Math.random().toString(36).slice(2, 8)}.example.com` },
  });
  if (created.status !== 200) throw new Error(created.text);
  return created.body.id;
}

let visitorIp = 10;
/** A website visitor writes: a new conversation. Returns its id and the visitor's auth header. */
async function visitorWrites(widgetId: string, text: string) {
  visitorIp += 1;
  const session = await app.request('POST', '/api/v1/visitor/sessions', {
    body: { widget_id: widgetId },
    headers: { 'x-forwarded-for': `203.0.113.${visitorIp}` },
  });
  if (session.status !== 200) throw new Error(session.text);
  const auth = { authorization: `Bearer ${session.body.visitor_token}` };
  const sent = await app.request('POST', '/api/v1/visitor/messages', { body: { content: text }, headers: auth });
  if (sent.status !== 200) throw new Error(sent.text);
  return { conversationId: sent.body.conversation_id as string, auth };
}

async function createPolicy(ws: Workspace, body: Record<string, unknown>) {
  const res = await app.request('POST', '/api/v1/sla-policies', { token: ws.token, body });
  if (res.status !== 200) throw new Error(`policy: ${res.status} ${res.text}`);
  return res.body;
}

const conversation = async (ws: Workspace, id: string) => {
  const res = await app.request('GET', `/api/v1/conversations/${id}`, { token: ws.token });
  if (res.status !== 200) throw new Error(res.text);
  return res.body;
};

/** Moves a conversation's start (and its messages) back, and has its due times worked out again. */
async function startedAt(id: string, at: string) {
  await app.sql(
    `with c as (select created_at from conversations where id = $1)
     update messages m set created_at = $2::timestamptz + (m.created_at - c.created_at) from c where m.conversation_id = $1`,
    [id, at],
  );
  await app.sql(`update conversations set created_at = $2 where id = $1`, [id, at]);
  await app.sql(
    `select graphile_worker.add_job('sla_refresh', json_build_object('conversation_id', id), job_key => 'sla:' || id) from conversations where id = $1`,
    [id],
  );
}

const minutesAfter = (iso: string, minutes: number) => new Date(Date.parse(iso) + minutes * 60_000).toISOString();

test.serial('policies: create, list in name order with paging, read, change, delete; validation; roles; isolation', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const agent = await addMember(app, ws.businessId, 'agent');
  const admin = await addMember(app, ws.businessId, 'admin');
  await app.request('POST', '/api/v1/labels', { token: ws.token, body: { name: 'VIP' } });

  const made = await app.request('POST', '/api/v1/sla-policies', {
    token: admin.token,
    body: { name: 'Standard', first_response_minutes: 60, resolution_minutes: 1440 },
  });
  t.is(made.status, 200, made.text);
  t.like(made.body, {
    name: 'Standard',
    first_response_minutes: 60,
    next_response_minutes: null,
    resolution_minutes: 1440,
    business_hours_only: false,
    channel_ids: [],
    labels: [],
  });
  const vip = await createPolicy(ws, { name: 'a VIP', first_response_minutes: 15, labels: ['vip'] });
  t.deepEqual(vip.labels, ['VIP']);

  const page1 = await app.request('GET', '/api/v1/sla-policies', { token: agent.token, query: { limit: 1 } });
  t.is(page1.status, 200);
  t.deepEqual(
    page1.body.map((p: any) => p.name),
    ['a VIP'],
  );
  const page2 = await app.request('GET', '/api/v1/sla-policies', {
    token: agent.token,
    query: { limit: 1, cursor: page1.headers.get('x-next-cursor') ?? undefined },
  });
  t.deepEqual(
    page2.body.map((p: any) => p.name),
    ['Standard'],
  );
  t.is(page2.headers.get('x-next-cursor'), null);

  const changed = await app.request('PATCH', `/api/v1/sla-policies/${made.body.id}`, {
    token: ws.token,
    body: { next_response_minutes: 30, resolution_minutes: null, business_hours_only: true },
  });
  t.is(changed.status, 200, changed.text);
  t.like(changed.body, { first_response_minutes: 60, next_response_minutes: 30, resolution_minutes: null, business_hours_only: true });
  t.is((await app.request('GET', `/api/v1/sla-policies/${made.body.id}`, { token: agent.token })).body.next_response_minutes, 30);

  // Bad input: 422 for shapes, 400 for names the business lacks or has already.
  t.is((await app.request('POST', '/api/v1/sla-policies', { token: ws.token, body: { name: '', first_response_minutes: 0 } })).status, 422);
  t.is((await app.request('POST', '/api/v1/sla-policies', { token: ws.token, body: { name: 'X', first_response_minutes: 'soon' } })).status, 422);
  const unknownLabel = await app.request('POST', '/api/v1/sla-policies', { token: ws.token, body: { name: 'X', labels: ['nope'] } });
  t.is(unknownLabel.status, 400);
  t.is(unknownLabel.body.detail, 'No label named "nope"');
  t.is(
    (await app.request('POST', '/api/v1/sla-policies', { token: ws.token, body: { name: 'X', channel_ids: ['00000000-0000-4000-8000-000000000000'] } })).status,
    400,
  );
  t.is((await app.request('POST', '/api/v1/sla-policies', { token: ws.token, body: { name: 'standard' } })).status, 400);
  t.is((await app.request('PATCH', `/api/v1/sla-policies/not-a-uuid`, { token: ws.token, body: {} })).status, 422);

  // Agents read but do not manage.
  const refused = await app.request('POST', '/api/v1/sla-policies', { token: agent.token, body: { name: 'Mine' } });
  t.is(refused.status, 403);
  t.is(refused.body.detail, 'Only the owner or an admin can manage SLA policies');
  t.is((await app.request('PATCH', `/api/v1/sla-policies/${vip.id}`, { token: agent.token, body: { name: 'B' } })).status, 403);
  t.is((await app.request('DELETE', `/api/v1/sla-policies/${vip.id}`, { token: agent.token })).status, 403);

  // Another business: nothing listed, every id 404, nothing changed.
  const other = await createWorkspace(app);
  t.deepEqual((await app.request('GET', '/api/v1/sla-policies', { token: other.token })).body, []);
  t.is((await app.request('GET', `/api/v1/sla-policies/${vip.id}`, { token: other.token })).status, 404);
  t.is((await app.request('PATCH', `/api/v1/sla-policies/${vip.id}`, { token: other.token, body: { name: 'Taken' } })).status, 404);
  t.is((await app.request('DELETE', `/api/v1/sla-policies/${vip.id}`, { token: other.token })).status, 404);
  t.is((await app.request('GET', `/api/v1/sla-policies/${vip.id}`, { token: ws.token })).body.name, 'a VIP');

  const deleted = await app.request('DELETE', `/api/v1/sla-policies/${vip.id}`, { token: ws.token });
  t.is(deleted.status, 200);
  t.is((await app.request('GET', `/api/v1/sla-policies/${vip.id}`, { token: ws.token })).status, 404);
});

test.serial('due times without business hours; the crontab records a breach and sends sla_breached once', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const widget = await widgetOf(ws);
  t.true(
    crontab.some((c) => c.task === 'sla_check' && c.match === '* * * * *'),
    'sla_check runs every minute',
  );
  await createPolicy(ws, { name: 'Chat', first_response_minutes: 30, next_response_minutes: 60, resolution_minutes: 240 });
  const { conversationId, auth } = await visitorWrites(widget, 'Hello, my order is late');
  await settle();
  let c = await conversation(ws, conversationId);
  t.like(c.sla, {
    policy_name: 'Chat',
    first_response_due_at: minutesAfter(c.created_at, 30),
    next_response_due_at: null,
    resolution_due_at: minutesAfter(c.created_at, 240),
    due_at: minutesAfter(c.created_at, 30),
    state: 'due_soon',
    breaches: [],
  });

  // 40 minutes ago, unanswered: past due. The crontab's check finds it (the refresh job is not run).
  const start = new Date(Date.now() - 40 * 60_000).toISOString();
  await app.sql(`update conversations set created_at = $2, sla_first_response_due_at = $3, sla_due_at = $3, sla_alert_at = $3 where id = $1`, [
    conversationId,
    start,
    minutesAfter(start, 30),
  ]);
  const before = app.events.length;
  t.true((await checkSlaBreaches(app.deps)) >= 1);
  t.is(await checkSlaBreaches(app.deps), 0, 'nothing left to check');
  await checkSlaBreaches(app.deps);
  const fired = app.events.slice(before).filter((e) => e.name === 'sla_breached');
  t.is(fired.length, 1, 'sla_breached once');
  t.like(fired[0].payload as any, { business_id: ws.businessId, conversation_id: conversationId, target: 'first_response', due_at: minutesAfter(start, 30) });
  t.deepEqual(fired[0].rooms, [`business:${ws.businessId}`]);
  const rows = await app.sql(`select target, due_at from sla_breaches where conversation_id = $1`, [conversationId]);
  t.is(rows.length, 1);
  c = await conversation(ws, conversationId);
  t.is(c.sla.state, 'breached');
  t.deepEqual(
    c.sla.breaches.map((b: any) => [b.target, b.due_at]),
    [['first_response', minutesAfter(start, 30)]],
  );

  // The late reply meets the target late: no second breach; the resolution target is what is due now.
  const reply = await app.request('POST', `/api/v1/conversations/${conversationId}/messages`, { token: ws.token, body: { content: 'Sorry for the wait!' } });
  t.is(reply.status, 200);
  await settle();
  c = await conversation(ws, conversationId);
  t.is(c.sla.due_at, minutesAfter(start, 240));
  t.is(c.sla.state, 'on_track');
  t.is((await app.sql(`select count(*)::int as n from sla_breaches where conversation_id = $1`, [conversationId]))[0].n, 1);
  t.is(app.events.slice(before).filter((e) => e.name === 'sla_breached').length, 1);

  // The customer writes again: the next response is due 60 minutes after.
  t.is((await app.request('POST', '/api/v1/visitor/messages', { body: { content: 'Any news?' }, headers: auth })).status, 200);
  await settle();
  c = await conversation(ws, conversationId);
  const [asked] = await app.sql(`select created_at from messages where conversation_id = $1 and content = 'Any news?'`, [conversationId]);
  t.is(c.sla.next_response_due_at, minutesAfter(asked.created_at.toISOString(), 60));
  t.is(c.sla.due_at, c.sla.next_response_due_at);

  // Answered in time: the next-response cycle is met (a result, no breach).
  const answer = await app.request('POST', `/api/v1/conversations/${conversationId}/messages`, { token: ws.token, body: { content: 'Shipped today.' } });
  t.is(answer.status, 200);
  await settle();
  const [answered] = await app.sql(`select created_at from messages where conversation_id = $1 and content = 'Shipped today.'`, [conversationId]);

  // Resolved: nothing due.
  t.is((await app.request('PUT', `/api/v1/conversations/${conversationId}/resolve`, { token: ws.token })).status, 200);
  await settle();
  c = await conversation(ws, conversationId);
  t.like(c.sla, { due_at: null, next_response_due_at: null, state: 'none' });
  t.is((await app.sql(`select count(*)::int as n from sla_breaches where conversation_id = $1`, [conversationId]))[0].n, 1);
  // Each target once in sla_results (the SLA report's source): the first response breached at its
  // due time, the next response met by the answer, the resolution met when resolved.
  const [resolved] = await app.sql(`select resolved_at from conversations where id = $1`, [conversationId]);
  const results = await app.sql(`select target, hit, started_at, due_at, met_at, settled_at from sla_results where conversation_id = $1 order by target`, [
    conversationId,
  ]);
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  t.deepEqual(
    results.map((r) => [r.target, r.hit, iso(r.started_at), iso(r.due_at), iso(r.met_at), iso(r.settled_at)]),
    [
      ['first_response', false, new Date(start).toISOString(), minutesAfter(start, 30), null, minutesAfter(start, 30)],
      [
        'next_response',
        true,
        asked.created_at.toISOString(),
        minutesAfter(asked.created_at.toISOString(), 60),
        answered.created_at.toISOString(),
        answered.created_at.toISOString(),
      ],
      ['resolution', true, new Date(start).toISOString(), minutesAfter(start, 240), iso(resolved.resolved_at), iso(resolved.resolved_at)],
    ],
  );

  // Another business sees none of it.
  const other = await createWorkspace(app);
  t.is((await app.request('GET', `/api/v1/conversations/${conversationId}`, { token: other.token })).status, 404);
  t.deepEqual((await app.request('GET', '/api/v1/conversations', { token: other.token, query: { sla: 'breached' } })).body, []);
});

test.serial('policies apply by label, else channel, else the catch-all; changing a policy moves due times', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const widget = await widgetOf(ws);
  await app.request('POST', '/api/v1/labels', { token: ws.token, body: { name: 'vip' } });
  const { conversationId } = await visitorWrites(widget, 'Hi');
  t.is((await conversation(ws, conversationId)).sla, null, 'no policy: no SLA');
  const [channel] = await app.sql(`select channel_id from conversations where id = $1`, [conversationId]);
  await createPolicy(ws, { name: 'All', first_response_minutes: 600 });
  await settle();
  t.is((await conversation(ws, conversationId)).sla.policy_name, 'All');
  await createPolicy(ws, { name: 'Web', first_response_minutes: 120, channel_ids: [channel.channel_id] });
  const vip = await createPolicy(ws, { name: 'VIP', first_response_minutes: 10, labels: ['VIP'] });
  await settle();
  let c = await conversation(ws, conversationId);
  t.is(c.sla.policy_name, 'Web');
  t.is(c.sla.first_response_due_at, minutesAfter(c.created_at, 120));
  await app.request('PUT', `/api/v1/conversations/${conversationId}/labels`, { token: ws.token, body: { labels: ['vip'] } });
  await settle();
  c = await conversation(ws, conversationId);
  t.is(c.sla.policy_name, 'VIP');
  t.is(c.sla.first_response_due_at, minutesAfter(c.created_at, 10));
  await app.request('PATCH', `/api/v1/sla-policies/${vip.id}`, { token: ws.token, body: { first_response_minutes: 20 } });
  await settle();
  t.is((await conversation(ws, conversationId)).sla.first_response_due_at, minutesAfter(c.created_at, 20));
  await app.request('DELETE', `/api/v1/sla-policies/${vip.id}`, { token: ws.token });
  await settle();
  t.is((await conversation(ws, conversationId)).sla.policy_name, 'Web');
});

test.serial('business hours: due times in working time, across the spring DST change in Berlin', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const widget = await widgetOf(ws);
  const nineToFive = [{ open: '09:00', close: '17:00' }];
  const hours = await app.request('PATCH', '/api/v1/settings/business-hours', {
    token: ws.token,
    body: { enabled: true, timezone: 'Europe/Berlin', week: { mon: nineToFive, tue: nineToFive, wed: nineToFive, thu: nineToFive, fri: nineToFive } },
  });
  t.is(hours.status, 200, hours.text);
  const policy = await createPolicy(ws, { name: 'Office', first_response_minutes: 60, resolution_minutes: 480, business_hours_only: true });
  const { conversationId } = await visitorWrites(widget, 'Friday afternoon question');
  // Friday 27 March 2026, 16:30 CET (15:30Z); the clocks go forward on Sunday.
  await startedAt(conversationId, '2026-03-27T15:30:00Z');
  await settle();
  let c = await conversation(ws, conversationId);
  t.is(c.sla.first_response_due_at, '2026-03-30T07:30:00.000Z', '30 minutes on Friday, 30 on Monday from 09:00 CEST');
  t.is(c.sla.resolution_due_at, '2026-03-30T14:30:00.000Z', '30 minutes on Friday, 450 on Monday to 16:30 CEST');
  t.is(c.sla.state, 'breached');

  // In calendar time the same targets fall on Friday.
  await app.request('PATCH', `/api/v1/sla-policies/${policy.id}`, { token: ws.token, body: { business_hours_only: false } });
  await settle();
  c = await conversation(ws, conversationId);
  t.is(c.sla.first_response_due_at, '2026-03-27T16:30:00.000Z');
  t.is(c.sla.resolution_due_at, '2026-03-27T23:30:00.000Z');

  // Working time again, and the hours change: the due times follow (Mondays off → Tuesday).
  await app.request('PATCH', `/api/v1/sla-policies/${policy.id}`, { token: ws.token, body: { business_hours_only: true } });
  await app.request('PATCH', '/api/v1/settings/business-hours', { token: ws.token, body: { holidays: ['2026-03-30'] } });
  await settle();
  c = await conversation(ws, conversationId);
  t.is(c.sla.first_response_due_at, '2026-03-31T07:30:00.000Z');
});

test.serial('the inbox filters by breached and due soon, and sorts by due time with paging', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const widget = await widgetOf(ws);
  await createPolicy(ws, { name: 'Two hours', first_response_minutes: 120 });
  const late = (await visitorWrites(widget, 'late')).conversationId;
  const soon = (await visitorWrites(widget, 'soon')).conversationId;
  const fresh = (await visitorWrites(widget, 'fresh')).conversationId;
  const none = (await visitorWrites(widget, 'answered')).conversationId;
  await startedAt(late, new Date(Date.now() - 180 * 60_000).toISOString());
  await startedAt(soon, new Date(Date.now() - 90 * 60_000).toISOString());
  await app.request('POST', `/api/v1/conversations/${none}/messages`, { token: ws.token, body: { content: 'Answered' } });
  await settle();
  const list = async (query: Record<string, string | number>) => {
    const res = await app.request('GET', '/api/v1/conversations', { token: ws.token, query });
    t.is(res.status, 200, res.text);
    return res;
  };
  t.deepEqual(
    (await list({ sla: 'breached' })).body.map((c: any) => c.id),
    [late],
  );
  t.deepEqual(
    (await list({ sla: 'due_soon' })).body.map((c: any) => c.id),
    [soon],
  );
  t.deepEqual((await list({ sla: 'due' })).body.map((c: any) => c.id).sort(), [late, soon, fresh].sort());
  const sorted = (await list({ sort: 'sla' })).body;
  t.deepEqual(
    sorted.map((c: any) => c.id),
    [late, soon, fresh],
  );
  t.deepEqual(
    sorted.map((c: any) => c.sla.state),
    ['breached', 'due_soon', 'on_track'],
  );
  // Page by page: the cursor walks the same order.
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const res: { body: any[]; headers: Headers } = await list({ sort: 'sla', limit: 1, ...(cursor ? { before: cursor } : {}) });
    seen.push(...res.body.map((c: any) => c.id));
    cursor = res.headers.get('x-next-cursor');
  } while (cursor);
  t.deepEqual(seen, [late, soon, fresh]);
  t.is((await app.request('GET', '/api/v1/conversations', { token: ws.token, query: { sla: 'overdue' } })).status, 422);
});

test.serial('CSAT settings: defaults; any member reads; owner or admin change; agents 403', async (t) => {
  const ws = await createWorkspace(app);
  const agent = await addMember(app, ws.businessId, 'agent');
  const admin = await addMember(app, ws.businessId, 'admin');
  const read = await app.request('GET', '/api/v1/settings/csat', { token: agent.token });
  t.is(read.status, 200);
  t.deepEqual(read.body, { enabled: false, question: 'How would you rate the help you received?' });
  const refused = await app.request('PATCH', '/api/v1/settings/csat', { token: agent.token, body: { enabled: true } });
  t.is(refused.status, 403);
  const changed = await app.request('PATCH', '/api/v1/settings/csat', { token: admin.token, body: { enabled: true, question: 'How did we do?' } });
  t.is(changed.status, 200);
  t.deepEqual(changed.body, { enabled: true, question: 'How did we do?' });
  t.is((await app.request('PATCH', '/api/v1/settings/csat', { token: ws.token, body: { question: '' } })).status, 422);
  const other = await createWorkspace(app);
  t.is((await app.request('GET', '/api/v1/settings/csat', { token: other.token })).body.enabled, false);
});

test.serial('CSAT through the widget: asked once on resolution, rated inline once; 404 and 409; the rating in the thread', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const widget = await widgetOf(ws);
  await app.request('PATCH', '/api/v1/settings/csat', { token: ws.token, body: { enabled: true, question: 'How did we do?' } });
  const { conversationId, auth } = await visitorWrites(widget, 'Thanks for the help');
  t.is((await app.request('PUT', `/api/v1/conversations/${conversationId}/resolve`, { token: ws.token })).status, 200);
  await settle();
  const messages = (await app.request('GET', '/api/v1/visitor/messages', { headers: auth })).body;
  const question = messages.at(-1);
  t.like(question, { sender_type: 'system', content: 'How did we do?', csat: { rating: null } });
  let token = question.csat.token as string;
  t.regex(token, /^[A-Za-z0-9_-]{46}$/);
  t.like((await conversation(ws, conversationId)).csat, { question: 'How did we do?', rating: null, comment: null, rated_at: null });

  // Reopened and resolved again, unanswered: asked again, the new question replacing the old one (issue #36: its token stops working).
  await app.request('PUT', `/api/v1/conversations/${conversationId}/reopen`, { token: ws.token });
  await app.request('PUT', `/api/v1/conversations/${conversationId}/resolve`, { token: ws.token });
  await settle();
  t.is((await app.sql(`select count(*)::int as n from csat_surveys where conversation_id = $1`, [conversationId]))[0].n, 1);
  t.is((await app.sql(`select count(*)::int as n from messages where conversation_id = $1 and sender_type = 'system'`, [conversationId]))[0].n, 2);
  const replaced = token;
  token = (await app.request('GET', '/api/v1/visitor/messages', { headers: auth })).body.at(-1).csat.token;
  t.not(token, replaced);
  t.is((await app.request('POST', `/api/v1/csat/${replaced}`, { body: { rating: 5 } })).status, 404, 'the replaced token is gone');

  // Bad input, unknown token.
  t.is((await app.request('POST', `/api/v1/csat/${token}`, { body: { rating: 6 } })).status, 422);
  t.is((await app.request('POST', `/api/v1/csat/${token.slice(0, -4)}AAAA`, { body: { rating: 5 } })).status, 404);
  t.is((await app.request('POST', `/api/v1/csat/nonsense`, { body: { rating: 5 } })).status, 404);

  const before = app.events.length;
  const rated = await app.request('POST', `/api/v1/csat/${token}`, { body: { rating: 4, comment: ' Quick and kind ' } });
  t.is(rated.status, 200, rated.text);
  t.like(rated.body, { rating: 4, comment: 'Quick and kind' });
  const again = await app.request('POST', `/api/v1/csat/${token}`, { body: { rating: 1 } });
  t.is(again.status, 409);
  t.is(again.body.detail, 'This conversation was rated already');
  t.like((await conversation(ws, conversationId)).csat, { rating: 4, comment: 'Quick and kind' });
  t.true(
    app.events
      .slice(before)
      .some(
        (e) => e.name === 'conversation_updated' && (e.payload as any).conversation_id === conversationId && (e.payload as any).conversation.csat.rating === 4,
      ),
  );
  t.like((await app.request('GET', '/api/v1/visitor/messages', { headers: auth })).body.at(-1), { csat: { rating: 4 } });
  // Rated: reopened and resolved again, never asked again.
  await app.request('PUT', `/api/v1/conversations/${conversationId}/reopen`, { token: ws.token });
  await app.request('PUT', `/api/v1/conversations/${conversationId}/resolve`, { token: ws.token });
  await settle();
  t.is((await app.sql(`select count(*)::int as n from messages where conversation_id = $1 and sender_type = 'system'`, [conversationId]))[0].n, 2);
  t.like((await conversation(ws, conversationId)).csat, { rating: 4 });

  // The real figure beside the contract's fixed one.
  const overview = await app.request('GET', '/api/v1/analytics/overview', { token: ws.token });
  t.like(overview.body, { customer_happiness: 98, csat_score: 100, csat_average: 4, csat_responses: 1 });

  // CSAT off: a resolved conversation is not asked.
  await app.request('PATCH', '/api/v1/settings/csat', { token: ws.token, body: { enabled: false } });
  const quiet = (await visitorWrites(widget, 'Another question')).conversationId;
  await app.request('PUT', `/api/v1/conversations/${quiet}/resolve`, { token: ws.token });
  await settle();
  t.is((await app.sql(`select count(*)::int as n from csat_surveys where conversation_id = $1`, [quiet]))[0].n, 0);
});

test.serial('CSAT on another channel: a link to the public page; the page works as a plain form, once', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const botToken = fake.addBot({ username: 'csat_bot' });
  const channel = await app.request('POST', '/api/v1/channels/', { token: ws.token, body: { type: 'telegram', config: { bot_token: botToken } } });
  t.is(channel.status, 200, channel.text);
  await settle();
  await waitFor(
    async () => (await app.sql('select status from channels where id = $1', [channel.body.id]))[0].status === 'connected',
    20_000,
    'channel connected',
  );
  const [state] = await app.sql('select state from channels where id = $1', [channel.body.id]);
  await app.request('PATCH', '/api/v1/settings/csat', { token: ws.token, body: { enabled: true, question: 'Rate <us> & tell us' } });
  const path = new URL(fake.bot(botToken)!.webhook!.url).pathname;
  const hook = await postTelegramWebhook(
    `${app.url}${path}`,
    telegramTextUpdate({ updateId: 91_001, chatId: 777_001, messageId: 1, text: 'Help please', firstName: 'Tess' }),
    fake.bot(botToken)!.webhook!.secret_token ?? state.webhook_secret,
  );
  t.is(hook.status, 200);
  await settle();
  const [row] = await app.sql(`select conversation_id from messages where content = 'Help please' and channel_id = $1`, [channel.body.id]);
  t.is((await app.request('PUT', `/api/v1/conversations/${row.conversation_id}/resolve`, { token: ws.token })).status, 200);
  await settle();
  const sent = fake.sent.filter((m) => m.token === botToken && m.chat_id === '777001');
  t.is(sent.length, 1);
  const link = /https:\/\/parley\.example\/csat\/([A-Za-z0-9_-]+)/.exec(sent[0].text ?? '');
  t.truthy(link, sent[0].text);
  t.true(sent[0].text!.startsWith('Rate <us> & tell us\n'));
  const token = link![1];
  // The link went to the customer only: the stored message, the thread and search carry no token (issue #36 item 3).
  const [stored] = await app.sql(`select content from messages where conversation_id = $1 and sender_type = 'system'`, [row.conversation_id]);
  t.is(stored.content, 'Rate <us> & tell us');
  const thread = await app.request('GET', `/api/v1/conversations/${row.conversation_id}/messages`, { token: ws.token });
  t.is(thread.status, 200);
  t.false(thread.text.includes(token));
  t.false((await app.request('GET', `/api/v1/conversations/${row.conversation_id}`, { token: ws.token })).text.includes(token));

  // The page: a real form, no script, escaped text.
  const page = await app.request('GET', `/csat/${token}`);
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type') ?? '', /text\/html/);
  t.true(page.text.includes(`<form method="post" action="/csat/${token}">`));
  t.true(page.text.includes('Rate &lt;us&gt; &amp; tell us'));
  t.false(page.text.includes('<script'));
  t.regex(page.headers.get('content-security-policy') ?? '', /form-action 'self'/);
  t.is((await app.request('GET', '/csat/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).status, 404);

  // Posted as a browser without JavaScript posts it.
  const form = (fields: Record<string, string>) =>
    fetch(`${app.url}/csat/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  const missing = await form({ comment: 'no rating' });
  t.is(missing.status, 422);
  t.true((await missing.text()).includes('Please choose a rating'));
  const posted = await form({ rating: '2', comment: 'Slow <b>reply</b>' });
  t.is(posted.status, 200);
  const thanks = await posted.text();
  t.true(thanks.includes('Thank you for your feedback!'));
  t.true(thanks.includes('2 of 5'));
  const twice = await form({ rating: '5' });
  t.is(twice.status, 409);
  t.true((await twice.text()).includes('rated already'));
  t.is((await app.request('POST', `/api/v1/csat/${token}`, { body: { rating: 5 } })).status, 409);
  const c = await conversation(ws, row.conversation_id);
  t.like(c.csat, { rating: 2, comment: 'Slow <b>reply</b>' });
  // The page now says it was rated.
  t.true((await app.request('GET', `/csat/${token}`)).text.includes('rated already'));
  // Another business cannot read the conversation that carries it.
  const other = await createWorkspace(app);
  t.is((await app.request('GET', `/api/v1/conversations/${row.conversation_id}`, { token: other.token })).status, 404);
});
