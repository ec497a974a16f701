/**
 * Realtime: Socket.IO with token auth, rooms, and events from deps.events, in one process and
 * across two API nodes sharing Redis (each test file uses its own Redis channel prefix).
 *
 * No timings: "never receives" is checked with a marker. Events from one publisher arrive in
 * order, so once a later marker event has arrived, an earlier event that was going to arrive
 * has arrived too.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { io as connectClient, type Socket } from 'socket.io-client';
import { startWebServer, type WebServer } from '../api/server.ts';
import type { Deps } from '../core/deps.ts';
import { rooms, type EventBus } from '../core/events/bus.ts';
import { createRedisEventBus } from '../core/adapters/redis-events.ts';
import { startTestApp, testRedisUrl, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, registerUser, type Workspace } from './helpers/fixtures.ts';
import { closedPort } from './helpers/ports.ts';

const key = `parley-test:${randomBytes(6).toString('hex')}`;

let app: TestApp; // node A, Redis bus + adapter
let nodeB: WebServer; // a second API node on the same database and Redis
let busB: EventBus;
let worker: EventBus; // a worker's bus: no Socket.IO server at all
let local: TestApp; // single process: no Redis
const sockets: Socket[] = [];

test.before(async () => {
  app = await startTestApp({ redis: { key } });
  busB = createRedisEventBus({ url: testRedisUrl, key, logger: app.deps.logger });
  const depsB: Deps = { ...app.deps, events: busB };
  nodeB = await startWebServer(depsB, 0, { realtime: { redisKey: key } });
  worker = createRedisEventBus({ url: testRedisUrl, key, logger: app.deps.logger });
  local = await startTestApp();
});

test.after.always(async () => {
  for (const socket of sockets) socket.close();
  await nodeB?.close();
  await busB?.close();
  await worker?.close();
  await app?.close();
  await local?.close();
});

const urlB = () => `http://127.0.0.1:${nodeB.port}`;

type Received = { name: string; payload: any }[];

function open(url: string, auth: object): Socket {
  const socket = connectClient(url, { path: '/socket.io', transports: ['websocket'], auth, reconnection: false, forceNew: true });
  sockets.push(socket);
  return socket;
}

/** A connected client and everything it receives. */
async function connect(url: string, token: string): Promise<{ socket: Socket; received: Received }> {
  const socket = open(url, { token });
  const received: Received = [];
  socket.onAny((name: string, payload: unknown) => received.push({ name, payload }));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (error) => reject(error));
  });
  return { socket, received };
}

function refused(url: string, auth: object): Promise<Error & { data?: any }> {
  const socket = open(url, auth);
  return new Promise((resolve, reject) => {
    socket.once('connect', () => reject(new Error('connected although it should have been refused')));
    socket.once('connect_error', (error) => resolve(error));
  });
}

function next(socket: Socket, name: string): Promise<any> {
  return new Promise((resolve) => socket.once(name, (payload: unknown) => resolve(payload)));
}

function emitWithAck(socket: Socket, name: string, payload: unknown): Promise<any> {
  return new Promise((resolve) => socket.emit(name, payload, (answer: unknown) => resolve(answer)));
}

async function conversationOf(target: TestApp, workspace: Workspace): Promise<string> {
  const [row] = await target.sql(`insert into conversations (business_id, channel_type) values ($1, 'webchat') returning id`, [workspace.businessId]);
  return row.id;
}

test('single process: an event published on the local bus reaches the business room', async (t) => {
  const ws = await createWorkspace(local);
  const { socket } = await connect(local.url, ws.token);
  const got = next(socket, 'conversation_created');
  local.deps.events.publish({ name: 'conversation_created', rooms: [rooms.business(ws.businessId)], payload: { id: 'c1', business_id: ws.businessId } });
  t.deepEqual(await got, { id: 'c1', business_id: ws.businessId });
});

test('with Redis: an event published on the same node reaches its client', async (t) => {
  const ws = await createWorkspace(app);
  const { socket } = await connect(app.url, ws.token);
  const got = next(socket, 'message_created');
  app.deps.events.publish({ name: 'message_created', rooms: [rooms.business(ws.businessId)], payload: { id: 'm1' } });
  t.deepEqual(await got, { id: 'm1' });
  // Other tests of this file publish concurrently: look for this event, not the last one.
  t.true(
    app.events.some((e) => e.name === 'message_created' && e.payload.id === 'm1'),
    'the local subscribers see it too',
  );
});

