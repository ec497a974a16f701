import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { sendMessage } from '../core/commands/messages.ts';
import { publishEvents } from '../core/events/live.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

async function startConversation(ws: Workspace): Promise<any> {
  const res = await app.request('POST', '/api/v1/conversations/', { token: ws.token, body: { business_id: ws.businessId } });
  if (res.status !== 200) throw new Error(`create conversation failed: ${res.status} ${res.text}`);
  return res.body;
}

const send = (ws: Workspace, conversationId: string, body: unknown) =>
  app.request('POST', `/api/v1/conversations/${conversationId}/messages`, { token: ws.token, body });

async function row(sqlText: string, params: unknown[]): Promise<any> {
  return (await app.sql(sqlText, params))[0];
}

/** The delivery drains (deliver_message jobs) of a business's conversations, with their keys and payloads. */
async function deliveryJobs(businessId: string) {
  const rows = await app.sql(
    `select j.key, p.payload from graphile_worker.jobs j
     join graphile_worker._private_jobs p on p.id = j.id
     where j.task_identifier = 'deliver_message'
       and (p.payload->>'conversation_id')::uuid in (select id from conversations where business_id = $1)`,
    [businessId],
  );
  return rows as { key: string; payload: { conversation_id: string } }[];
}

/** Delivery drains with no queued reply to deliver: a refused send must never arm one. */
const orphanDeliveryJobs = async () =>
  Number(
    (
      await row(
        `select count(*) from graphile_worker.jobs j join graphile_worker._private_jobs p on p.id = j.id
         where j.task_identifier = 'deliver_message'
           and not exists (select 1 from messages m where m.conversation_id = (p.payload->>'conversation_id')::uuid and m.delivery_status = 'queued')`,
        [],
      )
    ).count,
  );

const thisMonth = `date_trunc('month', now() at time zone 'utc')::date`;

