import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, registerUser, type Account, type Workspace } from './helpers/fixtures.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

const one = async (text: string, params: unknown[] = []): Promise<any> => (await app.sql(text, params))[0];

async function create(ws: Workspace, body: Record<string, unknown> = {}) {
  return app.request('POST', '/api/v1/conversations/', { token: ws.token, body: { business_id: ws.businessId, ...body } });
}

async function startConversation(ws: Workspace, body: Record<string, unknown> = {}): Promise<any> {
  const res = await create(ws, body);
  if (res.status !== 200) throw new Error(`create conversation failed: ${res.status} ${res.text}`);
  return res.body;
}

const builtinChannel = async (businessId: string): Promise<string> =>
  (await one(`select id from channels where business_id = $1 and is_builtin`, [businessId])).id;

async function insertChannel(businessId: string, type: string, isActive = true): Promise<string> {
  return (await one(`insert into channels (business_id, type, is_active, status) values ($1, $2, $3, 'connected') returning id`, [businessId, type, isActive]))
    .id;
}

async function insertCustomer(businessId: string, fields: { name?: string; email?: string; phone?: string } = {}) {
  return one(`insert into customers (business_id, name, email, phone) values ($1, $2, $3, $4) returning id, number`, [
    businessId,
    fields.name ?? 'Casey Customer',
    fields.email ?? null,
    fields.phone ?? null,
  ]);
}

async function invite(ws: Workspace, name = 'Agent'): Promise<Account & { agentNumber: number }> {
  const user = await registerUser(app, name);
  const res = await app.request('POST', '/api/v1/team/invite', { token: ws.token, query: { email: user.email, role: 'agent' } });
  if (res.status !== 200) throw new Error(`invite failed: ${res.status} ${res.text}`);
  const { agent_number } = await one(`select agent_number from team_members where id = $1`, [res.body.team_member_id]);
  return { ...user, agentNumber: agent_number };
}

const uuidRe = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const isoRe = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// ---------- POST /conversations/

test('create: an open conversation on the built-in webchat channel, with and without the trailing slash', async (t) => {
  const ws = await createWorkspace(app);
  const webchat = await builtinChannel(ws.businessId);
  for (const path of ['/api/v1/conversations/', '/api/v1/conversations']) {
    const eventsBefore = app.events.length;
    const res = await app.request('POST', path, { token: ws.token, body: { business_id: ws.businessId } });
    t.is(res.status, 200, res.text);
    t.regex(res.body.id, uuidRe);
    t.like(res.body, {
      business_id: ws.businessId,
      customer_id: null,
      assignee_id: null,
      status: 'open',
      channel_type: 'webchat',
      channel_id: webchat,
      first_response_at: null,
      resolved_at: null,
      closed_at: null,
      customer: null,
      messages: [],
    });
    t.regex(res.body.created_at, isoRe);
    t.regex(res.body.updated_at, isoRe);
    const created = app.events.slice(eventsBefore).filter((e) => e.name === 'conversation_created' && e.payload.conversation_id === res.body.id);
    t.is(created.length, 1);
    t.deepEqual(created[0].rooms, [`business:${ws.businessId}`]);
  }
});

test('create with initial_message: an agent message by the caller, first_response_at set, counted, queued for delivery', async (t) => {
  const ws = await createWorkspace(app);
  const res = await create(ws, { initial_message: 'Hi! We saw your order.' });
  t.is(res.status, 200, res.text);
  t.is(res.body.messages.length, 1);
  const [message] = res.body.messages;
  t.like(message, {
    conversation_id: res.body.id,
    sender_type: 'agent',
    sender_id: ws.userId,
    content: 'Hi! We saw your order.',
    attachments: [],
    delivery_status: 'queued',
  });
  t.is(res.body.first_response_at, message.created_at);
  const job = await one(`select key from graphile_worker.jobs where task_identifier = 'deliver_message' and key = $1`, [`deliver:${res.body.id}`]);
  t.truthy(job, "the conversation's delivery drain (deliver_message, key deliver:<conversation id>) is armed");
  const counter = await one(`select sum(count)::int as count from message_counters where business_id = $1`, [ws.businessId]);
  t.is(counter.count, 1);
  const names = app.events.filter((e) => e.payload.conversation_id === res.body.id).map((e) => e.name);
  t.deepEqual(names, ['conversation_created', 'message_created', 'conversation_updated']);
});