test("two nodes: a client on node A receives what node B publishes, what node B's io emits, and what a worker publishes", async (t) => {
  const ws = await createWorkspace(app);
  const { socket } = await connect(app.url, ws.token);
  const room = rooms.business(ws.businessId);

  const fromBus = next(socket, 'conversation_updated');
  busB.publish({ name: 'conversation_updated', rooms: [room], payload: { via: 'bus B' } });
  t.deepEqual(await fromBus, { via: 'bus B' });

  const fromAdapter = next(socket, 'conversation_updated');
  nodeB.realtime.io.to(room).emit('conversation_updated', { via: 'io B' });
  t.deepEqual(await fromAdapter, { via: 'io B' });

  const fromWorker = next(socket, 'message_updated');
  worker.publish({ name: 'message_updated', rooms: [room], payload: { delivery_status: 'sent' } });
  t.deepEqual(await fromWorker, { delivery_status: 'sent' });
});

test('two nodes: PATCH /team/status on node B reaches a dashboard on node A', async (t) => {
  const ws = await createWorkspace(app);
  const { socket } = await connect(app.url, ws.token);
  const got = next(socket, 'agent_status_changed');
  const res = await fetch(`${urlB()}/api/v1/team/status`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${ws.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ status: 'live' }),
  });
  t.is(res.status, 200, await res.text());
  const payload = await got;
  t.is(payload.business_id, ws.businessId);
  t.is(payload.user_id, ws.userId);
  t.is(payload.status, 'live');
});

test('a bad, missing, revoked or unknown-user token is refused with connect_error', async (t) => {
  const missing = await refused(app.url, {});
  t.is(missing.message, 'Not authenticated');
  t.deepEqual(missing.data, { detail: 'Not authenticated' });

  const garbage = await refused(app.url, { token: 'not-a-jwt' });
  t.is(garbage.message, 'Could not validate credentials');
  t.deepEqual(garbage.data, { detail: 'Could not validate credentials' });

  // A token signed by another server (another JWT secret) is refused.
  const foreign = await registerUser(local);
  t.is((await refused(app.url, { token: foreign.token })).message, 'Could not validate credentials');

  const account = await registerUser(app);
  const logout = await app.request('POST', '/api/v1/auth/logout', { token: account.token });
  t.is(logout.status, 200, logout.text);
  t.is((await refused(app.url, { token: account.token })).message, 'Could not validate credentials');
  t.is((await refused(urlB(), { token: account.token })).message, 'Could not validate credentials', 'refused on every node');

  const gone = await registerUser(app);
  await app.sql('delete from users where id = $1', [gone.userId]);
  t.is((await refused(app.url, { token: gone.token })).message, 'Could not validate credentials');
});

test('a user without a business connects and gets only their user room', async (t) => {
  const account = await registerUser(app);
  const { socket } = await connect(app.url, account.token);
  const got = next(socket, 'conversation_assigned');
  app.deps.events.publish({ name: 'conversation_assigned', rooms: [rooms.user(account.userId)], payload: { to: 'me' } });
  t.deepEqual(await got, { to: 'me' });
});

test("a client of business X never receives business Y's events", async (t) => {
  const x = await createWorkspace(app, { name: 'X' });
  const y = await createWorkspace(app, { name: 'Y' });
  const clientX = await connect(app.url, x.token);
  const clientY = await connect(urlB(), y.token);

  const markerX = next(clientX.socket, 'marker');
  const markerY = next(clientY.socket, 'marker');
  worker.publish({ name: 'conversation_created', rooms: [rooms.business(y.businessId)], payload: { business: 'Y' } });
  worker.publish({ name: 'conversation_created', rooms: [rooms.business(x.businessId)], payload: { business: 'X' } });
  worker.publish({ name: 'marker', rooms: [rooms.business(x.businessId), rooms.business(y.businessId)], payload: {} });
  await Promise.all([markerX, markerY]);

  t.deepEqual(clientX.received, [
    { name: 'conversation_created', payload: { business: 'X' } },
    { name: 'marker', payload: {} },
  ]);
  t.deepEqual(clientY.received, [
    { name: 'conversation_created', payload: { business: 'Y' } },
    { name: 'marker', payload: {} },
  ]);
});

