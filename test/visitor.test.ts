/**
 * The visitor API, the `/widget` socket and GET /widget.js: a website visitor starts a
 * session, writes in, the agent inbox sees a `widget` conversation, and an agent's reply
 * reaches the visitor's socket through the deliver_message job.
 *
 * No timings: "never receives" is checked with a marker published after the event that must
 * not arrive (one bus delivers in order). Session rate limits are keyed by client address;
 * each test sends its own X-Forwarded-For (TRUST_PROXY_HOPS=1) so tests never share a window.
 */
import test from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import type { SupervisedRunner as Runner } from '../workers/supervisor.ts';
import { io as connectClient, type Socket } from 'socket.io-client';
import { issueAccessToken, issuePurposeToken } from '../core/domain/accounts/tokens.ts';
import { issueVisitorToken } from '../core/domain/visitors/visitor-tokens.ts';
import { loadVisitorMessageEvent } from '../core/domain/visitors/visitor-messages.ts';
import { WIDGET_NAMESPACE } from '../core/events/bus.ts';
import { createRedisEventBus } from '../core/adapters/redis-events.ts';
import type { EventBus } from '../core/events/bus.ts';
import { startTestApp, testRedisUrl, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { query, startTestWorker, waitFor } from './helpers/worker.ts';

let app: TestApp;
let worker: Runner;
const sockets: Socket[] = [];

test.before(async () => {
  app = await startTestApp({ env: { TRUST_PROXY_HOPS: '1' } });
  worker = await startTestWorker(app, { only: ['deliver_message', 'process_inbound'] });
});

test.after.always(async () => {
  for (const socket of sockets) socket.close();
  await worker?.stop();
  await app?.close();
});

const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const someAddress = () => `10.${randomBytes(3).join('.')}`;

type Site = Workspace & { widgetId: string; channelId: string };

async function site(plan: 'Free' | 'Mini' | 'Pro' = 'Free'): Promise<Site> {
  const ws = await createWorkspace(app, { plan });
  const res = await app.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: `${randomBytes(4).toString('hex')}.example.com` } });
  if (res.status !== 200) throw new Error(`create widget failed: ${res.status} ${res.text}`);
  const [channel] = await query(app, `select id from channels where type = 'widget' and routing_key = $1`, [res.body.id]);
  return { ...ws, widgetId: res.body.id, channelId: channel.id };
}

function startSession(body: Record<string, unknown>, address = someAddress()) {
  return app.request('POST', '/api/v1/visitor/sessions', { body, headers: { 'x-forwarded-for': address } });
}

async function visitor(s: Site, body: Record<string, unknown> = {}) {
  const res = await startSession({ widget_id: s.widgetId, ...body });
  if (res.status !== 200) throw new Error(`session failed: ${res.status} ${res.text}`);
  return res.body as { visitor_token: string; visitor_id: string; conversation_id: string | null; resumed: boolean };
}

function write(token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return app.request('POST', '/api/v1/visitor/messages', { body, headers: { authorization: `Bearer ${token}`, ...headers } });
}

async function writeOk(token: string, content: string) {
  const res = await write(token, { content });
  if (res.status !== 200) throw new Error(`visitor message failed: ${res.status} ${res.text}`);
  return res.body;
}

function read(token: string, query: Record<string, string> = {}) {
  return app.request('GET', '/api/v1/visitor/messages', { headers: { authorization: `Bearer ${token}` }, query });
}

type Received = { name: string; payload: any }[];

function openWidgetSocket(auth: object): Socket {
  const socket = connectClient(`${app.url}${WIDGET_NAMESPACE}`, { path: '/socket.io', transports: ['websocket'], auth, reconnection: false, forceNew: true });
  sockets.push(socket);
  return socket;
}

async function connectVisitor(token: string): Promise<{ socket: Socket; received: Received }> {
  const socket = openWidgetSocket({ visitor_token: token });
  const received: Received = [];
  socket.onAny((name: string, payload: unknown) => received.push({ name, payload }));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (error) => reject(error));
  });
  return { socket, received };
}

function refused(auth: object): Promise<Error & { data?: any }> {
  const socket = openWidgetSocket(auth);
  return new Promise((resolve, reject) => {
    socket.once('connect', () => reject(new Error('connected although it should have been refused')));
    socket.once('connect_error', (error) => resolve(error));
  });
}

