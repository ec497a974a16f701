/**
 * Typing and presence (api/realtime-signals.ts) with real socket.io clients, across two API
 * nodes sharing Redis and in one process without it: a visitor's typing reaches the dashboards
 * of their conversation, an agent's reaches the conversation's visitor (a note's never), a
 * socket cannot speak for another business's conversation, and `conversation_presence` follows
 * joins, leaves and disconnects.
 *
 * No timings: "never receives" is checked with a later event from the same node (one node's
 * emits reach every socket in order), or by the acknowledgement saying nothing was relayed.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { io as connectClient, type Socket } from 'socket.io-client';
import { startWebServer, type WebServer } from '../api/server.ts';
import type { Deps } from '../core/deps.ts';
import type { EventBus } from '../core/events/bus.ts';
import { createRedisEventBus } from '../core/adapters/redis-events.ts';
import { startTestApp, testRedisUrl, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, type Account, type Workspace } from './helpers/fixtures.ts';

const key = `parley-test:${randomBytes(6).toString('hex')}`;

let app: TestApp; // node A
let nodeB: WebServer; // node B: same database and Redis
let busB: EventBus;
let local: TestApp; // one process, no Redis
const sockets: Socket[] = [];

test.before(async () => {
  // Repeats "within the relay interval" must be within it however slow the machine: a minute.
  app = await startTestApp({ redis: { key }, env: { TYPING_RELAY_MIN_MS: '60000' } });
  busB = createRedisEventBus({ url: testRedisUrl, key, logger: app.deps.logger });
  const depsB: Deps = { ...app.deps, events: busB };
  nodeB = await startWebServer(depsB, 0, { realtime: { redisKey: key } });
  await nodeB.realtime.ready;
  local = await startTestApp({ env: { TYPING_RELAY_MIN_MS: '60000' } });
});

test.after.always(async () => {
  for (const socket of sockets) socket.close();
  await nodeB?.close();
  await busB?.close();
  await app?.close();
  await local?.close();
});

const urlB = () => `http://127.0.0.1:${nodeB.port}`;

type Client = { socket: Socket; received: { name: string; payload: any }[] };

async function open(url: string, auth: object): Promise<Client> {
  const socket = connectClient(url, { path: '/socket.io', transports: ['websocket'], auth, reconnection: false, forceNew: true });
  sockets.push(socket);
  const received: Client['received'] = [];
  socket.onAny((name: string, payload: unknown) => received.push({ name, payload }));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (error) => reject(error));
  });
  return { socket, received };
}

const dashboard = (url: string, token: string) => open(url, { token });
const widgetSocket = (url: string, visitorToken: string) => open(`${url}/widget`, { visitor_token: visitorToken });

/** The next `name` event whose payload matches; listen before acting. */
function next(client: Client, name: string, match: (payload: any) => boolean = () => true): Promise<any> {
  return new Promise((resolve) => {
    const listener = (payload: unknown) => {
      if (!match(payload)) return;
      client.socket.off(name, listener);
      resolve(payload);
    };
    client.socket.on(name, listener);
  });
}

/** Resolves once what `client` received satisfies `check` (already, or with a later event). */
function until(client: Client, check: (received: Client['received']) => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (check(client.received)) return resolve();
    const listener = () => {
      if (!check(client.received)) return;
      client.socket.offAny(listener);
      resolve();
    };
    // Registered after the recorder, so it runs after it.
    client.socket.onAny(listener);
  });
}

function ask(client: Client, name: string, payload: unknown): Promise<any> {
  return new Promise((resolve) => client.socket.emit(name, payload, (answer: unknown) => resolve(answer)));
}

const typingOf = (client: Client) => client.received.filter((e) => e.name === 'typing').map((e) => e.payload);
const presenceOf = (client: Client, conversationId: string) =>
  client.received
    .filter((e) => e.name === 'conversation_presence' && e.payload.conversation_id === conversationId)
    .map((e) => e.payload.viewers.map((v: any) => v.name));

