/**
 * Team-scoped visibility on the live side, beyond tests/teams.test.ts:
 *
 * - `conversation_hidden`: an agent who could see a conversation and no longer can hears it at
 *   once in their own room: when the conversation moves to another team, when they are taken out
 *   of a team or it is deleted, when the setting is switched on, and when a conversation outside
 *   their teams is reassigned away from them. Nobody hears it while the setting is off, nor does
 *   an admin (who sees everything), nor anyone who still sees the conversation.
 * - What publishing costs: with the setting off (the common case) and on, learning where an event
 *   goes adds no query to those that load the events' objects; an event the command built itself
 *   with the audience its statement read costs none at all. Queries are counted, not timed.
 *
 * "Never receives" is checked with a marker, as in test/realtime.test.ts: events from one
 * process arrive in order, so once a later event reached a socket, an earlier one meant for it
 * would have arrived before.
 */
import test from 'ava';
import { io as connectClient, type Socket } from 'socket.io-client';
import type { Db } from '../core/adapters/postgres/db.ts';
import { sendMessage } from '../core/commands/messages.ts';
import { liveEvent } from '../core/events/catalogue.ts';
import { conversationUpdated, messageCreated, publishEvents, type PendingEvent } from '../core/events/live.ts';
import { loadObjects, type Deferred } from '../core/events/live-loads.ts';
import { createLocalEventBus, type ParleyEvent } from '../core/events/bus.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, type Account, type Workspace } from './helpers/fixtures.ts';

let app: TestApp;
const sockets: Socket[] = [];
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  for (const socket of sockets) socket.close();
  await app?.close();
});

const one = async (text: string, params: unknown[] = []): Promise<any> => (await app.sql(text, params))[0];
const memberId = async (userId: string): Promise<string> => (await one('select id from team_members where user_id = $1', [userId])).id;

async function ok(method: string, path: string, token: string, body?: unknown): Promise<any> {
  const res = await app.request(method, path, { token, body });
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

const createTeam = (ws: Workspace, name: string) => ok('POST', '/api/v1/teams', ws.token, { name });
const conversation = async (ws: Workspace): Promise<string> => (await ok('POST', '/api/v1/conversations', ws.token, { business_id: ws.businessId })).id;
const setTeam = (ws: Workspace, conversationId: string, teamId: string | null) =>
  ok('PUT', `/api/v1/conversations/${conversationId}/team`, ws.token, { team_id: teamId });
const setMembers = async (ws: Workspace, teamId: string, accounts: Account[]) =>
  ok('PUT', `/api/v1/teams/${teamId}/members`, ws.token, { member_ids: await Promise.all(accounts.map((a) => memberId(a.userId))) });
const visibility = (ws: Workspace, on: boolean) => ok('PATCH', '/api/v1/settings/assignment', ws.token, { team_visibility: on });
const agentNumber = async (account: Account): Promise<number> =>
  (await one('select agent_number from team_members where user_id = $1', [account.userId])).agent_number;

type Seen = { name: string; payload: any }[];

async function connect(token: string): Promise<{ socket: Socket; seen: Seen }> {
  const socket = connectClient(app.url, { path: '/socket.io', transports: ['websocket'], auth: { token }, reconnection: false, forceNew: true });
  sockets.push(socket);
  const seen: Seen = [];
  socket.onAny((name: string, payload: unknown) => seen.push({ name, payload }));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (error) => reject(error));
  });
  return { socket, seen };
}

/** Waits until the socket saw an event matching `match`. */
const sawEventually = (socket: Socket, seen: Seen, match: (e: { name: string; payload: any }) => boolean): Promise<void> =>
  new Promise((resolve) => {
    if (seen.some(match)) return resolve();
    const check = (name: string, payload: unknown) => {
      if (match({ name, payload })) {
        socket.offAny(check);
        resolve();
      }
    };
    socket.onAny(check);
  });

const hidden = (seen: Seen) => seen.filter((e) => e.name === 'conversation_hidden').map((e) => e.payload.conversation_id);