function nextMessage(socket: Socket, predicate: (payload: any) => boolean): Promise<any> {
  return new Promise((resolve) => {
    const listener = (payload: any) => {
      if (!predicate(payload)) return;
      socket.off('message_created', listener);
      resolve(payload);
    };
    socket.on('message_created', listener);
  });
}

// ---------------------------------------------------------------- sessions

test('a session starts a visitor: a customer of the widget channel, no conversation yet', async (t) => {
  const s = await site();
  const res = await startSession({ widget_id: s.widgetId, name: '  Ada  ', email: ' Ada@Example.COM ' });
  t.is(res.status, 200, res.text);
  t.deepEqual(Object.keys(res.body).sort(), ['conversation_id', 'resumed', 'visitor_id', 'visitor_token']);
  t.is(res.body.conversation_id, null);
  t.false(res.body.resumed);
  t.regex(res.body.visitor_id, /^v_[A-Za-z0-9_-]{22}$/);
  const customers = await query(app, `select business_id, channel_id, name, email from customers where platform_user_id = $1`, [res.body.visitor_id]);
  t.deepEqual(customers, [{ business_id: s.businessId, channel_id: s.channelId, name: 'Ada', email: 'ada@example.com' }]);
});

test('a valid token resumes its visitor (and renews the token); name and e-mail update when given', async (t) => {
  const s = await site();
  const first = await visitor(s, { name: 'Grace' });
  const again = await startSession({ widget_id: s.widgetId, visitor_token: first.visitor_token, email: 'grace@example.com' });
  t.is(again.status, 200, again.text);
  t.true(again.body.resumed);
  t.is(again.body.visitor_id, first.visitor_id);
  t.is(typeof again.body.visitor_token, 'string');
  const rows = await query(app, `select name, email from customers where channel_id = $1`, [s.channelId]);
  t.deepEqual(rows, [{ name: 'Grace', email: 'grace@example.com' }], 'one customer, name kept, e-mail added');

  // With a conversation open, the session names it.
  const message = await writeOk(first.visitor_token, 'Hello?');
  const third = await startSession({ widget_id: s.widgetId, visitor_token: again.body.visitor_token });
  t.is(third.body.conversation_id, message.conversation_id);
});

test('a token of another widget, or a bad token, starts a new visitor instead of resuming', async (t) => {
  const a = await site();
  const b = await site();
  const ofA = await visitor(a);
  const onB = await startSession({ widget_id: b.widgetId, visitor_token: ofA.visitor_token });
  t.is(onB.status, 200, onB.text);
  t.false(onB.body.resumed);
  t.not(onB.body.visitor_id, ofA.visitor_id);
  const bad = await startSession({ widget_id: a.widgetId, visitor_token: 'not-a-token' });
  t.false(bad.body.resumed);
  t.not(bad.body.visitor_id, ofA.visitor_id);
});

test('sessions: 404 for an unknown widget and for a widget without an active channel', async (t) => {
  const unknown = await startSession({ widget_id: randomUUID() });
  t.is(unknown.status, 404);
  t.deepEqual(unknown.body, { detail: 'Widget not found' });

  const s = await site();
  await query(app, `update channels set is_active = false where id = $1`, [s.channelId]);
  const inactive = await startSession({ widget_id: s.widgetId });
  t.is(inactive.status, 404);
  t.deepEqual(inactive.body, { detail: 'Widget not found' });
  t.deepEqual(await query(app, `select id from customers where channel_id = $1`, [s.channelId]), [], 'no visitor was made');
});

test('sessions: 422 for a missing or malformed widget id and a bad e-mail', async (t) => {
  const missing = await startSession({});
  t.is(missing.status, 422);
  t.deepEqual(missing.body.detail, [{ loc: ['body', 'widget_id'], msg: 'Field required', type: 'missing' }]);
  const malformed = await startSession({ widget_id: 'abc' });
  t.is(malformed.status, 422);
  t.like(malformed.body.detail[0], { loc: ['body', 'widget_id'], type: 'uuid_parsing' });
  const s = await site();
  const email = await startSession({ widget_id: s.widgetId, email: 'nope' });
  t.is(email.status, 422);
  t.like(email.body.detail[0], { loc: ['body', 'email'], type: 'value_error' });
  const blank = await startSession({ widget_id: s.widgetId, email: '  ', name: '' });
  t.is(blank.status, 200, 'blank optional fields are ignored');
});

