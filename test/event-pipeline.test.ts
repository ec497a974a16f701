/**
 * The event pipeline (issue "Events drive the desk"): domain events recorded with their change,
 * subscribers after commit, once each; and the seams it fixed, tested together: auto-assignment
 * while business hours are closed, one webhook delivery per message whatever the sender, the
 * audit log of settings, and a conversation's activity history.
 */
import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, visitorWrites, type Workspace } from './helpers/fixtures.ts';
import { query, startTestWorker, waitFor } from './helpers/worker.ts';
import { startWebhookReceiver, type WebhookReceiver } from './fakes/webhook-receiver.ts';
import { handleEvents, retrySubscriber } from '../core/events/pipeline.ts';
import { recordEvents, settingsChanged } from '../core/events/domain.ts';
import { subscriptions } from '../core/events/subscriptions.ts';
import { subscribers } from '../core/events/subscribers.ts';
import { policies } from '../api/policies.ts';

let app: TestApp;
let receiver: WebhookReceiver;
test.before(async () => {
  [app, receiver] = await Promise.all([startTestApp(), startWebhookReceiver()]);
});
test.after.always(async () => {
  await app?.close();
  await receiver?.close();
});

async function widgetOf(ws: Workspace): Promise<string> {
  const created = await app.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: 'shop.example' } });
  if (created.status !== 200) throw new Error(created.text);
  return created.body.id;
}

const settled = () =>
  waitFor(
    async () => {
      const [row] = await query(
        app,
        `select (select count(*) from domain_events where handled_at is null)::int
            + (select count(*) from graphile_worker.jobs where task_identifier in ('handle_events', 'auto_assign', 'out_of_hours_reply', 'deliver_message', 'dispatch_webhooks', 'deliver_webhook'))::int as n`,
      );
      return row.n === 0;
    },
    30_000,
    'pipeline settled',
  );

test.serial('every subscriber file is registered in the order of the subscriptions list', (t) => {
  t.deepEqual(
    subscribers.map((s) => [s.name, s.events]),
    Object.entries(subscriptions).map(([name, events]) => [name, events]),
  );
});

test.serial(
  'closed hours: 5 widget visitors 6 s apart in the issue, here at once: the away message goes to each and every conversation is assigned',
  async (t) => {
    const ws = await createWorkspace(app, { plan: 'Pro' });
    const ana = await addMember(app, ws.businessId, 'agent', { name: 'Ana', status: 'live' });
    const ben = await addMember(app, ws.businessId, 'agent', { name: 'Ben', status: 'live' });
    await app.sql(`update team_members set status = 'offline' where business_id = $1 and role = 'owner'`, [ws.businessId]);
    t.is((await app.request('PATCH', '/api/v1/settings/assignment', { token: ws.token, body: { enabled: true, max_open_per_agent: 5 } })).status, 200);
    const allDay = [{ open: '00:00', close: '24:00' }];
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    // Closed now: a holiday today (and the neighbouring days, whatever the zone's date), open around the clock otherwise.
    const hours = await app.request('PATCH', '/api/v1/settings/business-hours', {
      token: ws.token,
      body: {
        enabled: true,
        timezone: 'UTC',
        week: { mon: allDay, tue: allDay, wed: allDay, thu: allDay, fri: allDay, sat: allDay, sun: allDay },
        holidays: [yesterday, today, tomorrow],
        out_of_hours_message: 'We are away; back soon.',
      },
    });
    t.is(hours.status, 200, hours.text);
    const widget = await widgetOf(ws);
    const worker = await startTestWorker(app, { concurrency: 4 });
    try {
      const written = [];
      for (let i = 0; i < 5; i++) written.push(await visitorWrites(app, widget, `Visitor ${i}`, `Question ${i}`));
      await settled();
      const rows = await query(
        app,
        `select c.id, c.assignee_id, (select count(*) from messages m where m.conversation_id = c.id and m.sender_type = 'system')::int as notices
       from conversations c where c.business_id = $1 order by c.created_at`,
        [ws.businessId],
      );
      t.is(rows.length, 5);
      t.true(
        rows.every((r) => r.assignee_id === ana.userId || r.assignee_id === ben.userId),
        'every conversation assigned',
      );
      t.deepEqual(
        rows.map((r) => r.notices),
        [1, 1, 1, 1, 1],
        'the away message once each',
      );
    } finally {
      await worker.stop();
    }
  },
);