/** `conversation_hidden` events published since `from` (the test app records every published event), as [user id, conversation id]. */
const hiddenSince = (from: number) =>
  app.events
    .slice(from)
    .filter((e) => e.name === 'conversation_hidden')
    .map((e) => [(e.payload as any).user_id, (e.payload as any).conversation_id, e.rooms]);

test.serial('a conversation moved to another team: its old team’s agents who no longer see it get conversation_hidden over their socket', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const leaving = await addMember(app, ws.businessId, 'agent', { name: 'Lea Leaving' });
  const both = await addMember(app, ws.businessId, 'agent', { name: 'Bo In Both' });
  const assignee = await addMember(app, ws.businessId, 'agent', { name: 'Asa Assignee' });
  const admin = await addMember(app, ws.businessId, 'admin', { name: 'Ada Admin' });
  const billing = await createTeam(ws, 'Billing');
  const tech = await createTeam(ws, 'Tech');
  await setMembers(ws, billing.id, [leaving, both, assignee, admin]);
  await setMembers(ws, tech.id, [both]);
  const conv = await conversation(ws);
  await setTeam(ws, conv, billing.id);
  await ok('PUT', `/api/v1/conversations/${conv}/assign/${await agentNumber(assignee)}`, ws.token);

  // Off: a team change hides nothing from anyone.
  let mark = app.events.length;
  await setTeam(ws, conv, tech.id);
  await setTeam(ws, conv, billing.id);
  t.deepEqual(hiddenSince(mark), []);

  await visibility(ws, true);
  const [lea, bo, asa, ada] = await Promise.all([leaving, both, assignee, admin].map((a) => connect(a.token)));
  mark = app.events.length;
  await setTeam(ws, conv, tech.id);
  await sawEventually(lea!.socket, lea!.seen, (e) => e.name === 'conversation_hidden');
  t.like(lea!.seen.find((e) => e.name === 'conversation_hidden')!.payload, { business_id: ws.businessId, user_id: leaving.userId, conversation_id: conv });
  // Only Lea: Bo is in the new team, Asa is the assignee, Ada an admin.
  t.deepEqual(hiddenSince(mark), [[leaving.userId, conv, [`user:${leaving.userId}`]]]);
  // And Lea no longer hears of the conversation; the others do. Marker: a later change everyone who sees it hears.
  await ok('PUT', `/api/v1/conversations/${conv}/priority`, ws.token, { priority: 'high' });
  for (const { socket, seen } of [bo!, asa!, ada!])
    await sawEventually(socket, seen, (e) => e.name === 'conversation_updated' && e.payload.conversation?.priority === 'high');
  for (const { seen } of [bo!, asa!, ada!]) t.deepEqual(hidden(seen), []);
  t.false(lea!.seen.some((e) => e.name === 'conversation_updated' && e.payload.conversation?.priority === 'high'));

  // To no team at all: Bo (of Tech) loses it; Asa still has it as assignee.
  mark = app.events.length;
  await setTeam(ws, conv, null);
  await sawEventually(bo!.socket, bo!.seen, (e) => e.name === 'conversation_hidden');
  t.deepEqual(hiddenSince(mark), [[both.userId, conv, [`user:${both.userId}`]]]);
  // From no team to a team: nobody loses it.
  mark = app.events.length;
  await setTeam(ws, conv, billing.id);
  t.deepEqual(hiddenSince(mark), []);
});