test('sessions: 429 past the new visitors an address may start; resuming is not limited', async (t) => {
  const s = await site();
  const address = someAddress();
  const first = await startSession({ widget_id: s.widgetId }, address);
  t.is(first.status, 200);
  const [window] = await query(app, `select count from rate_windows where key = $1`, [`session:${address}`]);
  t.is(window.count, 1, 'the new visitor was counted');
  await query(app, `update rate_windows set count = 30 where key = $1`, [`session:${address}`]);
  const refusedSession = await startSession({ widget_id: s.widgetId }, address);
  t.is(refusedSession.status, 429, refusedSession.text);
  t.is(typeof refusedSession.body.detail, 'string');
  t.true(Number(refusedSession.headers.get('retry-after')) >= 1);
  const resumed = await startSession({ widget_id: s.widgetId, visitor_token: first.body.visitor_token }, address);
  t.is(resumed.status, 200);
  t.true(resumed.body.resumed);
  // Once the window has passed, new visitors are welcome again.
  await query(app, `update rate_windows set window_start = now() - interval '61 seconds' where key = $1`, [`session:${address}`]);
  t.is((await startSession({ widget_id: s.widgetId }, address)).status, 200);
});

// ---------------------------------------------------------------- messages

test('a visitor message opens a widget conversation the agent inbox sees, with its events', async (t) => {
  const s = await site();
  const v = await visitor(s, { name: 'Linus' });
  const res = await write(v.visitor_token, { content: '  Where is my order?  ' });
  t.is(res.status, 200, res.text);
  const message = res.body;
  t.deepEqual(Object.keys(message).sort(), ['attachments', 'content', 'conversation_id', 'created_at', 'id', 'sender_type']);
  t.like(message, { sender_type: 'customer', content: 'Where is my order?', attachments: [] });
  t.regex(message.created_at, iso);

  const inbox = await app.request('GET', '/api/v1/conversations/', { token: s.token, query: { channel_type: 'widget' } });
  t.is(inbox.status, 200);
  t.is(inbox.body.length, 1);
  t.like(inbox.body[0], { id: message.conversation_id, status: 'open', channel_type: 'widget', channel_id: s.channelId, customer: { name: 'Linus' } });
  const conversation = await app.request('GET', `/api/v1/conversations/${message.conversation_id}`, { token: s.token });
  t.like(conversation.body.messages[0], { id: message.id, sender_type: 'customer', sender_id: null, delivery_status: null, content: 'Where is my order?' });

  const names = app.events.filter((e) => e.payload.conversation_id === message.conversation_id && !e.namespace).map((e) => e.name);
  t.true(names.includes('conversation_created') && names.includes('message_created'), names.join());
  const echo = app.events.find((e) => e.namespace === WIDGET_NAMESPACE && e.payload.id === message.id);
  t.deepEqual(echo?.payload, message, "the visitor's other tabs get their own message");

  // The second message threads into the same conversation.
  const second = await writeOk(v.visitor_token, 'Order 1234');
  t.is(second.conversation_id, message.conversation_id);
  const page = await read(v.visitor_token);
  t.deepEqual(
    page.body.map((m: any) => m.content),
    ['Where is my order?', 'Order 1234'],
  );
  // The process_inbound job the message was stored with finds it done: still two messages.
  await waitFor(
    async () => (await query(app, `select 1 from graphile_worker.jobs where task_identifier = 'process_inbound'`)).length === 0,
    20_000,
    'inbound jobs',
  );
  t.is((await query(app, `select id from messages where conversation_id = $1`, [message.conversation_id])).length, 2);
});

test('a repeated client_message_id returns the first message and stores no second one', async (t) => {
  const s = await site();
  const v = await visitor(s);
  const clientId = randomUUID();
  const first = await write(v.visitor_token, { content: 'Once', client_message_id: clientId });
  const again = await write(v.visitor_token, { content: 'Once', client_message_id: clientId });
  t.is(first.status, 200, first.text);
  t.is(again.status, 200, again.text);
  t.deepEqual(again.body, first.body);
  t.is((await query(app, `select id from messages where conversation_id = $1`, [first.body.conversation_id])).length, 1);
});