/** A widget of the business and a visitor who wrote in: their conversation and token. */
async function visitorOf(
  target: TestApp,
  ws: Workspace,
  name = 'Marta Visitor',
): Promise<{ conversationId: string; visitorToken: string; customerId: string }> {
  const widget = await target.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: `shop-${randomBytes(4).toString('hex')}.example` } });
  if (widget.status !== 200) throw new Error(`widget: ${widget.status} ${widget.text}`);
  const session = await target.request('POST', '/api/v1/visitor/sessions', { body: { widget_id: widget.body.id, name } });
  const token = session.body.visitor_token as string;
  const sent = await target.request('POST', '/api/v1/visitor/messages', { headers: { authorization: `Bearer ${token}` }, body: { content: 'Hello?' } });
  if (sent.status !== 200) throw new Error(`visitor message: ${sent.status} ${sent.text}`);
  const [row] = await target.sql('select customer_id from conversations where id = $1', [sent.body.conversation_id]);
  return { conversationId: sent.body.conversation_id, visitorToken: token, customerId: row.customer_id };
}

/** A second visitor of the same widget as `of` (another conversation). */
async function anotherVisitor(target: TestApp, ws: Workspace, conversationId: string) {
  const [row] = await target.sql('select ch.routing_key from conversations c join channels ch on ch.id = c.channel_id where c.id = $1', [conversationId]);
  const session = await target.request('POST', '/api/v1/visitor/sessions', { body: { widget_id: row.routing_key, name: 'Second Visitor' } });
  const token = session.body.visitor_token as string;
  const sent = await target.request('POST', '/api/v1/visitor/messages', { headers: { authorization: `Bearer ${token}` }, body: { content: 'Me too' } });
  return { conversationId: sent.body.conversation_id as string, visitorToken: token };
}

async function memberIdOf(target: TestApp, account: Account): Promise<string> {
  const [row] = await target.sql('select id from team_members where user_id = $1', [account.userId]);
  return row.id;
}

test("two nodes: a visitor's typing reaches the dashboards of their conversation, and no other business's", async (t) => {
  const x = await createWorkspace(app, { name: 'Xena Owner' });
  const y = await createWorkspace(app, { name: 'Yann Owner' });
  const vx = await visitorOf(app, x);
  const vy = await visitorOf(app, y);

  const dashX = await dashboard(urlB(), x.token);
  const dashXLocal = await dashboard(app.url, x.token);
  const dashY = await dashboard(urlB(), y.token);
  t.deepEqual(await ask(dashX, 'join_conversation', { conversation_id: vx.conversationId }), { ok: true });
  t.deepEqual(await ask(dashXLocal, 'join_conversation', { conversation_id: vx.conversationId }), { ok: true });
  t.deepEqual(await ask(dashY, 'join_conversation', { conversation_id: vy.conversationId }), { ok: true });
  const visitorX = await widgetSocket(app.url, vx.visitorToken);
  const visitorY = await widgetSocket(app.url, vy.visitorToken);

  const onB = next(dashX, 'typing');
  const onA = next(dashXLocal, 'typing');
  t.deepEqual(await ask(visitorX, 'typing', { typing: true }), { ok: true });
  const expected = { conversation_id: vx.conversationId, business_id: x.businessId, sender_type: 'customer', customer_id: vx.customerId, typing: true };
  t.like(await onB, expected);
  t.like(await onA, expected);
  t.regex((await onB).at, /^\d{4}-\d\d-\d\dT/);

  // Y's visitor types (from the same node): Y's dashboard gets it, and only it.
  const yGets = next(dashY, 'typing');
  t.deepEqual(await ask(visitorY, 'typing', { typing: true }), { ok: true });
  t.like(await yGets, { conversation_id: vy.conversationId, business_id: y.businessId, typing: true });
  const stop = next(dashX, 'typing', (p) => p.typing === false);
  t.deepEqual(await ask(visitorX, 'typing', { typing: false }), { ok: true });
  t.like(await stop, { conversation_id: vx.conversationId, typing: false });

  t.deepEqual(
    typingOf(dashY).map((p) => p.conversation_id),
    [vy.conversationId],
  );
  t.deepEqual(
    typingOf(dashX).map((p) => [p.conversation_id, p.typing]),
    [
      [vx.conversationId, true],
      [vx.conversationId, false],
    ],
  );
  t.deepEqual(typingOf(visitorX), [], 'the visitor hears nothing of their own typing');
  t.deepEqual(typingOf(visitorY), []);
  t.false(
    app.events.some((e) => e.name === 'typing'),
    'never on the event bus (no webhook, no worker)',
  );
});