test('create: a customer of the business is linked and embedded; others are 400', async (t) => {
  const ws = await createWorkspace(app);
  const other = await createWorkspace(app);
  const customer = await insertCustomer(ws.businessId, { name: 'Dana', email: 'dana@example.com' });
  const res = await create(ws, { customer_id: customer.id });
  t.is(res.status, 200, res.text);
  t.is(res.body.customer_id, customer.id);
  const business = await one(`select number from businesses where id = $1`, [ws.businessId]);
  t.deepEqual(res.body.customer, {
    id: Number(customer.number),
    business_id: Number(business.number),
    uuid: customer.id,
    name: 'Dana',
    email: 'dana@example.com',
    phone: null,
    external_id: null,
    attributes: {},
    created_at: res.body.customer.created_at,
  });
  const foreign = await insertCustomer(other.businessId);
  for (const customerId of [foreign.id, '00000000-0000-4000-8000-000000000000']) {
    const bad = await create(ws, { customer_id: customerId });
    t.is(bad.status, 400);
    t.deepEqual(bad.body, { detail: 'Customer not found' });
  }
});

test('create: channel_id picks an active channel of the business; inactive or foreign channels are 400', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const other = await createWorkspace(app);
  const telegram = await insertChannel(ws.businessId, 'telegram');
  const res = await create(ws, { channel_id: telegram });
  t.is(res.status, 200, res.text);
  t.like(res.body, { channel_id: telegram, channel_type: 'telegram' });
  const inactive = await insertChannel(ws.businessId, 'sms', false);
  const foreign = await builtinChannel(other.businessId);
  for (const channelId of [inactive, foreign, '00000000-0000-4000-8000-000000000000']) {
    const bad = await create(ws, { channel_id: channelId });
    t.is(bad.status, 400);
    t.deepEqual(bad.body, { detail: 'Channel not found' });
  }
  const before = Number((await one(`select count(*) from conversations where business_id = $1`, [ws.businessId])).count);
  t.is(before, 1, 'refused creates leave no conversation');
});

test('create: another business id, or a caller without a business, is 404', async (t) => {
  const ws = await createWorkspace(app);
  const other = await createWorkspace(app);
  const res = await app.request('POST', '/api/v1/conversations/', { token: ws.token, body: { business_id: other.businessId } });
  t.is(res.status, 404);
  t.deepEqual(res.body, { detail: 'Business not found' });
  const loner = await registerUser(app);
  const none = await app.request('POST', '/api/v1/conversations/', { token: loner.token, body: { business_id: ws.businessId } });
  t.is(none.status, 404);
  t.is(Number((await one(`select count(*) from conversations where business_id = $1`, [other.businessId])).count), 0);
});

test('create: 422 for missing or malformed fields, 401 without a token', async (t) => {
  const ws = await createWorkspace(app);
  const missing = await app.request('POST', '/api/v1/conversations/', { token: ws.token, body: {} });
  t.is(missing.status, 422);
  t.deepEqual(missing.body.detail, [{ loc: ['body', 'business_id'], msg: 'Field required', type: 'missing' }]);
  const malformed = await create(ws, { business_id: 'nope', customer_id: 'x', initial_message: '' });
  t.is(malformed.status, 422);
  t.deepEqual(malformed.body.detail.map((d: any) => [d.loc.join('.'), d.type]).sort(), [
    ['body.business_id', 'uuid_parsing'],
    ['body.customer_id', 'uuid_parsing'],
    ['body.initial_message', 'string_too_short'],
  ]);
  const long = await create(ws, { initial_message: 'x'.repeat(10_001) });
  t.is(long.status, 422);
  t.is(long.body.detail[0].type, 'string_too_long');
  const anon = await app.request('POST', '/api/v1/conversations/', { body: { business_id: ws.businessId } });
  t.is(anon.status, 401);
});

// ---------- GET /conversations/