test('visitor messages are never refused for plan reasons and are not counted as sent messages', async (t) => {
  const s = await site('Free');
  await query(app, `insert into message_counters (business_id, month, count) values ($1, date_trunc('month', now() at time zone 'utc')::date, 250)`, [
    s.businessId,
  ]);
  const v = await visitor(s);
  const res = await write(v.visitor_token, { content: 'Still there?' });
  t.is(res.status, 200, res.text);
  const [counter] = await query(app, `select count from message_counters where business_id = $1`, [s.businessId]);
  t.is(counter.count, 250);
});

test('a resolved conversation reopens; a closed one makes the next message start a new conversation', async (t) => {
  const s = await site();
  const v = await visitor(s);
  const first = await writeOk(v.visitor_token, 'One');
  t.is((await app.request('PUT', `/api/v1/conversations/${first.conversation_id}/resolve`, { token: s.token })).status, 200);
  const second = await writeOk(v.visitor_token, 'Two');
  t.is(second.conversation_id, first.conversation_id);
  const [reopened] = await query(app, `select status from conversations where id = $1`, [first.conversation_id]);
  t.is(reopened.status, 'open');

  t.is((await app.request('PUT', `/api/v1/conversations/${first.conversation_id}/close`, { token: s.token })).status, 200);
  t.deepEqual((await read(v.visitor_token)).body, [], 'a closed conversation is no longer the current one');
  const session = await startSession({ widget_id: s.widgetId, visitor_token: v.visitor_token });
  t.is(session.body.conversation_id, null);
  const third = await writeOk(v.visitor_token, 'Three');
  t.not(third.conversation_id, first.conversation_id);
  // The old conversation stays readable by its visitor.
  const old = await read(v.visitor_token, { conversation_id: first.conversation_id });
  t.deepEqual(
    old.body.map((m: any) => m.content),
    ['One', 'Two'],
  );
});

test('messages: 422 for missing, blank or too long content, bad attachments and a bad client id', async (t) => {
  const s = await site();
  const v = await visitor(s);
  const cases: [Record<string, unknown>, (string | number)[], string][] = [
    [{}, ['body', 'content'], 'missing'],
    [{ content: '   ' }, ['body', 'content'], 'string_too_short'],
    [{ content: 'x'.repeat(10_001) }, ['body', 'content'], 'string_too_long'],
    [{ content: 'hi', attachments: [{ url: 'javascript:alert(1)' }] }, ['body', 'attachments', 0, 'url'], 'value_error'],
    [{ content: 'hi', attachments: Array.from({ length: 11 }, () => ({ url: 'https://example.com/a.png' })) }, ['body', 'attachments'], 'too_long'],
    [{ content: 'hi', client_message_id: 'abc' }, ['body', 'client_message_id'], 'uuid_parsing'],
  ];
  for (const [body, loc, type] of cases) {
    const res = await write(v.visitor_token, body);
    t.is(res.status, 422, JSON.stringify(body).slice(0, 80));
    t.like(res.body.detail[0], { loc, type });
  }
  const limit = await read(v.visitor_token, { limit: '0' });
  t.is(limit.status, 422);
  t.like(limit.body.detail[0], { loc: ['query', 'limit'] });
  const ok = await write(v.visitor_token, { content: 'See this', attachments: [{ url: 'https://example.com/a.png', filename: 'a.png' }] });
  t.is(ok.status, 200, ok.text);
  t.deepEqual(ok.body.attachments, [{ url: 'https://example.com/a.png', filename: 'a.png' }]);
});

test('messages: 429 past 20 a minute per visitor, exactly, even for a parallel burst; the window then passes', async (t) => {
  const s = await site();
  const v = await visitor(s);
  const other = await visitor(s);
  const burst = await Promise.all(Array.from({ length: 25 }, (_, i) => write(v.visitor_token, { content: `burst ${i}` })));
  const statuses = burst.map((r) => r.status).sort();
  t.deepEqual(statuses, [...Array(20).fill(200), ...Array(5).fill(429)]);
  const refusal = burst.find((r) => r.status === 429)!;
  t.is(typeof refusal.body.detail, 'string');
  t.true(Number(refusal.headers.get('retry-after')) >= 1);
  const conversationId = burst.find((r) => r.status === 200)!.body.conversation_id;
  t.is((await query(app, `select id from messages where conversation_id = $1`, [conversationId])).length, 20, 'refused messages left nothing behind');
  t.is((await write(other.visitor_token, { content: 'another visitor is not limited' })).status, 200);

  const [customer] = await query(app, `select id from customers where platform_user_id = $1`, [v.visitor_id]);
  await query(app, `update rate_windows set window_start = now() - interval '61 seconds' where key = $1`, [`message:${customer.id}`]);
  t.is((await write(v.visitor_token, { content: 'a minute later' })).status, 200);
});