test("two nodes: an agent's typing reaches that conversation's visitor and no other; a note's never does", async (t) => {
  const ws = await createWorkspace(app, { name: 'Olive Owner' });
  const ana = await addMember(app, ws.businessId, 'agent', { name: 'Ana Agent' });
  const v1 = await visitorOf(app, ws);
  const v2 = await anotherVisitor(app, ws, v1.conversationId);
  t.not(v2.conversationId, v1.conversationId);

  const agent = await dashboard(app.url, ana.token);
  const colleague = await dashboard(urlB(), ws.token);
  for (const c of [v1.conversationId, v2.conversationId]) t.deepEqual(await ask(agent, 'join_conversation', { conversation_id: c }), { ok: true });
  t.deepEqual(await ask(colleague, 'join_conversation', { conversation_id: v1.conversationId }), { ok: true });
  const visitor1 = await widgetSocket(urlB(), v1.visitorToken);
  const visitor2 = await widgetSocket(urlB(), v2.visitorToken);

  const typingIn = (conversationId: string, typing: boolean, isPrivate?: boolean) =>
    ask(agent, 'typing', { conversation_id: conversationId, typing, ...(isPrivate === undefined ? {} : { private: isPrivate }) });

  const first = next(visitor1, 'typing');
  t.deepEqual(await typingIn(v1.conversationId, true), { ok: true });
  t.deepEqual(await first, { conversation_id: v1.conversationId, sender_type: 'agent', typing: true }, 'no name, no ids of the team');

  // Switching to a note: the visitor's indicator goes; the note's typing itself never reaches them.
  const switched = next(visitor1, 'typing', (p) => p.typing === false);
  t.deepEqual(await typingIn(v1.conversationId, true, true), { ok: true });
  await switched;
  t.deepEqual(await typingIn(v1.conversationId, true, true), { ok: true }); // within the relay interval: dropped
  t.deepEqual(await typingIn(v1.conversationId, false), { ok: true });
  const again = next(visitor1, 'typing', (p) => p.typing === true);
  t.deepEqual(await typingIn(v1.conversationId, true, false), { ok: true });
  await again;
  t.deepEqual(
    typingOf(visitor1).map((p) => p.typing),
    [true, false, true],
  );

  // The other visitor got nothing of conversation 1 (its own conversation's typing comes after all that).
  const second = next(visitor2, 'typing');
  t.deepEqual(await typingIn(v2.conversationId, true), { ok: true });
  t.deepEqual(await second, { conversation_id: v2.conversationId, sender_type: 'agent', typing: true });
  t.deepEqual(typingOf(visitor2).length, 1);

  // The colleague (on the other node) sees all of conversation 1, with who and whether it is a note.
  await until(colleague, () => typingOf(colleague).length >= 4);
  const member = await memberIdOf(app, ana);
  t.deepEqual(
    typingOf(colleague).map(({ at, ...p }) => p),
    [
      [true, false],
      [true, true],
      [false, true],
      [true, false],
    ].map(([typing, isPrivate]) => ({
      conversation_id: v1.conversationId,
      business_id: ws.businessId,
      sender_type: 'agent',
      user_id: ana.userId,
      member_id: member,
      name: 'Ana Agent',
      typing,
      private: isPrivate,
    })),
  );
  t.deepEqual(typingOf(agent), [], 'the typing socket does not hear itself');
});