test("list: most recently updated first, only the caller's business, with customer and last message", async (t) => {
  const ws = await createWorkspace(app);
  const other = await createWorkspace(app);
  await startConversation(other);
  const customer = await insertCustomer(ws.businessId, { name: 'Lee' });
  const a = await startConversation(ws, { customer_id: customer.id });
  const b = await startConversation(ws);
  const c = await startConversation(ws);
  // A reply moves `a` to the top.
  const reply = await app.request('POST', `/api/v1/conversations/${a.id}/messages`, { token: ws.token, body: { content: 'bump' } });
  t.is(reply.status, 200);
  for (const path of ['/api/v1/conversations/', '/api/v1/conversations']) {
    const res = await app.request('GET', path, { token: ws.token });
    t.is(res.status, 200, res.text);
    t.deepEqual(
      res.body.map((x: any) => x.id),
      [a.id, c.id, b.id],
    );
    t.is(res.headers.get('x-next-cursor'), null);
    t.is(res.body[0].customer.name, 'Lee');
    t.is(res.body[0].last_message.id, reply.body.id);
    t.is(res.body[1].customer, null);
    t.is(res.body[1].last_message, null);
  }
});

test('list: filters by status, assignee and channel type', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const agent = await invite(ws);
  const telegram = await insertChannel(ws.businessId, 'telegram');
  const open = await startConversation(ws);
  const resolved = await startConversation(ws);
  const onTelegram = await startConversation(ws, { channel_id: telegram });
  await app.sql(`update conversations set status = 'resolved' where id = $1`, [resolved.id]);
  await app.sql(`update conversations set assignee_id = $2 where id = $1`, [onTelegram.id, agent.userId]);
  const ids = async (query: Record<string, string>) => {
    const res = await app.request('GET', '/api/v1/conversations/', { token: ws.token, query });
    t.is(res.status, 200, res.text);
    return res.body.map((x: any) => x.id).sort();
  };
  t.deepEqual(await ids({ status: 'resolved' }), [resolved.id]);
  t.deepEqual(await ids({ status: 'open' }), [open.id, onTelegram.id].sort());
  t.deepEqual(await ids({ assignee_id: agent.userId }), [onTelegram.id]);
  t.deepEqual(await ids({ assignee_id: 'none' }), [open.id, resolved.id].sort());
  t.deepEqual(await ids({ channel_type: 'telegram' }), [onTelegram.id]);
  t.deepEqual(await ids({ channel_type: 'webchat', status: 'open' }), [open.id]);
  t.deepEqual(await ids({ channel_type: 'sms' }), []);
});

test('list: cursor pagination walks every conversation once, in order, across equal and sub-millisecond timestamps', async (t) => {
  const ws = await createWorkspace(app);
  const ids: string[] = [];
  for (let i = 0; i < 11; i++) ids.push((await startConversation(ws)).id);
  // Three share one timestamp exactly (ties broken by id); two differ only in microseconds.
  await app.sql(`update conversations set updated_at = '2030-01-01T00:00:00.000100Z' where id = any($1)`, [ids.slice(0, 3)]);
  await app.sql(`update conversations set updated_at = '2030-01-01T00:00:00.000200Z' where id = $1`, [ids[3]]);
  await app.sql(`update conversations set updated_at = '2030-01-01T00:00:00.000900Z' where id = $1`, [ids[4]]);
  const expected = (await app.sql(`select id from conversations where business_id = $1 order by updated_at desc, id desc`, [ws.businessId])).map((r) => r.id);

  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const res = await app.request('GET', '/api/v1/conversations/', { token: ws.token, query: { limit: 3, before: cursor } });
    t.is(res.status, 200, res.text);
    t.true(res.body.length <= 3);
    seen.push(...res.body.map((x: any) => x.id));
    cursor = res.headers.get('x-next-cursor') ?? undefined;
    pages++;
  } while (cursor && pages < 10);
  t.deepEqual(seen, expected);
  t.is(pages, 4);

  const all = await app.request('GET', '/api/v1/conversations/', { token: ws.token, query: { limit: 11 } });
  t.is(all.body.length, 11);
  t.is(all.headers.get('x-next-cursor'), null, 'no cursor when nothing is left');

  // A cursor only narrows the caller's own business.
  const other = await createWorkspace(app);
  const first = await app.request('GET', '/api/v1/conversations/', { token: ws.token, query: { limit: 1 } });
  const foreign = await app.request('GET', '/api/v1/conversations/', { token: other.token, query: { before: first.headers.get('x-next-cursor')! } });
  t.deepEqual(foreign.body, []);
});