test("401: no header, a bad or expired token, an access token, another purpose's token, a visitor that is gone", async (t) => {
  const s = await site();
  const v = await visitor(s);
  const none = await app.request('POST', '/api/v1/visitor/messages', { body: { content: 'hi' } });
  t.is(none.status, 401);
  t.deepEqual(none.body, { detail: 'Not authenticated' });
  t.is(none.headers.get('www-authenticate'), 'Bearer');
  t.is((await app.request('GET', '/api/v1/visitor/messages')).status, 401);

  const key = app.deps.config.jwtSecret;
  const [customer] = await query(app, `select id from customers where platform_user_id = $1`, [v.visitor_id]);
  const claims = { widget_id: s.widgetId, visitor_id: v.visitor_id };
  const bad = [
    'garbage',
    await issueAccessToken(key, s.userId, 3600, 0),
    await issuePurposeToken(key, 'verify-email', customer.id, 3600, claims),
    await issuePurposeToken(key, 'visitor', customer.id, -10, claims),
    await issuePurposeToken(new TextEncoder().encode('x'.repeat(48)), 'visitor', customer.id, 3600, claims),
    await issueVisitorToken(key, { customerId: customer.id, widgetId: s.widgetId, visitorId: 'v_someone_else' }),
  ];
  for (const token of bad) {
    for (const res of [await write(token, { content: 'hi' }), await read(token)]) {
      t.is(res.status, 401, token.slice(0, 30));
      t.deepEqual(res.body, { detail: 'Could not validate credentials' });
    }
  }
  const basic = await app.request('GET', '/api/v1/visitor/messages', { headers: { authorization: `Basic ${v.visitor_token}` } });
  t.is(basic.status, 401);

  // The widget channel deleted: the visitor no longer exists on it.
  const gone = await site();
  const goneVisitor = await visitor(gone);
  await query(app, `delete from channels where id = $1`, [gone.channelId]);
  t.is((await write(goneVisitor.visitor_token, { content: 'hi' })).status, 401);
});

test('a visitor token is not an access token', async (t) => {
  const s = await site();
  const v = await visitor(s);
  for (const path of ['/api/v1/auth/me', '/api/v1/conversations/', '/api/v1/customers']) {
    const res = await app.request('GET', path, { token: v.visitor_token });
    t.is(res.status, 401, path);
    t.deepEqual(res.body, { detail: 'Could not validate credentials' });
  }
});

test("messages: 404 while the widget's channel is inactive", async (t) => {
  const s = await site();
  const v = await visitor(s);
  await query(app, `update channels set is_active = false where id = $1`, [s.channelId]);
  const res = await write(v.visitor_token, { content: 'hi' });
  t.is(res.status, 404);
  t.deepEqual(res.body, { detail: 'Widget not found' });
  t.is((await read(v.visitor_token)).status, 404);
  const socketError = await refused({ visitor_token: v.visitor_token });
  t.is(socketError.message, 'Widget not found');
});

test("reading: oldest first, the agents' replies included, system messages and internal fields never shown", async (t) => {
  const s = await site();
  const v = await visitor(s);
  const mine = await writeOk(v.visitor_token, 'Question');
  const reply = await app.request('POST', `/api/v1/conversations/${mine.conversation_id}/messages`, { token: s.token, body: { content: 'Answer' } });
  t.is(reply.status, 200, reply.text);
  await query(app, `insert into messages (business_id, conversation_id, sender_type, content) values ($1, $2, 'system', 'internal note')`, [
    s.businessId,
    mine.conversation_id,
  ]);
  const res = await read(v.visitor_token);
  t.is(res.status, 200);
  t.deepEqual(res.body, [
    mine,
    { id: reply.body.id, conversation_id: mine.conversation_id, sender_type: 'agent', content: 'Answer', attachments: [], created_at: reply.body.created_at },
  ]);
  const latest = await read(v.visitor_token, { limit: '1' });
  t.deepEqual(
    latest.body.map((m: any) => m.content),
    ['Answer'],
    'limit keeps the newest',
  );
});