test('send: a queued agent message, its delivery job, the conversation touched, events after commit', async (t) => {
  const ws = await createWorkspace(app);
  const conv = await startConversation(ws);
  t.is(conv.first_response_at, null);
  const before = await row(`select updated_at from conversations where id = $1`, [conv.id]);
  const eventsBefore = app.events.length;

  const res = await send(ws, conv.id, { content: '  Hello, how can I help?  ' });
  t.is(res.status, 200, res.text);
  t.like(res.body, {
    conversation_id: conv.id,
    sender_type: 'agent',
    sender_id: ws.userId,
    content: 'Hello, how can I help?',
    attachments: [],
    delivery_status: 'queued',
    external_id: null,
    error: null,
  });
  t.regex(res.body.id, /^[0-9a-f-]{36}$/);
  t.regex(res.body.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

  const message = await row(`select * from messages where id = $1`, [res.body.id]);
  t.is(message.business_id, ws.businessId);
  t.is(message.channel_id, conv.channel_id, "the message goes out through the conversation's channel");
  t.is(message.delivery_status, 'queued');

  t.deepEqual(
    await deliveryJobs(ws.businessId),
    [{ key: `deliver:${conv.id}`, payload: { conversation_id: conv.id } }],
    "the conversation's delivery drain is armed",
  );

  const after = await row(`select updated_at, last_message_at, first_response_at, status from conversations where id = $1`, [conv.id]);
  t.true(after.updated_at > before.updated_at);
  t.is(after.last_message_at.toISOString(), res.body.created_at);
  t.is(after.first_response_at.toISOString(), res.body.created_at, 'the first agent message sets first_response_at');
  t.is(after.status, 'open');

  const published = app.events.slice(eventsBefore).filter((e) => e.payload.conversation_id === conv.id);
  t.deepEqual(
    published.map((e) => e.name),
    ['message_created', 'conversation_updated'],
  );
  t.is(published[0].payload.message_id, res.body.id);
  t.true(published[0].rooms.includes(`business:${ws.businessId}`));
  t.true(published[0].rooms.includes(`conversation:${conv.id}`));

  const counter = await row(`select sum(count)::int as count from message_counters where business_id = $1 and month = ${thisMonth}`, [ws.businessId]);
  t.is(counter.count, 1);
});

test('send: first_response_at keeps the first reply; two sends arm one delivery drain, which takes both', async (t) => {
  const ws = await createWorkspace(app);
  const conv = await startConversation(ws);
  const first = await send(ws, conv.id, { content: 'one' });
  const second = await send(ws, conv.id, { content: 'two' });
  t.is(second.status, 200, second.text);
  const c = await row(`select first_response_at, last_message_at from conversations where id = $1`, [conv.id]);
  t.is(c.first_response_at.toISOString(), first.body.created_at);
  t.is(c.last_message_at.toISOString(), second.body.created_at);
  t.deepEqual(
    (await deliveryJobs(ws.businessId)).map((j) => j.key),
    [`deliver:${conv.id}`],
    'the second reply found the drain waiting: no second job',
  );
  const queued = await app.sql(`select id from messages where conversation_id = $1 and delivery_status = 'queued' order by created_at, id`, [conv.id]);
  t.deepEqual(
    queued.map((m: any) => m.id),
    [first.body.id, second.body.id],
  );
});

test('send: a pending conversation becomes open; resolved and closed ones keep their state', async (t) => {
  const ws = await createWorkspace(app);
  for (const [from, to] of [
    ['pending', 'open'],
    ['resolved', 'resolved'],
    ['closed', 'closed'],
    ['open', 'open'],
  ]) {
    const conv = await startConversation(ws);
    await app.sql(`update conversations set status = $2 where id = $1`, [conv.id, from]);
    const res = await send(ws, conv.id, { content: 'hi' });
    t.is(res.status, 200, res.text);
    t.is((await row(`select status from conversations where id = $1`, [conv.id])).status, to, `from ${from}`);
  }
});

test("send: another business's conversation is 404, and nothing is written", async (t) => {
  const mine = await createWorkspace(app);
  const theirs = await createWorkspace(app);
  const conv = await startConversation(theirs);
  const jobsBefore = (await deliveryJobs(theirs.businessId)).length;
  const res = await send(mine, conv.id, { content: 'sneaky' });
  t.is(res.status, 404);
  t.deepEqual(res.body, { detail: 'Conversation not found' });
  t.is(Number((await row(`select count(*) from messages where conversation_id = $1`, [conv.id])).count), 0);
  t.is((await deliveryJobs(theirs.businessId)).length, jobsBefore);
  t.is((await deliveryJobs(mine.businessId)).length, 0);
  t.is(await orphanDeliveryJobs(), 0);
  const unknown = await send(mine, '00000000-0000-4000-8000-000000000000', { content: 'x' });
  t.is(unknown.status, 404);
});

test('send: 422 for missing, empty, blank or too long content; 10,000 characters pass', async (t) => {
  const ws = await createWorkspace(app);
  const conv = await startConversation(ws);
  const missing = await send(ws, conv.id, {});
  t.is(missing.status, 422);
  t.deepEqual(missing.body.detail, [{ loc: ['body', 'content'], msg: 'Field required', type: 'missing' }]);
  for (const content of ['', '   ']) {
    const res = await send(ws, conv.id, { content });
    t.is(res.status, 422);
    t.is(res.body.detail[0].type, 'string_too_short');
  }
  const long = await send(ws, conv.id, { content: 'x'.repeat(10_001) });
  t.is(long.status, 422);
  t.is(long.body.detail[0].type, 'string_too_long');
  const wrongType = await send(ws, conv.id, { content: 42 });
  t.is(wrongType.status, 422);
  t.is(wrongType.body.detail[0].type, 'string_type');
  const max = await send(ws, conv.id, { content: 'y'.repeat(10_000) });
  t.is(max.status, 200, max.text);
  const badPath = await send(ws, 'not-a-uuid', { content: 'x' });
  t.is(badPath.status, 422);
  t.deepEqual(badPath.body.detail[0].loc, ['path', 'conversation_id']);
  t.is(Number((await row(`select count(*) from messages where conversation_id = $1`, [conv.id])).count), 1);
});

test('send: 401 without or with a bad token', async (t) => {
  const ws = await createWorkspace(app);
  const conv = await startConversation(ws);
  const none = await app.request('POST', `/api/v1/conversations/${conv.id}/messages`, { body: { content: 'x' } });
  t.is(none.status, 401);
  t.deepEqual(none.body, { detail: 'Not authenticated' });
  const bad = await app.request('POST', `/api/v1/conversations/${conv.id}/messages`, { token: 'nope', body: { content: 'x' } });
  t.is(bad.status, 401);
});

test('monthly limit on Free: the 250th message is sent, the 251st is 403 with the plan body and leaves nothing behind', async (t) => {
  const ws = await createWorkspace(app);
  const conv = await startConversation(ws);
  await app.sql(`insert into message_counters (business_id, month, count) values ($1, ${thisMonth}, 249)`, [ws.businessId]);

  const last = await send(ws, conv.id, { content: 'number 250' });
  t.is(last.status, 200, last.text);
  t.is((await row(`select sum(count)::int as count from message_counters where business_id = $1 and month = ${thisMonth}`, [ws.businessId])).count, 250);

  const messagesBefore = Number((await row(`select count(*) from messages where business_id = $1`, [ws.businessId])).count);
  const jobsBefore = await deliveryJobs(ws.businessId);
  t.is(jobsBefore.length, 1);
  const eventsBefore = app.events.length;
  const refused = await send(ws, conv.id, { content: 'number 251' });
  t.is(refused.status, 403);
  t.like(refused.body, { error: 'limit_exceeded', feature: 'messages', plan: 'Free', current: 250, limit: 250 });
  t.is(typeof refused.body.message, 'string');
  t.is(Number((await row(`select count(*) from messages where business_id = $1`, [ws.businessId])).count), messagesBefore);
  t.deepEqual(await deliveryJobs(ws.businessId), jobsBefore);
  t.is(await orphanDeliveryJobs(), 0);
  t.is((await row(`select sum(count)::int as count from message_counters where business_id = $1 and month = ${thisMonth}`, [ws.businessId])).count, 250);
  t.false(
    app.events.slice(eventsBefore).some((e) => e.payload.business_id === ws.businessId),
    'no event for a refused send',
  );

  // Starting a conversation with an initial message is refused the same way, and creates nothing.
  const conversationsBefore = Number((await row(`select count(*) from conversations where business_id = $1`, [ws.businessId])).count);
  const create = await app.request('POST', '/api/v1/conversations', { token: ws.token, body: { business_id: ws.businessId, initial_message: 'hi' } });
  t.is(create.status, 403);
  t.like(create.body, { error: 'limit_exceeded', feature: 'messages', plan: 'Free', limit: 250 });
  t.is(Number((await row(`select count(*) from conversations where business_id = $1`, [ws.businessId])).count), conversationsBefore);
});

test('monthly limit: only this UTC month counts; Mini allows 5,000', async (t) => {
  const free = await createWorkspace(app);
  const conv = await startConversation(free);
  await app.sql(`insert into message_counters (business_id, month, count) values ($1, (${thisMonth} - interval '1 month')::date, 250)`, [free.businessId]);
  t.is((await send(free, conv.id, { content: 'new month' })).status, 200);

  const mini = await createWorkspace(app, { plan: 'Mini' });
  const miniConv = await startConversation(mini);
  await app.sql(`insert into message_counters (business_id, month, count) values ($1, ${thisMonth}, 4999)`, [mini.businessId]);
  t.is((await send(mini, miniConv.id, { content: 'ok' })).status, 200);
  const refused = await send(mini, miniConv.id, { content: 'too many' });
  t.is(refused.status, 403);
  t.like(refused.body, { plan: 'Mini', limit: 5000, current: 5000 });
});

test('send: a conversation whose channel was deleted cannot take a reply (400), and nothing counts', async (t) => {
  const ws = await createWorkspace(app);
  const conv = await startConversation(ws);
  await app.sql(`update conversations set channel_id = null where id = $1`, [conv.id]);
  const res = await send(ws, conv.id, { content: 'hello?' });
  t.is(res.status, 400);
  t.is(typeof res.body.detail, 'string');
  t.is(await row(`select count from message_counters where business_id = $1`, [ws.businessId]), undefined);
});

async function uploadFile(ws: Workspace, conversationId: string, name: string, type: string, bytes: Uint8Array) {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), name);
  const res = await fetch(`${app.url}/api/v1/conversations/${conversationId}/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ws.token}` },
    body: form,
  });
  const body = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`upload failed: ${res.status} ${JSON.stringify(body)}`);
  return body as { url: string; filename: string; content_type: string; size: number };
}