test('list: 422 for a bad limit, status, assignee or cursor; 401 without a token; 404 without a business', async (t) => {
  const ws = await createWorkspace(app);
  for (const [query, loc] of [
    [{ limit: 0 }, 'limit'],
    [{ limit: 201 }, 'limit'],
    [{ limit: 'many' }, 'limit'],
    [{ status: 'archived' }, 'status'],
    [{ assignee_id: 'bob' }, 'assignee_id'],
    [{ channel_type: 'fax' }, 'channel_type'],
    [{ before: 'garbage' }, 'before'],
    [{ before: Buffer.from('["2020-01-01","x"]').toString('base64url') }, 'before'],
  ] as const) {
    const res = await app.request('GET', '/api/v1/conversations/', { token: ws.token, query });
    t.is(res.status, 422, JSON.stringify(query));
    t.deepEqual(res.body.detail[0].loc, ['query', loc]);
  }
  t.is((await app.request('GET', '/api/v1/conversations/', { token: ws.token, query: { limit: 200 } })).status, 200);
  t.is((await app.request('GET', '/api/v1/conversations/')).status, 401);
  const loner = await registerUser(app);
  t.is((await app.request('GET', '/api/v1/conversations/', { token: loner.token })).status, 404);
});

// ---------- GET /conversations/{id} and /messages

async function insertMessages(conversationId: string, businessId: string, count: number): Promise<string[]> {
  const rows = await app.sql(
    `insert into messages (business_id, conversation_id, sender_type, content, created_at)
     select $1, $2, 'customer', 'm' || g, timestamptz '2030-01-01' + g * interval '1 second'
     from generate_series(1, $3) g
     returning id`,
    [businessId, conversationId, count],
  );
  return rows.map((r) => r.id);
}

test('read: the conversation with its customer and its latest 100 messages, oldest first; X-Next-Cursor leads to the older ones', async (t) => {
  const ws = await createWorkspace(app);
  const customer = await insertCustomer(ws.businessId, { name: 'Robin', phone: '+15550001' });
  const conv = await startConversation(ws, { customer_id: customer.id });
  await insertMessages(conv.id, ws.businessId, 105);
  const res = await app.request('GET', `/api/v1/conversations/${conv.id}`, { token: ws.token });
  t.is(res.status, 200, res.text);
  t.is(res.body.id, conv.id);
  t.is(res.body.customer.uuid, customer.id);
  t.is(res.body.customer.phone, '+15550001');
  t.is(res.body.messages.length, 100);
  t.is(res.body.messages[0].content, 'm6');
  t.is(res.body.messages[99].content, 'm105');
  t.like(res.body.messages[0], { sender_type: 'customer', sender_id: null, delivery_status: null, attachments: [] });
  // Where the older ones continue: the messages list before that cursor is m1-m5.
  const older = await app.request('GET', `/api/v1/conversations/${conv.id}/messages`, {
    token: ws.token,
    query: { before: res.headers.get('x-next-cursor')! },
  });
  t.is(older.status, 200, older.text);
  t.deepEqual(
    older.body.map((m: any) => m.content),
    ['m1', 'm2', 'm3', 'm4', 'm5'],
  );
  t.is(older.headers.get('x-next-cursor'), null);
  // Exactly 100 messages: nothing older, no cursor.
  await app.sql(`delete from messages where conversation_id = $1 and content = any($2)`, [conv.id, ['m1', 'm2', 'm3', 'm4', 'm5']]);
  const whole = await app.request('GET', `/api/v1/conversations/${conv.id}`, { token: ws.token });
  t.is(whole.body.messages.length, 100);
  t.is(whole.headers.get('x-next-cursor'), null);
});