test("tenancy: a visitor of widget A can read neither widget B's conversation nor another visitor's", async (t) => {
  const a = await site();
  const b = await site();
  const visitorA = await visitor(a);
  const visitorB = await visitor(b);
  const neighbour = await visitor(a);
  const messageB = await writeOk(visitorB.visitor_token, 'B here');
  const messageNeighbour = await writeOk(neighbour.visitor_token, 'neighbour here');
  await writeOk(visitorA.visitor_token, 'A here');
  for (const conversationId of [messageB.conversation_id, messageNeighbour.conversation_id, randomUUID()]) {
    const res = await read(visitorA.visitor_token, { conversation_id: conversationId });
    t.is(res.status, 404);
    t.deepEqual(res.body, { detail: 'Conversation not found' });
  }
  t.deepEqual(
    (await read(visitorA.visitor_token)).body.map((m: any) => m.content),
    ['A here'],
  );
  // Business A's inbox does not see B's conversation.
  const inboxA = await app.request('GET', `/api/v1/conversations/${messageB.conversation_id}`, { token: a.token });
  t.is(inboxA.status, 404);
});

// ---------------------------------------------------------------- the /widget socket

test("an agent's reply reaches the visitor's socket, in the visitor message shape, once delivered", async (t) => {
  const s = await site();
  const v = await visitor(s);
  const mine = await writeOk(v.visitor_token, 'Anyone there?');
  const { socket } = await connectVisitor(v.visitor_token);
  const got = nextMessage(socket, (m) => m.sender_type === 'agent');
  const reply = await app.request('POST', `/api/v1/conversations/${mine.conversation_id}/messages`, {
    token: s.token,
    body: { content: 'Yes, how can I help?' },
  });
  t.is(reply.status, 200, reply.text);
  t.deepEqual(await got, {
    id: reply.body.id,
    conversation_id: mine.conversation_id,
    sender_type: 'agent',
    content: 'Yes, how can I help?',
    attachments: [],
    created_at: reply.body.created_at,
  });
  const [row] = await query(app, `select delivery_status from messages where id = $1`, [reply.body.id]);
  t.is(row.delivery_status, 'sent');
});

test("the visitor's own messages reach their other sockets; another visitor's replies never do", async (t) => {
  const a = await site();
  const b = await site();
  const visitorA = await visitor(a);
  const visitorB = await visitor(b);
  const { socket, received } = await connectVisitor(visitorA.visitor_token);
  const echo = nextMessage(socket, () => true);
  const mine = await writeOk(visitorA.visitor_token, 'from my other tab');
  t.deepEqual(await echo, mine);

  const messageB = await writeOk(visitorB.visitor_token, 'B');
  const replyB = await app.request('POST', `/api/v1/conversations/${messageB.conversation_id}/messages`, { token: b.token, body: { content: 'for B only' } });
  const replyA = await app.request('POST', `/api/v1/conversations/${mine.conversation_id}/messages`, { token: a.token, body: { content: 'for A' } });
  // Published in this order on one bus: once A's marker arrives, B's would have arrived before it.
  const marker = nextMessage(socket, (m) => m.id === replyA.body.id);
  app.deps.events.publish((await loadVisitorMessageEvent(app.deps.db, replyB.body.id))!);
  app.deps.events.publish((await loadVisitorMessageEvent(app.deps.db, replyA.body.id))!);
  await marker;
  t.false(received.some((e) => e.payload?.id === replyB.body.id || e.payload?.id === messageB.id));
});

test('the /widget socket refuses a missing or bad token, an access token and a visitor that is gone', async (t) => {
  const s = await site();
  const v = await visitor(s);
  const missing = await refused({});
  t.is(missing.message, 'Not authenticated');
  t.deepEqual(missing.data, { detail: 'Not authenticated' });
  t.is((await refused({ visitor_token: 'garbage' })).message, 'Could not validate credentials');
  t.is((await refused({ visitor_token: await issueAccessToken(app.deps.config.jwtSecret, s.userId, 3600, 0) })).message, 'Could not validate credentials');
  t.is((await refused({ token: v.visitor_token })).message, 'Not authenticated', "the dashboards' auth key is not read");
  await query(app, `delete from customers where platform_user_id = $1`, [v.visitor_id]);
  t.is((await refused({ visitor_token: v.visitor_token })).message, 'Could not validate credentials');
});