test("a socket cannot send typing for another business's conversation: refused, nothing relayed", async (t) => {
  const x = await createWorkspace(app, { name: 'Xavier' });
  const y = await createWorkspace(app, { name: 'Yolanda' });
  const vx = await visitorOf(app, x);
  const dashX = await dashboard(urlB(), x.token);
  t.deepEqual(await ask(dashX, 'join_conversation', { conversation_id: vx.conversationId }), { ok: true });
  const visitorX = await widgetSocket(urlB(), vx.visitorToken);
  const intruder = await dashboard(app.url, y.token);

  t.deepEqual(await ask(intruder, 'typing', { conversation_id: vx.conversationId, typing: true }), { ok: false, detail: 'Join the conversation first' });
  t.deepEqual(await ask(intruder, 'join_conversation', { conversation_id: vx.conversationId }), { ok: false, detail: 'Conversation not found' });
  t.deepEqual(await ask(intruder, 'typing', { conversation_id: vx.conversationId, typing: true }), { ok: false, detail: 'Join the conversation first' });
  t.deepEqual(await ask(intruder, 'typing', { conversation_id: 'nope', typing: true }), {
    ok: false,
    detail: 'conversation_id must be a UUID and typing a boolean',
  });
  t.deepEqual(await ask(intruder, 'typing', { conversation_id: vx.conversationId, typing: 'yes' }), {
    ok: false,
    detail: 'conversation_id must be a UUID and typing a boolean',
  });
  t.deepEqual(await ask(visitorX, 'typing', { typing: 'yes' }), { ok: false, detail: 'typing must be a boolean' });

  // X's own agent types from the intruder's node: that is all X's visitor and dashboard hear.
  const owner = await dashboard(app.url, x.token);
  t.deepEqual(await ask(owner, 'join_conversation', { conversation_id: vx.conversationId }), { ok: true });
  const toVisitor = next(visitorX, 'typing');
  const toDashboard = next(dashX, 'typing');
  t.deepEqual(await ask(owner, 'typing', { conversation_id: vx.conversationId, typing: true }), { ok: true });
  await Promise.all([toVisitor, toDashboard]);
  t.is(typingOf(visitorX).length, 1);
  t.deepEqual(
    typingOf(dashX).map((p) => p.user_id),
    [x.userId],
  );
  t.deepEqual(intruder.received, [], 'the intruder hears nothing either');
});

test('two nodes: presence follows join, leave and disconnect, once per person, only in the business', async (t) => {
  const ws = await createWorkspace(app, { name: 'Olga Owner' });
  const ana = await addMember(app, ws.businessId, 'agent', { name: 'Ana Agent' });
  const bruno = await addMember(app, ws.businessId, 'admin', { name: 'Bruno Admin' });
  const y = await createWorkspace(app, { name: 'Yuri Other' });
  const { conversationId } = await visitorOf(app, ws);
  const yours = await visitorOf(app, y);
  const viewers = (names: string[]) => (p: any) =>
    p.conversation_id === conversationId && JSON.stringify(p.viewers.map((v: any) => v.name)) === JSON.stringify(names);

  const anaTab = await dashboard(app.url, ana.token);
  const brunoTab = await dashboard(urlB(), bruno.token);
  const yuri = await dashboard(app.url, y.token);
  t.deepEqual(await ask(yuri, 'join_conversation', { conversation_id: yours.conversationId }), { ok: true });

  let seen = next(anaTab, 'conversation_presence', viewers(['Ana Agent']));
  t.deepEqual(await ask(anaTab, 'join_conversation', { conversation_id: conversationId }), { ok: true });
  const alone = await seen;
  t.like(alone, { business_id: ws.businessId });
  t.deepEqual(alone.viewers, [{ user_id: ana.userId, member_id: await memberIdOf(app, ana), name: 'Ana Agent' }]);

  seen = next(anaTab, 'conversation_presence', viewers(['Ana Agent', 'Bruno Admin']));
  const brunoSees = next(brunoTab, 'conversation_presence', viewers(['Ana Agent', 'Bruno Admin']));
  t.deepEqual(await ask(brunoTab, 'join_conversation', { conversation_id: conversationId }), { ok: true });
  await Promise.all([seen, brunoSees]);

  // Ana's second tab: still one Ana.
  const anaSecond = await dashboard(urlB(), ana.token);
  seen = next(anaSecond, 'conversation_presence', viewers(['Ana Agent', 'Bruno Admin']));
  t.deepEqual(await ask(anaSecond, 'join_conversation', { conversation_id: conversationId }), { ok: true });
  await seen;

  // Bruno leaves, comes back, types, and closes his tab: Ana hears each, and his typing stop.
  seen = next(anaTab, 'conversation_presence', viewers(['Ana Agent']));
  t.deepEqual(await ask(brunoTab, 'leave_conversation', { conversation_id: conversationId }), { ok: true });
  await seen;
  seen = next(anaTab, 'conversation_presence', viewers(['Ana Agent', 'Bruno Admin']));
  t.deepEqual(await ask(brunoTab, 'join_conversation', { conversation_id: conversationId }), { ok: true });
  await seen;
  const typingStarts = next(anaTab, 'typing', (p) => p.typing === true);
  t.deepEqual(await ask(brunoTab, 'typing', { conversation_id: conversationId, typing: true }), { ok: true });
  t.like(await typingStarts, { user_id: bruno.userId, name: 'Bruno Admin' });
  const typingStops = next(anaTab, 'typing', (p) => p.typing === false);
  seen = next(anaTab, 'conversation_presence', viewers(['Ana Agent']));
  brunoTab.socket.close();
  t.like(await typingStops, { user_id: bruno.userId, conversation_id: conversationId });
  await seen;

  // Ana's second tab goes: Ana still views it in her first one.
  seen = next(anaTab, 'conversation_presence', (p) => p.conversation_id === conversationId);
  anaSecond.socket.close();
  t.deepEqual(
    (await seen).viewers.map((v: any) => v.name),
    ['Ana Agent'],
  );

  // Another business never hears of it: Yuri's presence announcements are all of his own conversation.
  t.deepEqual(
    yuri.received.map((e) => [e.name, e.payload.conversation_id]),
    [['conversation_presence', yours.conversationId]],
  );
  t.deepEqual(presenceOf(yuri, yours.conversationId), [['Yuri Other']]);
});