test('messages: oldest first, paged backwards with the cursor', async (t) => {
  const ws = await createWorkspace(app);
  const conv = await startConversation(ws);
  const ids = await insertMessages(conv.id, ws.businessId, 7);
  // Two messages at one instant: the id breaks the tie.
  await app.sql(`update messages set created_at = timestamptz '2030-01-01' + interval '4 seconds' where id = $1`, [ids[4]]);
  const expected = (await app.sql(`select id from messages where conversation_id = $1 order by created_at, id`, [conv.id])).map((r) => r.id);

  const first = await app.request('GET', `/api/v1/conversations/${conv.id}/messages`, { token: ws.token, query: { limit: 3 } });
  t.is(first.status, 200, first.text);
  t.deepEqual(
    first.body.map((m: any) => m.id),
    expected.slice(4),
  );
  const second = await app.request('GET', `/api/v1/conversations/${conv.id}/messages`, {
    token: ws.token,
    query: { limit: 3, before: first.headers.get('x-next-cursor')! },
  });
  t.deepEqual(
    second.body.map((m: any) => m.id),
    expected.slice(1, 4),
  );
  const third = await app.request('GET', `/api/v1/conversations/${conv.id}/messages`, {
    token: ws.token,
    query: { limit: 3, before: second.headers.get('x-next-cursor')! },
  });
  t.deepEqual(
    third.body.map((m: any) => m.id),
    expected.slice(0, 1),
  );
  t.is(third.headers.get('x-next-cursor'), null);

  const all = await app.request('GET', `/api/v1/conversations/${conv.id}/messages`, { token: ws.token });
  t.deepEqual(
    all.body.map((m: any) => m.id),
    expected,
  );
  const bad = await app.request('GET', `/api/v1/conversations/${conv.id}/messages`, { token: ws.token, query: { limit: 500 } });
  t.is(bad.status, 422);
});

// ---------- tenancy