test.serial('reassigned away: a previous assignee outside the conversation’s team gets conversation_hidden; one in the team does not', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const first = await addMember(app, ws.businessId, 'agent', { name: 'First' });
  const second = await addMember(app, ws.businessId, 'agent', { name: 'Second' });
  const member = await addMember(app, ws.businessId, 'agent', { name: 'In Team' });
  const team = await createTeam(ws, 'Escalations');
  await setMembers(ws, team.id, [member]);
  const conv = await conversation(ws);
  await setTeam(ws, conv, team.id);
  await ok('PUT', `/api/v1/conversations/${conv}/assign/${await agentNumber(first)}`, ws.token);

  let mark = app.events.length;
  await ok('PUT', `/api/v1/conversations/${conv}/assign/${await agentNumber(second)}`, ws.token);
  t.deepEqual(hiddenSince(mark), [], 'off: nothing');

  await visibility(ws, true);
  mark = app.events.length;
  await ok('PUT', `/api/v1/conversations/${conv}/assign/${await agentNumber(first)}`, ws.token);
  t.deepEqual(hiddenSince(mark), [[second.userId, conv, [`user:${second.userId}`]]]);
  t.is((await app.request('GET', `/api/v1/conversations/${conv}`, { token: second.token })).status, 404);
  // Assigned again to the same agent: nobody loses it.
  mark = app.events.length;
  await ok('PUT', `/api/v1/conversations/${conv}/assign/${await agentNumber(first)}`, ws.token);
  t.deepEqual(hiddenSince(mark), []);
  // From the team member to another: the team member still sees it through the team.
  await ok('PUT', `/api/v1/conversations/${conv}/assign/${await agentNumber(member)}`, ws.token);
  mark = app.events.length;
  await ok('PUT', `/api/v1/conversations/${conv}/assign/${await agentNumber(second)}`, ws.token);
  t.deepEqual(hiddenSince(mark), []);
});

test.serial('taken out of a team, the team deleted, the setting switched on: conversation_hidden (null) to each agent whose view narrowed', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const ann = await addMember(app, ws.businessId, 'agent', { name: 'Ann' });
  const ben = await addMember(app, ws.businessId, 'agent', { name: 'Ben' });
  const admin = await addMember(app, ws.businessId, 'admin', { name: 'Ada' });
  const team = await createTeam(ws, 'Billing');
  await setMembers(ws, team.id, [ann, ben, admin]);

  // Off: taking members out hides nothing.
  let mark = app.events.length;
  await setMembers(ws, team.id, [ann]);
  t.deepEqual(hiddenSince(mark), []);
  await setMembers(ws, team.id, [ann, ben, admin]);

  // Switched on: every agent (not the admin, not the owner), once; switching on again sends nothing.
  const annSocket = await connect(ann.token);
  mark = app.events.length;
  await visibility(ws, true);
  await sawEventually(annSocket.socket, annSocket.seen, (e) => e.name === 'conversation_hidden');
  t.like(annSocket.seen.find((e) => e.name === 'conversation_hidden')!.payload, { business_id: ws.businessId, user_id: ann.userId, conversation_id: null });
  t.deepEqual(
    hiddenSince(mark).sort(),
    [
      [ann.userId, null, [`user:${ann.userId}`]],
      [ben.userId, null, [`user:${ben.userId}`]],
    ].sort(),
  );
  mark = app.events.length;
  await visibility(ws, true);
  t.deepEqual(hiddenSince(mark), []);

  // Ben and the admin taken out: only Ben hears it.
  mark = app.events.length;
  await setMembers(ws, team.id, [ann]);
  t.deepEqual(hiddenSince(mark), [[ben.userId, null, [`user:${ben.userId}`]]]);

  // The team deleted: Ann, its agent, hears it.
  mark = app.events.length;
  await ok('DELETE', `/api/v1/teams/${team.id}`, ws.token);
  t.deepEqual(hiddenSince(mark), [[ann.userId, null, [`user:${ann.userId}`]]]);
});

// ---------------------------------------------------------------- what publishing costs

const QUERY_METHODS = new Set([
  'any',
  'anyFirst',
  'exists',
  'many',
  'manyFirst',
  'maybeOne',
  'maybeOneFirst',
  'one',
  'oneFirst',
  'query',
  'stream',
  'transaction',
  'connect',
]);

/** The pool, counting the queries made through it (and what they were). */
function counting(db: Db): { db: Db; queries: string[] } {
  const queries: string[] = [];
  const proxy = new Proxy(db, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof property !== 'string' || !QUERY_METHODS.has(property) || typeof value !== 'function') return value;
      return (...args: any[]) => {
        queries.push(String(args[0]?.sql ?? property));
        return value.apply(target, args);
      };
    },
  });
  return { db: proxy, queries };
}