test('send with attachments: uploads of this business are stored with their recorded name, type and size', async (t) => {
  const ws = await createWorkspace(app);
  const conv = await startConversation(ws);
  const uploaded = await uploadFile(ws, conv.id, 'photo.png', 'image/png', new Uint8Array([137, 80, 78, 71, 1, 2, 3]));
  const res = await send(ws, conv.id, {
    content: 'See attached',
    attachments: [{ url: uploaded.url, filename: 'renamed.exe', content_type: 'application/x-msdownload', size: 1 }],
  });
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body.attachments, [uploaded]);
  const stored = await row(`select attachments from messages where id = $1`, [res.body.id]);
  t.deepEqual(stored.attachments, [uploaded]);
});

test("send with attachments: a foreign URL or another business's upload is 422 and nothing is sent", async (t) => {
  const ws = await createWorkspace(app);
  const other = await createWorkspace(app);
  const conv = await startConversation(ws);
  const otherConv = await startConversation(other);
  const theirs = await uploadFile(other, otherConv.id, 'a.pdf', 'application/pdf', new Uint8Array([37, 80, 68, 70]));
  const mine = await uploadFile(ws, conv.id, 'b.pdf', 'application/pdf', new Uint8Array([37, 80, 68, 70]));
  const res = await send(ws, conv.id, {
    content: 'files',
    attachments: [{ url: mine.url }, { url: 'https://evil.example/x.png' }, { url: theirs.url }],
  });
  t.is(res.status, 422);
  t.deepEqual(
    res.body.detail.map((d: any) => d.loc),
    [
      ['body', 'attachments', 1, 'url'],
      ['body', 'attachments', 2, 'url'],
    ],
  );
  t.is(Number((await row(`select count(*) from messages where conversation_id = $1`, [conv.id])).count), 0);
  const missingUrl = await send(ws, conv.id, { content: 'x', attachments: [{ filename: 'a' }] });
  t.is(missingUrl.status, 422);
  t.deepEqual(missingUrl.body.detail[0].loc, ['body', 'attachments', 0, 'url']);
});