test('one process without Redis: typing both ways and presence', async (t) => {
  const ws = await createWorkspace(local, { name: 'Lena Local' });
  const v = await visitorOf(local, ws);
  const dash = await dashboard(local.url, ws.token);
  const presence = next(dash, 'conversation_presence');
  t.deepEqual(await ask(dash, 'join_conversation', { conversation_id: v.conversationId }), { ok: true });
  t.deepEqual(
    (await presence).viewers.map((p: any) => p.name),
    ['Lena Local'],
  );
  const visitor = await widgetSocket(local.url, v.visitorToken);

  const heard = next(dash, 'typing');
  t.deepEqual(await ask(visitor, 'typing', { typing: true }), { ok: true });
  t.like(await heard, { sender_type: 'customer', conversation_id: v.conversationId, typing: true });
  // Repeats within the relay interval are dropped; the stop goes through.
  t.deepEqual(await ask(visitor, 'typing', { typing: true }), { ok: true });
  const stopped = next(dash, 'typing', (p) => p.typing === false);
  t.deepEqual(await ask(visitor, 'typing', { typing: false }), { ok: true });
  await stopped;
  t.deepEqual(
    typingOf(dash).map((p) => p.typing),
    [true, false],
  );

  const toVisitor = next(visitor, 'typing');
  t.deepEqual(await ask(dash, 'typing', { conversation_id: v.conversationId, typing: true }), { ok: true });
  t.deepEqual(await toVisitor, { conversation_id: v.conversationId, sender_type: 'agent', typing: true });
  // Disconnecting while typing sends the stop.
  const gone = next(visitor, 'typing', (p) => p.typing === false);
  dash.socket.close();
  await gone;
});

test('a visitor without a conversation yet (all closed) is told so, nothing relayed', async (t) => {
  const ws = await createWorkspace(local);
  const v = await visitorOf(local, ws);
  await local.sql(`update conversations set status = 'closed' where id = $1`, [v.conversationId]);
  const dash = await dashboard(local.url, ws.token);
  t.deepEqual(await ask(dash, 'join_conversation', { conversation_id: v.conversationId }), { ok: true });
  const visitor = await widgetSocket(local.url, v.visitorToken);
  t.deepEqual(await ask(visitor, 'typing', { typing: true }), { ok: false, detail: 'No conversation yet' });
  t.deepEqual(typingOf(dash), []);
});