test.serial('webhooks: exactly one message.created per message, for the widget, an agent, a note, the API and the away message', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const hook = await app.request('POST', '/api/v1/webhooks', { token: ws.token, body: { url: receiver.url('once'), events: ['message.created'] } });
  t.is(hook.status, 200, hook.text);
  receiver.secrets.set('/hooks/once', hook.body.secret);
  const widget = await widgetOf(ws);
  const worker = await startTestWorker(app);
  try {
    const { conversationId } = await visitorWrites(app, widget, 'Vera', 'Hello from the shop');
    const reply = await app.request('POST', `/api/v1/conversations/${conversationId}/messages`, { token: ws.token, body: { content: 'Hi Vera' } });
    t.is(reply.status, 200, reply.text);
    const key = await app.request('POST', '/api/v1/api-keys', { token: ws.token, body: { name: 'CRM', scopes: ['read', 'write'] } });
    const apiToken = key.status === 200 ? key.body.key : null;
    if (apiToken) {
      const byKey = await app.request('POST', `/api/v1/conversations/${conversationId}/messages`, { token: apiToken, body: { content: 'From the CRM' } });
      t.is(byKey.status, 200, byKey.text);
    }
    await settled();
    const messages = await query(app, `select id from messages where conversation_id = $1 and not private`, [conversationId]);
    await waitFor(async () => receiver.verified.filter((r) => r.path === '/hooks/once').length >= messages.length, 20_000, 'deliveries');
    await settled();
    const bodies = receiver.verified.filter((r) => r.path === '/hooks/once').map((r) => r.json);
    const perMessage = new Map<string, number>();
    for (const b of bodies) perMessage.set(b.data.id, (perMessage.get(b.data.id) ?? 0) + 1);
    t.deepEqual(
      [...perMessage.values()],
      messages.map(() => 1),
    );
    t.deepEqual(new Set(perMessage.keys()), new Set(messages.map((m) => m.id)));
    t.is(new Set(bodies.map((b) => b.id)).size, bodies.length, 'one event id per delivery');
  } finally {
    await worker.stop();
  }
});

test.serial('a subscriber that throws is retried alone; the others are not held back, and nothing is done twice', async (t) => {
  const ws = await createWorkspace(app);
  // The audit log's insert fails for this event (a check the row cannot meet), the others run.
  await app.sql(`alter table audit_log add constraint audit_no_broken check (details->>'section' <> 'broken')`);
  try {
    await app.deps.db.transaction((tx) =>
      recordEvents(tx, [
        settingsChanged(ws.businessId, 'broken', { a: 1 }, { a: 2 }),
        settingsChanged(ws.businessId, 'csat', { enabled: false }, { enabled: true }),
      ]),
    );
    const ids = (await query(app, `select id from domain_events where business_id = $1 order by seq`, [ws.businessId])).map((r) => r.id as string);
    t.is(await handleEvents(app.deps, ids), 2);
    // Handled: a second run (a job retried after a crash) does nothing.
    t.is(await handleEvents(app.deps, ids), 0);
    const [retry] = await query(
      app,
      `select payload from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id where k.identifier = 'retry_subscriber'`,
    );
    t.deepEqual(retry.payload, { subscriber: 'audit_log', event_ids: ids });
    t.deepEqual(await query(app, `select action from audit_log where business_id = $1 and action = 'settings.updated'`, [ws.businessId]), []);
    await t.throwsAsync(() => retrySubscriber(app.deps, 'audit_log', ids));
  } finally {
    await app.sql(`alter table audit_log drop constraint audit_no_broken`);
  }
  const ids = (await query(app, `select id from domain_events where business_id = $1 order by seq`, [ws.businessId])).map((r) => r.id as string);
  t.true(await retrySubscriber(app.deps, 'audit_log', ids));
  t.false(await retrySubscriber(app.deps, 'audit_log', ids), 'once: the receipt');
  const audited = await query(app, `select details->>'section' as section from audit_log where business_id = $1 and action = 'settings.updated' order by id`, [
    ws.businessId,
  ]);
  t.deepEqual(
    audited.map((r) => r.section),
    ['broken', 'csat'],
  );
  await app.sql(`delete from graphile_worker._private_jobs`);
});