/** publishEvents through a counting pool and a bus of its own: the queries it made and the events it published. */
async function publishCounted(pending: PendingEvent[]): Promise<{ queries: string[]; published: ParleyEvent[] }> {
  const { db, queries } = counting(app.deps.db);
  const events = createLocalEventBus();
  const published: ParleyEvent[] = [];
  events.subscribe((e) => published.push(e));
  await publishEvents({ db, events, logger: app.deps.logger }, pending);
  return { queries, published };
}

async function loadsCounted(deferred: Deferred[]): Promise<number> {
  const { db, queries } = counting(app.deps.db);
  await loadObjects(db, deferred);
  return queries.length;
}

test.serial(
  'publishing: where events go costs no query beyond the loads, the setting off or on; an event with its audience read by its command costs none',
  async (t) => {
    const ws = await createWorkspace(app, { plan: 'Pro' });
    const member = await addMember(app, ws.businessId, 'agent', { name: 'In Team' });
    const outsider = await addMember(app, ws.businessId, 'agent', { name: 'Outsider' });
    const team = await createTeam(ws, 'Billing');
    await setMembers(ws, team.id, [member]);
    const conv = await conversation(ws);
    await setTeam(ws, conv, team.id);
    const reply = await ok('POST', `/api/v1/conversations/${conv}/messages`, ws.token, { content: 'Hello' });
    const deferred = [messageCreated(ws.businessId, reply.id), conversationUpdated({ id: conv, business_id: ws.businessId })] as Deferred[];
    const loads = await loadsCounted(deferred);
    t.true(loads > 0);

    // A note through its command: its message_created is built by the command, with the audience its statement read.
    const note = async () =>
      (
        await app.deps.db.transaction((tx) =>
          sendMessage(tx, {
            businessId: ws.businessId,
            conversationId: conv,
            sender: { type: 'note', userId: ws.userId },
            content: 'internal',
            attachments: [],
          }),
        )
      ).events;
    // An event built by a command that read no audience (as an SLA breach's).
    const handoff = liveEvent('handoff_requested', { conversation_id: conv, business_id: ws.businessId, reason: 'help', at: new Date().toISOString() });

    for (const on of [false, true]) {
      await visibility(ws, on);
      const label = on ? 'on' : 'off';
      const loaded = await publishCounted(deferred);
      t.is(loaded.queries.length, loads, `${label}: the loads only`);
      t.false(
        loaded.queries.some((q) => /^\s*select 1 from assignment_settings/.test(q)),
        `${label}: no query of its own for the setting`,
      );
      const noted = await publishCounted(await note());
      t.deepEqual(noted.queries, [], `${label}: a note costs no query`);
      const built = await publishCounted([handoff]);
      t.is(built.queries.length, 1, `${label}: one query for an event nothing read`);

      // And the events went where they should.
      const rooms = (published: ParleyEvent[], name: string) => published.find((e) => e.name === name)?.rooms;
      const everyone = on ? [`user:${ws.userId}`, `user:${member.userId}`].sort() : null;
      const sorted = (list: string[] | undefined) => [...(list ?? [])].sort();
      if (everyone) {
        t.deepEqual(sorted(rooms(loaded.published, 'conversation_updated')), everyone, label);
        t.deepEqual(sorted(rooms(loaded.published, 'message_created')), everyone, label);
        t.deepEqual(sorted(rooms(noted.published, 'message_created')), everyone, label);
        t.deepEqual(sorted(rooms(built.published, 'handoff_requested')), everyone, label);
        t.false(JSON.stringify([loaded.published, noted.published, built.published]).includes(outsider.userId));
      } else {
        t.deepEqual(rooms(loaded.published, 'conversation_updated'), [`business:${ws.businessId}`]);
        t.deepEqual(rooms(loaded.published, 'message_created'), [`business:${ws.businessId}`, `conversation:${conv}`]);
        t.deepEqual(rooms(noted.published, 'message_created'), [`business:${ws.businessId}`, `conversation:${conv}`]);
        t.deepEqual(rooms(built.published, 'handoff_requested'), [`business:${ws.businessId}`]);
      }
    }
  },
);