test('a dashboard on the default namespace never receives the /widget payloads', async (t) => {
  const s = await site();
  const v = await visitor(s);
  const dashboard = connectClient(app.url, { path: '/socket.io', transports: ['websocket'], auth: { token: s.token }, reconnection: false, forceNew: true });
  sockets.push(dashboard);
  const received: Received = [];
  dashboard.onAny((name: string, payload: unknown) => received.push({ name, payload }));
  await new Promise<void>((resolve, reject) => {
    dashboard.once('connect', () => resolve());
    dashboard.once('connect_error', reject);
  });
  const inboxEvent = new Promise<any>((resolve) => dashboard.once('message_created', resolve));
  const mine = await writeOk(v.visitor_token, 'hello inbox');
  t.like(await inboxEvent, { message_id: mine.id, conversation_id: mine.conversation_id, sender_type: 'customer' });
  const marker = new Promise((resolve) => dashboard.once('conversation_updated', resolve));
  app.deps.events.publish({ name: 'conversation_updated', rooms: [`business:${s.businessId}`], payload: { marker: true } });
  await marker;
  t.false(
    received.some((e) => e.payload && 'content' in e.payload),
    "no message bodies on the dashboards' namespace",
  );
});

test("with Redis: a worker's /widget event reaches a visitor connected to an API node", async (t) => {
  const key = `parley-test:${randomBytes(6).toString('hex')}`;
  const redisApp = await startTestApp({ redis: { key } });
  const workerBus: EventBus = createRedisEventBus({ url: testRedisUrl, key, logger: redisApp.deps.logger });
  try {
    const ws = await createWorkspace(redisApp);
    const created = await redisApp.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: 'redis.example.com' } });
    const session = await redisApp.request('POST', '/api/v1/visitor/sessions', { body: { widget_id: created.body.id } });
    const sent = await redisApp.request('POST', '/api/v1/visitor/messages', {
      body: { content: 'via redis' },
      headers: { authorization: `Bearer ${session.body.visitor_token}` },
    });
    t.is(sent.status, 200, sent.text);
    const socket = connectClient(`${redisApp.url}/widget`, {
      path: '/socket.io',
      transports: ['websocket'],
      auth: { visitor_token: session.body.visitor_token },
      reconnection: false,
      forceNew: true,
    });
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    const got = new Promise<any>((resolve) => socket.once('message_created', resolve));
    workerBus.publish((await loadVisitorMessageEvent(redisApp.deps.db, sent.body.id))!);
    t.deepEqual(await got, sent.body);
  } finally {
    await workerBus.close();
    await redisApp.close();
  }
});

// ---------------------------------------------------------------- CORS, widget.js, OpenAPI

test('CORS: the visitor API answers any origin, preflights included; the agent API does not', async (t) => {
  const s = await site();
  const origin = 'https://shop.example.com';
  const session = await app.request('POST', '/api/v1/visitor/sessions', {
    body: { widget_id: s.widgetId },
    headers: { origin, 'x-forwarded-for': someAddress() },
  });
  t.is(session.headers.get('access-control-allow-origin'), '*');
  const token = session.body.visitor_token;
  const post = await write(token, { content: 'cors' }, { origin });
  t.is(post.headers.get('access-control-allow-origin'), '*');
  const get = await app.request('GET', '/api/v1/visitor/messages', { headers: { origin, authorization: `Bearer ${token}` } });
  t.is(get.headers.get('access-control-allow-origin'), '*');
  const refusal = await app.request('GET', '/api/v1/visitor/messages', { headers: { origin } });
  t.is(refusal.status, 401);
  t.is(refusal.headers.get('access-control-allow-origin'), '*', 'errors are readable by the widget too');
  for (const [path, method] of [
    ['/api/v1/visitor/messages', 'POST'],
    ['/api/v1/visitor/messages', 'GET'],
    ['/api/v1/visitor/sessions', 'POST'],
  ]) {
    const preflight = await app.request('OPTIONS', path, {
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type' },
    });
    t.is(preflight.status, 204, `${method} ${path}`);
    t.is(preflight.headers.get('access-control-allow-origin'), '*');
    t.regex(preflight.headers.get('access-control-allow-headers') ?? '', /authorization/i);
  }
  const agentApi = await app.request('GET', '/api/v1/conversations/', { token: s.token, headers: { origin } });
  t.is(agentApi.headers.get('access-control-allow-origin'), null);
});