test('an event without rooms reaches nobody (Redis bus and local bus)', async (t) => {
  for (const target of [app, local]) {
    const ws = await createWorkspace(target);
    const client = await connect(target.url, ws.token);
    const marker = next(client.socket, 'marker');
    target.deps.events.publish({ name: 'broadcast', rooms: [], payload: {} });
    target.deps.events.publish({ name: 'marker', rooms: [rooms.user(ws.userId)], payload: {} });
    await marker;
    t.deepEqual(
      client.received.map((e) => e.name),
      ['marker'],
    );
  }
});

test('a user-room event reaches only that user, not the other members of the business', async (t) => {
  const ws = await createWorkspace(app);
  const agent = await addMember(app, ws.businessId, 'agent', { name: 'Agent' });
  const owner = await connect(app.url, ws.token);
  const other = await connect(urlB(), agent.token);

  const ownerMarker = next(owner.socket, 'marker');
  const agentMarker = next(other.socket, 'marker');
  busB.publish({ name: 'conversation_assigned', rooms: [rooms.user(agent.userId)], payload: { assignee_id: agent.userId } });
  busB.publish({ name: 'marker', rooms: [rooms.business(ws.businessId)], payload: {} });
  await Promise.all([ownerMarker, agentMarker]);

  t.deepEqual(other.received, [
    { name: 'conversation_assigned', payload: { assignee_id: agent.userId } },
    { name: 'marker', payload: {} },
  ]);
  t.deepEqual(owner.received, [{ name: 'marker', payload: {} }]);
});

test("join_conversation: only a conversation of the caller's business", async (t) => {
  const x = await createWorkspace(app, { name: 'X' });
  const y = await createWorkspace(app, { name: 'Y' });
  const conversation = await conversationOf(app, x);
  const clientX = await connect(app.url, x.token);
  const clientY = await connect(urlB(), y.token);
  const loner = await connect(app.url, (await registerUser(app)).token);

  t.deepEqual(await emitWithAck(clientX.socket, 'join_conversation', { conversation_id: conversation }), { ok: true });
  t.deepEqual(await emitWithAck(clientY.socket, 'join_conversation', { conversation_id: conversation }), { ok: false, detail: 'Conversation not found' });
  t.deepEqual(await emitWithAck(loner.socket, 'join_conversation', { conversation_id: conversation }), { ok: false, detail: 'Conversation not found' });
  t.deepEqual(await emitWithAck(clientX.socket, 'join_conversation', { conversation_id: 'nope' }), { ok: false, detail: 'conversation_id must be a UUID' });

  const markerX = next(clientX.socket, 'marker');
  const markerY = next(clientY.socket, 'marker');
  busB.publish({ name: 'message_created', rooms: [rooms.conversation(conversation)], payload: { conversation_id: conversation } });
  busB.publish({ name: 'marker', rooms: [rooms.business(x.businessId), rooms.business(y.businessId)], payload: {} });
  await Promise.all([markerX, markerY]);
  // Joining also announces who views the conversation (test/typing.test.ts), on its own path.
  const events = (client: { received: Received }) => client.received.map((e) => e.name).filter((name) => name !== 'conversation_presence');
  t.deepEqual(events(clientX), ['message_created', 'marker']);
  t.deepEqual(
    clientY.received.map((e) => e.name),
    ['marker'],
  );

  // Leaving stops the conversation's events.
  t.deepEqual(await emitWithAck(clientX.socket, 'leave_conversation', { conversation_id: conversation }), { ok: true });
  const again = next(clientX.socket, 'marker');
  busB.publish({ name: 'message_created', rooms: [rooms.conversation(conversation)], payload: { conversation_id: conversation } });
  busB.publish({ name: 'marker', rooms: [rooms.business(x.businessId)], payload: {} });
  await again;
  t.deepEqual(events(clientX), ['message_created', 'marker', 'marker']);
});

test('join_conversation: a member removed after connecting cannot join', async (t) => {
  const ws = await createWorkspace(app);
  const conversation = await conversationOf(app, ws);
  const agent = await addMember(app, ws.businessId, 'agent', { name: 'Agent' });
  const client = await connect(app.url, agent.token);
  await app.sql('delete from team_members where user_id = $1', [agent.userId]);
  t.deepEqual(await emitWithAck(client.socket, 'join_conversation', { conversation_id: conversation }), { ok: false, detail: 'Conversation not found' });
});