test('system message (sendMessage): in the inbox, not counted, not delivered, first_response_at and status kept; the same events', async (t) => {
  const ws = await createWorkspace(app);
  const conv = await startConversation(ws);
  // Pending and without a channel: a note neither reopens it nor needs a channel to be written.
  await app.sql(`update conversations set status = 'pending', channel_id = null where id = $1`, [conv.id]);
  const eventsBefore = app.events.length;

  const sent = await sendMessage(app.deps.db, {
    businessId: ws.businessId,
    conversationId: conv.id,
    sender: { type: 'system' },
    content: 'Assigned to agent 2',
    attachments: [],
  });
  await publishEvents(app.deps, sent.events);

  t.like(sent.message, { conversation_id: conv.id, sender_type: 'system', sender_id: null, content: 'Assigned to agent 2', delivery_status: null });
  const message = await row(`select * from messages where id = $1`, [sent.message.id]);
  t.like(message, { business_id: ws.businessId, sender_type: 'system', sender_id: null, delivery_status: null, channel_id: null });
  t.deepEqual(await deliveryJobs(ws.businessId), [], 'nothing is delivered to the customer');
  t.is(await row(`select count from message_counters where business_id = $1`, [ws.businessId]), undefined, 'not counted against the month');

  const after = await row(`select last_message_at, first_response_at, status from conversations where id = $1`, [conv.id]);
  t.is(after.last_message_at.toISOString(), sent.message.created_at);
  t.is(after.first_response_at, null, 'first_response_at waits for a human reply');
  t.is(after.status, 'pending');

  const published = app.events.slice(eventsBefore).filter((e) => e.payload.conversation_id === conv.id);
  t.deepEqual(
    published.map((e) => e.name),
    ['message_created', 'conversation_updated'],
  );
  t.deepEqual(published[0].payload.message, sent.message);
  t.is(published[0].payload.sender_type, 'system');

  const listed = await app.request('GET', `/api/v1/conversations/${conv.id}/messages`, { token: ws.token });
  t.is(listed.status, 200, listed.text);
  t.true(JSON.stringify(listed.body).includes(sent.message.id), 'visible in the inbox');
});

test("system message (sendMessage): another business's conversation is 404, and nothing is written", async (t) => {
  const ws = await createWorkspace(app);
  const other = await createWorkspace(app);
  const conv = await startConversation(other);
  const error = await t.throwsAsync(
    sendMessage(app.deps.db, { businessId: ws.businessId, conversationId: conv.id, sender: { type: 'system' }, content: 'note', attachments: [] }),
  );
  t.is((error as any).status, 404);
  t.is(await row(`select count(*)::int as n from messages where conversation_id = $1`, [conv.id]).then((r) => r.n), 0);
});