test('GET /widget.js: the bundled widget as JavaScript, cached a day and revalidated by ETag', async (t) => {
  const res = await app.request('GET', '/widget.js', { headers: { origin: 'https://shop.example.com' } });
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'text/javascript; charset=utf-8');
  t.is(res.headers.get('cache-control'), 'public, max-age=86400');
  t.is(res.headers.get('x-content-type-options'), 'nosniff');
  t.is(res.headers.get('access-control-allow-origin'), '*');
  const etag = res.headers.get('etag');
  t.regex(etag ?? '', /^"[A-Za-z0-9_-]+"$/);
  t.true(res.text.length > 10_000, 'socket.io-client is bundled in');
  t.false(/^\s*(import|export)\s/m.test(res.text), 'an IIFE, not a module');
  t.true(res.text.includes('/api/v1/visitor/sessions'));
  const again = await app.request('GET', '/widget.js', { headers: { 'if-none-match': etag! } });
  t.is(again.status, 304);
  t.is(again.text, '');
});

test('the OpenAPI document describes the visitor API and widget.js', async (t) => {
  const res = await app.request('GET', '/api/v1/openapi.json');
  const paths = res.body.paths;
  t.truthy(paths['/api/v1/visitor/sessions'].post);
  t.truthy(paths['/api/v1/visitor/messages'].post.responses['429']);
  t.truthy(paths['/api/v1/visitor/messages'].get.responses['401']);
  t.truthy(paths['/widget.js'].get);
  t.regex(paths['/api/v1/visitor/messages'].post.description, /20 messages per visitor per minute/);
});

test("origin: a page on another site gets 403 and makes no visitor; the widget's domain, its subdomains, localhost (not production) and no Origin are allowed", async (t) => {
  const s = await site();
  const [widget] = await query(app, 'select domain from widgets where id = $1', [s.widgetId]);
  const from = (origin?: string) =>
    app.request('POST', '/api/v1/visitor/sessions', {
      body: { widget_id: s.widgetId },
      headers: { 'x-forwarded-for': someAddress(), ...(origin ? { origin } : {}) },
    });
  const customers = async () => (await query(app, 'select count(*)::int as n from customers where channel_id = $1', [s.channelId]))[0].n;

  for (const origin of ['https://evil.example.org', `https://${widget.domain}.evil.example.org`, 'null']) {
    const refused = await from(origin);
    t.is(refused.status, 403, origin);
    t.deepEqual(refused.body, { detail: 'This widget may not be used on this site' }, origin);
  }
  t.is(await customers(), 0, 'nothing was created');
  // A visitor token from the right site does not let another site resume it either.
  const own = await from(`https://${widget.domain}`);
  t.is(own.status, 200, own.text);
  const resumeElsewhere = await app.request('POST', '/api/v1/visitor/sessions', {
    body: { widget_id: s.widgetId, visitor_token: own.body.visitor_token },
    headers: { origin: 'https://evil.example.org' },
  });
  t.is(resumeElsewhere.status, 403);

  for (const origin of [`https://help.${widget.domain}`, `http://${widget.domain}:8080`, 'http://localhost:5173', 'http://127.0.0.1:4000', undefined]) {
    t.is((await from(origin)).status, 200, String(origin));
  }
  t.is(await customers(), 6);
});

test('origin: a widget whose domain is `*` may be embedded anywhere', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Free' });
  const created = await app.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: '*' } });
  t.is(created.status, 200, created.text);
  const res = await app.request('POST', '/api/v1/visitor/sessions', {
    body: { widget_id: created.body.id },
    headers: { 'x-forwarded-for': someAddress(), origin: 'https://any-site.example.net' },
  });
  t.is(res.status, 200, res.text);
});

test("socket: a visitor's socket is closed when its visitor token expires", async (t) => {
  const s = await site();
  const v = await visitor(s);
  const [customer] = await query(app, `select id from customers where platform_user_id = $1`, [v.visitor_id]);
  const shortLived = await issuePurposeToken(app.deps.config.jwtSecret, 'visitor', customer.id, 3, { widget_id: s.widgetId, visitor_id: v.visitor_id });
  const { socket } = await connectVisitor(shortLived);
  const reason = await new Promise<string>((resolve) => socket.once('disconnect', (why) => resolve(why)));
  t.is(reason, 'io server disconnect');
  // A token that is still valid keeps its socket.
  const lasting = await connectVisitor(v.visitor_token);
  t.true(lasting.socket.connected);
});