/** Resolves with the reason once the server ends the socket. */
function serverDisconnect(socket: Socket): Promise<string> {
  return new Promise((resolve) => (socket.connected ? socket.once('disconnect', (reason) => resolve(reason)) : resolve('already disconnected')));
}

async function loginAgain(target: TestApp | string, email: string): Promise<string> {
  const url = typeof target === 'string' ? target : target.url;
  const res = await fetch(`${url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'password123' }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

/** True once `socket` received the marker published after the event that must not arrive. */
async function receivesMarkerOnly(target: TestApp, socket: Socket, received: Received, businessId: string): Promise<boolean> {
  const marker = next(socket, 'marker');
  target.deps.events.publish({ name: 'conversation_created', rooms: [rooms.business(businessId)], payload: { after: 'cut' } });
  target.deps.events.publish({ name: 'marker', rooms: [rooms.business(businessId)], payload: {} });
  await marker;
  return !received.some((r) => r.name === 'conversation_created' && r.payload.after === 'cut');
}

test("two nodes: logout on node B closes the sockets opened with that token on node A; the user's other session keeps its events", async (t) => {
  const ws = await createWorkspace(app);
  const revoked = await connect(app.url, ws.token);
  const other = await connect(app.url, await loginAgain(app, ws.email));
  const cut = serverDisconnect(revoked.socket);
  const res = await fetch(`${urlB()}/api/v1/auth/logout`, { method: 'POST', headers: { authorization: `Bearer ${ws.token}` } });
  t.is(res.status, 200);
  t.is(await cut, 'io server disconnect');
  t.true(await receivesMarkerOnly(app, other.socket, revoked.received, ws.businessId));
  t.true(other.socket.connected, 'another token of the same user is not cut');
  t.false(revoked.received.some((r) => r.payload?.after === 'cut'));
});

test("single process: logout closes the token's sockets", async (t) => {
  const ws = await createWorkspace(local);
  const { socket } = await connect(local.url, ws.token);
  const cut = serverDisconnect(socket);
  t.is((await local.request('POST', '/api/v1/auth/logout', { token: ws.token })).status, 200);
  t.is(await cut, 'io server disconnect');
});

test("member removal closes the removed member's sockets (on every node); the owner's stay", async (t) => {
  const ws = await createWorkspace(app);
  const agent = await addMember(app, ws.businessId, 'agent', { name: 'Leaving agent' });
  const [member] = await app.sql('select id from team_members where user_id = $1', [agent.userId]);
  const onA = await connect(app.url, agent.token);
  const onB = await connect(urlB(), agent.token);
  const owner = await connect(app.url, ws.token);
  const cuts = [serverDisconnect(onA.socket), serverDisconnect(onB.socket)];
  const res = await app.request('DELETE', `/api/v1/team/members/${member.id}`, { token: ws.token });
  t.is(res.status, 200, res.text);
  t.deepEqual(await Promise.all(cuts), ['io server disconnect', 'io server disconnect']);
  t.true(await receivesMarkerOnly(app, owner.socket, onA.received, ws.businessId));
  t.true(owner.socket.connected);
});

test("a worker's bus (Redis emitter) can close sockets too", async (t) => {
  const ws = await createWorkspace(app);
  const { socket } = await connect(urlB(), ws.token);
  const cut = serverDisconnect(socket);
  worker.disconnect({ rooms: [rooms.user(ws.userId)] });
  t.is(await cut, 'io server disconnect');
});

test('Redis away: what the adapter and the emitter send without waiting (signals, live events, unsubscribes) fails quietly, never as an unhandled rejection that would end the process', async (t) => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    // A node and a worker's bus whose Redis is not there: ioredis queues their commands and retries.
    const url = `redis://127.0.0.1:${await closedPort()}`;
    const node = await startWebServer({ ...app.deps, config: { ...app.deps.config, REDIS_URL: url } }, 0, { realtime: { redisKey: key } });
    const bus = createRedisEventBus({ url, key, logger: app.deps.logger });
    await node.realtime.ready;
    // A typing signal (the adapter's publish), a live event (the emitter's publish), both queued.
    node.realtime.io.to('conversation:none').emit('typing', { conversation_id: 'none' });
    bus.publish({ name: 'message_created', rooms: [rooms.business('none')], payload: { id: 'none' } });
    // Closing flushes the queues ("Connection is closed.") and unsubscribes the adapter.
    await node.close();
    await bus.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    t.deepEqual(
      unhandled.map((reason) => (reason as Error).message),
      [],
    );
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});