/** A request that changes each settings action of the policy table (those ending in .update or .manage, but customers'). */
const settingsRequests: Record<string, (ws: Workspace) => Promise<{ status: number }>> = {
  'business.update': (ws) => app.request('PATCH', '/api/v1/business', { token: ws.token, body: { name: 'Renamed Shop' } }),
  'assignment_settings.update': (ws) => app.request('PATCH', '/api/v1/settings/assignment', { token: ws.token, body: { team_visibility: true } }),
  'business_hours.update': (ws) => app.request('PATCH', '/api/v1/settings/business-hours', { token: ws.token, body: { enabled: false } }),
  'csat_settings.update': (ws) => app.request('PATCH', '/api/v1/settings/csat', { token: ws.token, body: { enabled: true } }),
  'ai_settings.update': (ws) => app.request('PUT', '/api/v1/ai/settings', { token: ws.token, body: { auto_reply_enabled: true } }),
  'sla_policies.manage': (ws) => app.request('POST', '/api/v1/sla-policies', { token: ws.token, body: { name: 'All', first_response_minutes: 60 } }),
  'teams.manage': (ws) => app.request('POST', '/api/v1/teams', { token: ws.token, body: { name: 'Returns' } }),
  'widgets.manage': (ws) => app.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: 'audit.example' } }),
};

test.serial('every settings action of the policy table records an audit entry with its actor', async (t) => {
  const actions = Object.keys(policies).filter((a) => /\.(update)$/.test(a) && a !== 'customers.update');
  const missing = actions.filter((a) => !settingsRequests[a] && !['retention.update', 'security_settings.update'].includes(a));
  t.deepEqual(missing, [], 'a settings action with no request here: add one (and record its change)');
  const worker = await startTestWorker(app, { only: [] });
  try {
    for (const [action, request] of Object.entries(settingsRequests)) {
      const ws = await createWorkspace(app, { plan: 'Pro' });
      const res = await request(ws);
      t.is(res.status, 200, `${action}: ${JSON.stringify(res)}`);
      const entries = await waitFor(
        async () => {
          const rows = await query(app, `select action, actor_type, actor_user_id, details from audit_log where business_id = $1`, [ws.businessId]);
          return rows.length ? rows : null;
        },
        20_000,
        `${action} in the audit log`,
      );
      t.true(
        entries.some((e) => e.actor_type === 'user' && e.actor_user_id === ws.userId),
        `${action}: the owner as actor`,
      );
      const settings = entries.find((e) => e.action === 'settings.updated');
      if (settings) t.true('before' in settings.details && 'after' in settings.details, `${action}: before and after`);
    }
  } finally {
    await worker.stop();
  }
});

test.serial('the activity history: assigned, labelled, snoozed, resolved and reopened, with who and when; hidden from who cannot see it', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const ana = await addMember(app, ws.businessId, 'agent', { name: 'Ana', status: 'live' });
  const created = await app.request('POST', '/api/v1/conversations', { token: ws.token, body: { business_id: ws.businessId } });
  t.is(created.status, 200, created.text);
  const id = created.body.id;
  await app.request('POST', '/api/v1/labels', { token: ws.token, body: { name: 'billing' } });
  const steps = [
    await app.request('POST', `/api/v1/team/assign/${id}`, { token: ws.token, query: { agent_id: ana.userId } }),
    await app.request('PUT', `/api/v1/conversations/${id}/labels`, { token: ws.token, body: { labels: ['billing'] } }),
    await app.request('PUT', `/api/v1/conversations/${id}/snooze`, { token: ws.token, body: { until_customer_replies: true } }),
    await app.request('PUT', `/api/v1/conversations/${id}/resolve`, { token: ws.token }),
    await app.request('PUT', `/api/v1/conversations/${id}/reopen`, { token: ws.token }),
  ];
  t.deepEqual(
    steps.map((s) => s.status),
    [200, 200, 200, 200, 200],
    JSON.stringify(steps.map((s) => s.text)),
  );
  const history = await app.request('GET', `/api/v1/conversations/${id}/events`, { token: ws.token, query: { limit: 3 } });
  t.is(history.status, 200, history.text);
  const rest = await app.request('GET', `/api/v1/conversations/${id}/events`, { token: ws.token, query: { after: history.headers.get('x-next-cursor')! } });
  const all = [...history.body, ...rest.body];
  t.deepEqual(
    all.map((e: any) => e.type),
    ['conversation.created', 'conversation.assigned', 'conversation.labelled', 'conversation.snoozed', 'conversation.resolved', 'conversation.opened'],
  );
  t.like(all[1], { actor: { type: 'member', id: ws.userId, name: ws.fullName }, data: { assignee_id: ana.userId, assignee_name: 'Ana' } });
  t.deepEqual(all[2].data, { added: ['billing'], removed: [] });
  t.is(rest.headers.get('x-next-cursor'), null);
  const bad = await app.request('GET', `/api/v1/conversations/${id}/events`, { token: ws.token, query: { after: 'nonsense' } });
  t.is(bad.status, 422);
  const other = await createWorkspace(app);
  t.is((await app.request('GET', `/api/v1/conversations/${id}/events`, { token: other.token })).status, 404);
});