test("another business's conversation is 404 on every operation, and nothing changes", async (t) => {
  const mine = await createWorkspace(app, { plan: 'Pro' });
  const theirs = await createWorkspace(app);
  const conv = await startConversation(theirs);
  const before = await one(`select * from conversations where id = $1`, [conv.id]);
  const requests: [string, string, unknown?][] = [
    ['GET', `/api/v1/conversations/${conv.id}`],
    ['GET', `/api/v1/conversations/${conv.id}/messages`],
    ['POST', `/api/v1/conversations/${conv.id}/messages`, { content: 'x' }],
    ['PUT', `/api/v1/conversations/${conv.id}/resolve`],
    ['PUT', `/api/v1/conversations/${conv.id}/close`],
    ['PUT', `/api/v1/conversations/${conv.id}/reopen`],
    ['PUT', `/api/v1/conversations/${conv.id}/assign/1`],
  ];
  for (const [method, path, body] of requests) {
    const res = await app.request(method, path, { token: mine.token, body });
    t.is(res.status, 404, `${method} ${path}`);
    t.deepEqual(res.body, { detail: 'Conversation not found' }, `${method} ${path}`);
  }
  const list = await app.request('GET', '/api/v1/conversations/', { token: mine.token });
  t.deepEqual(list.body, []);
  t.deepEqual(await one(`select * from conversations where id = $1`, [conv.id]), before);
  t.is((await app.request('GET', `/api/v1/conversations/${conv.id}`, { token: theirs.token })).status, 200);
  const unknown = await app.request('GET', '/api/v1/conversations/00000000-0000-4000-8000-000000000000', { token: mine.token });
  t.is(unknown.status, 404);
  const malformed = await app.request('PUT', '/api/v1/conversations/123/resolve', { token: mine.token });
  t.is(malformed.status, 422);
  t.deepEqual(malformed.body.detail[0], { loc: ['path', 'conversation_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' });
});

// ---------- resolve, close, reopen

test('resolve: records resolved_at and who; a second resolve says so and changes nothing', async (t) => {
  const ws = await createWorkspace(app);
  const conv = await startConversation(ws);
  const eventsBefore = app.events.length;
  const res = await app.request('PUT', `/api/v1/conversations/${conv.id}/resolve`, { token: ws.token });
  t.is(res.status, 200, res.text);
  t.deepEqual(Object.keys(res.body), ['resolved_at']);
  t.regex(res.body.resolved_at, isoRe);
  const row = await one(`select status, resolved_at, resolved_by from conversations where id = $1`, [conv.id]);
  t.is(row.status, 'resolved');
  t.is(row.resolved_at.toISOString(), res.body.resolved_at);
  t.is(row.resolved_by, ws.userId);
  const updated = app.events.slice(eventsBefore).filter((e) => e.name === 'conversation_updated' && e.payload.conversation_id === conv.id);
  t.is(updated.length, 1);
  t.is(updated[0].payload.status, 'resolved');

  const again = await app.request('PUT', `/api/v1/conversations/${conv.id}/resolve`, { token: ws.token });
  t.is(again.status, 200);
  t.deepEqual(Object.keys(again.body), ['detail']);
  t.regex(again.body.detail, /already resolved/i);
  const still = await one(`select resolved_at from conversations where id = $1`, [conv.id]);
  t.is(still.resolved_at.toISOString(), res.body.resolved_at);
  t.is(app.events.slice(eventsBefore).filter((e) => e.name === 'conversation_updated' && e.payload.conversation_id === conv.id).length, 1);
  t.is((await app.request('PUT', `/api/v1/conversations/${conv.id}/resolve`)).status, 401);
});

test('close: records closed_at; a second close says so; resolve and close work from every other state', async (t) => {
  const ws = await createWorkspace(app);
  const conv = await startConversation(ws);
  const res = await app.request('PUT', `/api/v1/conversations/${conv.id}/close`, { token: ws.token });
  t.is(res.status, 200, res.text);
  t.deepEqual(Object.keys(res.body), ['closed_at']);
  const row = await one(`select status, closed_at from conversations where id = $1`, [conv.id]);
  t.is(row.status, 'closed');
  t.is(row.closed_at.toISOString(), res.body.closed_at);
  const again = await app.request('PUT', `/api/v1/conversations/${conv.id}/close`, { token: ws.token });
  t.is(again.status, 200);
  t.regex(again.body.detail, /already closed/i);
  t.is(again.body.closed_at, undefined);

  // closed → resolved → closed, and pending → resolved
  const resolved = await app.request('PUT', `/api/v1/conversations/${conv.id}/resolve`, { token: ws.token });
  t.truthy(resolved.body.resolved_at);
  const closedAgain = await app.request('PUT', `/api/v1/conversations/${conv.id}/close`, { token: ws.token });
  t.truthy(closedAgain.body.closed_at);
  const pending = await startConversation(ws);
  await app.sql(`update conversations set status = 'pending' where id = $1`, [pending.id]);
  t.truthy((await app.request('PUT', `/api/v1/conversations/${pending.id}/resolve`, { token: ws.token })).body.resolved_at);
  t.is((await app.request('PUT', `/api/v1/conversations/${conv.id}/close`)).status, 401);
});

test('reopen: back to open with resolution and closing cleared; an open conversation is unchanged', async (t) => {
  const ws = await createWorkspace(app);
  const conv = await startConversation(ws);
  await app.request('PUT', `/api/v1/conversations/${conv.id}/resolve`, { token: ws.token });
  await app.request('PUT', `/api/v1/conversations/${conv.id}/close`, { token: ws.token });
  const res = await app.request('PUT', `/api/v1/conversations/${conv.id}/reopen`, { token: ws.token });
  t.is(res.status, 200, res.text);
  t.like(res.body, { id: conv.id, status: 'open', resolved_at: null, closed_at: null });
  t.true(Array.isArray(res.body.messages));
  const row = await one(`select status, resolved_by from conversations where id = $1`, [conv.id]);
  t.is(row.status, 'open');
  t.is(row.resolved_by, null);
  const again = await app.request('PUT', `/api/v1/conversations/${conv.id}/reopen`, { token: ws.token });
  t.is(again.status, 200);
  t.is(again.body.updated_at, res.body.updated_at);
});

// ---------- assign by agent number

test("assign: by agent number, storing the member's user id; 404 unknown agent, 422 non-integer", async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const agent = await invite(ws, 'Abe');
  t.is(agent.agentNumber, 2);
  const conv = await startConversation(ws);
  await app.sql(`update conversations set status = 'pending' where id = $1`, [conv.id]);
  const eventsBefore = app.events.length;
  const res = await app.request('PUT', `/api/v1/conversations/${conv.id}/assign/2`, { token: ws.token });
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body, { assignee_id: 2 });
  const row = await one(`select assignee_id, assigned_at, status from conversations where id = $1`, [conv.id]);
  t.is(row.assignee_id, agent.userId);
  t.truthy(row.assigned_at);
  t.is(row.status, 'open', 'a pending conversation becomes open, as with the team assign');
  const assigned = app.events.slice(eventsBefore).filter((e) => e.name === 'conversation_assigned' && e.payload.conversation_id === conv.id);
  t.is(assigned.length, 1);
  t.deepEqual(assigned[0].rooms, [`user:${agent.userId}`]);
  t.like(assigned[0].payload, { conversation_id: conv.id, assignee_id: agent.userId, assigned_by: ws.userId });
  const read = await app.request('GET', `/api/v1/conversations/${conv.id}`, { token: agent.token });
  t.is(read.body.assignee_id, agent.userId, 'elsewhere assignee_id is the user id');

  // One rule with POST /team/assign: an agent takes a conversation (their own number), only the
  // owner or an admin gives it to someone else. The owner is agent number 1.
  await app.sql(`update conversations set assignee_id = null where id = $1`, [conv.id]);
  const toOwner = await app.request('PUT', `/api/v1/conversations/${conv.id}/assign/1`, { token: agent.token });
  t.deepEqual([toOwner.status, toOwner.body], [403, { detail: 'Only the owner or an admin can assign conversations to others' }]);
  t.is((await one(`select assignee_id from conversations where id = $1`, [conv.id])).assignee_id, null, 'unchanged');
  const taken = await app.request('PUT', `/api/v1/conversations/${conv.id}/assign/2`, { token: agent.token });
  t.deepEqual([taken.status, taken.body], [200, { assignee_id: 2 }]);
  t.is((await one(`select assignee_id from conversations where id = $1`, [conv.id])).assignee_id, agent.userId);
  const toOwnerByOwner = await app.request('PUT', `/api/v1/conversations/${conv.id}/assign/1`, { token: ws.token });
  t.deepEqual(toOwnerByOwner.body, { assignee_id: 1 });
  t.is((await one(`select assignee_id from conversations where id = $1`, [conv.id])).assignee_id, ws.userId);

  for (const unknown of ['99', '0', '2147483647']) {
    const res404 = await app.request('PUT', `/api/v1/conversations/${conv.id}/assign/${unknown}`, { token: ws.token });
    t.is(res404.status, 404, unknown);
    t.deepEqual(res404.body, { detail: 'Agent not found' });
  }
  // Another business's agent number 2 is not this business's.
  const other = await createWorkspace(app, { plan: 'Pro' });
  await invite(other);
  const otherConv = await startConversation(other);
  t.is((await app.request('PUT', `/api/v1/conversations/${otherConv.id}/assign/2`, { token: ws.token })).status, 404);

  // Digits only, within the column's int4 range (issue #11): anything else names no agent number.
  for (const bad of ['abc', '1.5', '-1', '99999999999', '0x1', '1e0', '%202', '+2']) {
    const res422 = await app.request('PUT', `/api/v1/conversations/${conv.id}/assign/${bad}`, { token: ws.token });
    t.is(res422.status, 422, bad);
    t.deepEqual(res422.body.detail[0].loc, ['path', 'agent_id']);
    t.is(res422.body.detail[0].type, 'int_parsing');
  }
  t.is((await app.request('PUT', `/api/v1/conversations/${conv.id}/assign/2`)).status, 401);
});

test("assign: a removed member's number is 404", async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const agent = await invite(ws);
  const conv = await startConversation(ws);
  const member = await one(`select id from team_members where user_id = $1`, [agent.userId]);
  const removed = await app.request('DELETE', `/api/v1/team/members/${member.id}`, { token: ws.token });
  t.is(removed.status, 200, removed.text);
  const res = await app.request('PUT', `/api/v1/conversations/${conv.id}/assign/${agent.agentNumber}`, { token: ws.token });
  t.is(res.status, 404);
  t.deepEqual(res.body, { detail: 'Agent not found' });
});

test('openapi documents the conversation routes', async (t) => {
  const res = await app.request('GET', '/api/v1/openapi.json');
  t.truthy(res.body.paths['/api/v1/conversations'].post);
  t.truthy(res.body.paths['/api/v1/conversations/{conversation_id}/assign/{agent_id}'].put);
  t.truthy(res.body.paths['/api/v1/conversations/{conversation_id}/upload'].post);
  t.truthy(res.body.paths['/api/v1/uploads/{storage_key}'].get);
});
