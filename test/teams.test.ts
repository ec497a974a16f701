/**
 * Teams (issue #18 item 2): the teams API (roles, validation, paging, isolation), a
 * conversation's team and the inbox filter, a channel's default team, auto-assignment within a
 * team, and team-scoped visibility: with the setting on, an agent outside the team gets 404 on
 * every read and action, finds nothing in lists and search, and receives none of the
 * conversation's live events, while a member of the team does and the owner sees everything.
 *
 * "Never receives" is checked with a marker, as in test/realtime.test.ts: events from one
 * process arrive in order, so once a later event reached a socket, an earlier one meant for it
 * would have arrived before.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { io as connectClient, type Socket } from 'socket.io-client';
import { applyMessages, type InboundChannel } from '../core/commands/inbound.ts';
import { runAutoAssign } from '../core/commands/auto-assign.ts';
import { publishEvents } from '../core/events/live.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, registerUser, type Account, type Workspace } from './helpers/fixtures.ts';

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

const createTeam = (ws: Workspace, name: string, description?: string) => ok('POST', '/api/v1/teams', ws.token, { name, description });
const conversation = async (ws: Workspace): Promise<string> => (await ok('POST', '/api/v1/conversations', ws.token, { business_id: ws.businessId })).id;
const setTeam = (token: string, conversationId: string, teamId: string | null) =>
  app.request('PUT', `/api/v1/conversations/${conversationId}/team`, { token, body: { team_id: teamId } });

async function builtinChannel(ws: Workspace): Promise<InboundChannel> {
  return one('select id, business_id, type from channels where business_id = $1 and is_builtin', [ws.businessId]);
}

/** A customer message through the inbound SQL, as the drain applies it; returns the conversation id. */
async function customerWrites(channel: InboundChannel, customer: string): Promise<string> {
  const events = await app.deps.db.transaction((tx) =>
    applyMessages(tx, channel, [
      {
        kind: 'message',
        externalId: randomUUID(),
        from: { platformUserId: customer, name: customer },
        text: 'Hello',
        attachments: [],
        sentAt: new Date().toISOString(),
      },
    ]),
  );
  await publishEvents(app.deps, events);
  return (await one('select c.id from conversations c join customers cu on cu.id = c.customer_id where cu.platform_user_id = $1', [customer])).id;
}

// ---------------------------------------------------------------- the teams API

test('teams: owner and admins manage them, agents read them; names unique whatever the case; validation 422', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const admin = await addMember(app, ws.businessId, 'admin');
  const agent = await addMember(app, ws.businessId, 'agent', { name: 'Ann Agent' });

  const billing = await createTeam(ws, 'Billing', 'Invoices and refunds');
  t.like(billing, { name: 'Billing', description: 'Invoices and refunds', member_count: 0 });
  const duplicate = await app.request('POST', '/api/v1/teams', { token: admin.token, body: { name: 'BILLING' } });
  t.deepEqual([duplicate.status, duplicate.body], [400, { detail: 'A team named "BILLING" already exists' }]);
  const byAgent = await app.request('POST', '/api/v1/teams', { token: agent.token, body: { name: 'Rogue' } });
  t.deepEqual([byAgent.status, byAgent.body], [403, { detail: 'Only the owner or an admin can manage teams' }]);
  for (const body of [{}, { name: '' }, { name: 'x'.repeat(81) }, { name: 'a\u0001b' }, { name: 'ok', description: 'd'.repeat(501) }]) {
    t.is((await app.request('POST', '/api/v1/teams', { token: ws.token, body })).status, 422, JSON.stringify(body));
  }
  const sales = await ok('POST', '/api/v1/teams', admin.token, { name: 'sales' });
  t.is(sales.description, '');

  // Any member reads; alphabetical, case-insensitive, keyset paged.
  await createTeam(ws, 'Apps');
  const page1 = await app.request('GET', '/api/v1/teams', { token: agent.token, query: { limit: 2 } });
  t.deepEqual(
    page1.body.map((x: any) => x.name),
    ['Apps', 'Billing'],
  );
  const page2 = await app.request('GET', '/api/v1/teams', { token: agent.token, query: { limit: 2, cursor: page1.headers.get('x-next-cursor')! } });
  t.deepEqual(
    page2.body.map((x: any) => x.name),
    ['sales'],
  );
  t.is(page2.headers.get('x-next-cursor'), null);

  const renamed = await ok('PATCH', `/api/v1/teams/${billing.id}`, admin.token, { name: 'Billing & Refunds' });
  t.like(renamed, { name: 'Billing & Refunds', description: 'Invoices and refunds' });
  t.is((await app.request('PATCH', `/api/v1/teams/${billing.id}`, { token: agent.token, body: { name: 'x' } })).status, 403);
  t.is((await app.request('PATCH', `/api/v1/teams/${billing.id}`, { token: ws.token, body: { name: 'sales' } })).status, 400);
  t.is((await app.request('DELETE', `/api/v1/teams/${billing.id}`, { token: agent.token })).status, 403);

  const me = await ok('GET', '/api/v1/auth/me', agent.token);
  t.like(me.can, { 'teams.read': true, 'teams.manage': false, 'conversations.set_team': true });

  const loner = await registerUser(app, 'No Business');
  t.is((await app.request('GET', '/api/v1/teams', { token: loner.token })).status, 404);
});

test('team members: set as a whole, listed in agent-number order and paged; members of other businesses or unknown ids are 400, nothing changed', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const other = await createWorkspace(app, { plan: 'Pro' });
  const a1 = await addMember(app, ws.businessId, 'agent', { name: 'One' });
  const a2 = await addMember(app, ws.businessId, 'agent', { name: 'Two' });
  const stranger = await addMember(app, other.businessId, 'agent');
  const team = await createTeam(ws, 'Support');
  const [m1, m2, mo] = [await memberId(a1.userId), await memberId(a2.userId), await memberId(stranger.userId)];

  t.deepEqual(await ok('PUT', `/api/v1/teams/${team.id}/members`, ws.token, { member_ids: [m2, m1, m1] }), { member_ids: [m2, m1] });
  const page1 = await app.request('GET', `/api/v1/teams/${team.id}/members`, { token: a1.token, query: { limit: 1 } });
  t.deepEqual(
    page1.body.map((m: any) => [m.id, m.name, m.role]),
    [[m1, 'One', 'agent']],
  );
  const page2 = await app.request('GET', `/api/v1/teams/${team.id}/members`, {
    token: a1.token,
    query: { limit: 1, cursor: page1.headers.get('x-next-cursor')! },
  });
  t.deepEqual(
    page2.body.map((m: any) => m.id),
    [m2],
  );
  t.is(page2.headers.get('x-next-cursor'), null);
  t.is((await ok('GET', '/api/v1/teams', ws.token))[0].member_count, 2);

  const foreign = await app.request('PUT', `/api/v1/teams/${team.id}/members`, { token: ws.token, body: { member_ids: [m1, mo] } });
  t.deepEqual([foreign.status, foreign.body], [400, { detail: `Not an active member of this business: ${mo}` }]);
  const unknown = await app.request('PUT', `/api/v1/teams/${team.id}/members`, { token: ws.token, body: { member_ids: [randomUUID()] } });
  t.is(unknown.status, 400);
  t.is((await app.request('PUT', `/api/v1/teams/${team.id}/members`, { token: ws.token, body: { member_ids: ['nope'] } })).status, 422);
  t.is((await app.request('PUT', `/api/v1/teams/${team.id}/members`, { token: a1.token, body: { member_ids: [] } })).status, 403);
  t.is((await ok('GET', `/api/v1/teams/${team.id}/members`, ws.token)).length, 2, 'nothing changed');

  t.deepEqual(await ok('PUT', `/api/v1/teams/${team.id}/members`, ws.token, { member_ids: [m2] }), { member_ids: [m2] });
  t.deepEqual(
    (await ok('GET', `/api/v1/teams/${team.id}/members`, ws.token)).map((m: any) => m.id),
    [m2],
  );
  t.is((await app.request('GET', `/api/v1/teams/${randomUUID()}/members`, { token: ws.token })).status, 404);
});

test("teams: tenant isolation: another business's teams are neither listed, read, changed, filled nor applied", async (t) => {
  const a = await createWorkspace(app, { name: 'Alpha' });
  const b = await createWorkspace(app, { name: 'Beta' });
  const aTeam = await createTeam(a, 'Shared');
  const bTeam = await createTeam(b, 'Shared');
  t.deepEqual(
    (await ok('GET', '/api/v1/teams', a.token)).map((x: any) => x.id),
    [aTeam.id],
  );
  t.is((await app.request('PATCH', `/api/v1/teams/${bTeam.id}`, { token: a.token, body: { name: 'hijacked' } })).status, 404);
  t.is((await app.request('DELETE', `/api/v1/teams/${bTeam.id}`, { token: a.token })).status, 404);
  t.is((await app.request('GET', `/api/v1/teams/${bTeam.id}/members`, { token: a.token })).status, 404);
  t.is((await app.request('PUT', `/api/v1/teams/${bTeam.id}/members`, { token: a.token, body: { member_ids: [] } })).status, 404);
  t.is((await one('select name from teams where id = $1', [bTeam.id])).name, 'Shared');

  const aConv = await conversation(a);
  const bConv = await conversation(b);
  t.deepEqual((await setTeam(a.token, bConv, aTeam.id)).status, 404);
  const theirTeam = await setTeam(a.token, aConv, bTeam.id);
  t.deepEqual([theirTeam.status, theirTeam.body], [400, { detail: 'Team not found' }]);
  const [channel] = await app.sql('select id from channels where business_id = $1 and is_builtin', [a.businessId]);
  const channelTeam = await app.request('PATCH', `/api/v1/channels/${channel.id}`, { token: a.token, body: { default_team_id: bTeam.id } });
  t.deepEqual([channelTeam.status, channelTeam.body], [400, { detail: 'Team not found' }]);
  // B's filter by its own team finds none of A's conversations.
  await setTeam(a.token, aConv, aTeam.id);
  t.deepEqual(await ok('GET', `/api/v1/conversations?team_id=${bTeam.id}`, b.token), []);
  t.deepEqual(await ok('GET', `/api/v1/conversations?team_id=${aTeam.id}`, b.token), []);
  t.deepEqual((await app.sql('select business_id from team_memberships where team_id = any($1)', [[aTeam.id, bTeam.id]])).length, 0);
});

// ---------------------------------------------------------------- a conversation's team

test('conversation team: set and cleared by any member, fires conversation_updated, filters the inbox (indexed); deleting the team clears it', async (t) => {
  const ws = await createWorkspace(app);
  const agent = await addMember(app, ws.businessId, 'agent');
  const team = await createTeam(ws, 'Tier 2');
  const [c1, c2] = [await conversation(ws), await conversation(ws)];
  const before = await ok('GET', `/api/v1/conversations/${c1}`, ws.token);
  t.is(before.team_id, null);

  const eventsBefore = app.events.length;
  const set = await setTeam(agent.token, c1, team.id);
  t.deepEqual([set.status, set.body], [200, { team_id: team.id }]);
  const updatedOf = (from: number) => app.events.slice(from).filter((e) => e.name === 'conversation_updated' && (e.payload as any).conversation_id === c1);
  const updated = updatedOf(eventsBefore);
  t.is(updated.length, 1);
  t.is((updated[0].payload as any).conversation.team_id, team.id);
  t.deepEqual(updated[0].rooms, [`business:${ws.businessId}`]);
  // Setting the same team again changes nothing and fires nothing.
  const again = app.events.length;
  t.is((await setTeam(agent.token, c1, team.id)).status, 200);
  t.is(updatedOf(again).length, 0);
  t.is((await ok('GET', `/api/v1/conversations/${c1}`, ws.token)).updated_at, before.updated_at, 'updated_at kept');

  t.deepEqual(
    (await ok('GET', `/api/v1/conversations?team_id=${team.id}`, agent.token)).map((c: any) => c.id),
    [c1],
  );
  t.deepEqual(
    (await ok('GET', '/api/v1/conversations?team_id=none', agent.token)).map((c: any) => c.id),
    [c2],
  );
  t.is((await app.request('GET', '/api/v1/conversations?team_id=nope', { token: agent.token })).status, 422);
  t.is((await app.request('PUT', `/api/v1/conversations/${c1}/team`, { token: agent.token, body: {} })).status, 422);
  const plan = await app.sql(
    `explain select id from conversations c where c.business_id = $1 and c.team_id = $2 order by c.updated_at desc, c.id desc limit 51`,
    [ws.businessId, team.id],
  );
  t.regex(plan.map((r) => r['QUERY PLAN']).join('\n'), /conversations_business_team_idx/);

  t.is((await ok('DELETE', `/api/v1/teams/${team.id}`, ws.token)).detail, 'Team deleted');
  t.is((await ok('GET', `/api/v1/conversations/${c1}`, ws.token)).team_id, null);
  t.deepEqual((await setTeam(agent.token, c2, null)).body, { team_id: null });
});

test('channel default team: conversations opened on the channel from then on start in the team', async (t) => {
  const ws = await createWorkspace(app);
  const team = await createTeam(ws, 'Webchat crew');
  const channel = await builtinChannel(ws);
  const earlier = await customerWrites(channel, `early-${randomUUID()}`);
  const patched = await ok('PATCH', `/api/v1/channels/${channel.id}`, ws.token, { default_team_id: team.id });
  t.is(patched.default_team_id, team.id);
  t.is((await ok('GET', '/api/v1/channels', ws.token)).find((c: any) => c.id === channel.id).default_team_id, team.id);

  const inbound = await customerWrites(channel, `later-${randomUUID()}`);
  t.is((await ok('GET', `/api/v1/conversations/${inbound}`, ws.token)).team_id, team.id);
  t.is((await ok('GET', `/api/v1/conversations/${earlier}`, ws.token)).team_id, null, 'earlier conversations keep theirs');
  // Through the API too (the default channel is the built-in one).
  t.is((await ok('GET', `/api/v1/conversations/${await conversation(ws)}`, ws.token)).team_id, team.id);

  const cleared = await ok('PATCH', `/api/v1/channels/${channel.id}`, ws.token, { default_team_id: null });
  t.is(cleared.default_team_id, null);
  t.is((await ok('GET', `/api/v1/conversations/${await conversation(ws)}`, ws.token)).team_id, null);
});

test('auto-assignment: a conversation of a team goes only to its members; one without a team to anyone; a full team holds nobody else up', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const outside = await addMember(app, ws.businessId, 'agent', { name: 'Outside', status: 'live' });
  const inside = await addMember(app, ws.businessId, 'agent', { name: 'Inside', status: 'live' });
  const team = await createTeam(ws, 'Specialists');
  await ok('PUT', `/api/v1/teams/${team.id}/members`, ws.token, { member_ids: [await memberId(inside.userId)] });
  await ok('PATCH', '/api/v1/settings/assignment', ws.token, { enabled: true, max_open_per_agent: 1 });
  const channel = await builtinChannel(ws);
  await ok('PATCH', `/api/v1/channels/${channel.id}`, ws.token, { default_team_id: team.id });

  // Two team conversations first (oldest), then one without a team.
  const t1 = await customerWrites(channel, `t1-${randomUUID()}`);
  const t2 = await customerWrites(channel, `t2-${randomUUID()}`);
  await ok('PATCH', `/api/v1/channels/${channel.id}`, ws.token, { default_team_id: null });
  const free = await customerWrites(channel, `free-${randomUUID()}`);
  await runAutoAssign(app.deps.db, ws.businessId, (events) => publishEvents(app.deps, events));

  const assignee = async (id: string) => (await one('select assignee_id from conversations where id = $1', [id])).assignee_id;
  t.is(await assignee(t1), inside.userId);
  t.is(await assignee(t2), null, 'the team is full: it waits, although Outside has room');
  t.is(await assignee(free), outside.userId, 'the waiting team conversation did not hold this one up');

  // Outside joins the team: the waiting one flows to them once they have room.
  await ok('PUT', `/api/v1/conversations/${free}/resolve`, ws.token);
  await ok('PUT', `/api/v1/teams/${team.id}/members`, ws.token, { member_ids: [await memberId(inside.userId), await memberId(outside.userId)] });
  await runAutoAssign(app.deps.db, ws.businessId, (events) => publishEvents(app.deps, events));
  t.is(await assignee(t2), outside.userId);
});

// ---------------------------------------------------------------- team-scoped visibility

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

const emitWithAck = (socket: Socket, name: string, payload: unknown): Promise<any> =>
  new Promise((resolve) => socket.emit(name, payload, (answer: unknown) => resolve(answer)));

/** Waits until the socket saw an event matching `match` (the marker). */
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

const about = (conversationId: string) => (e: { payload: any }) => e.payload?.conversation_id === conversationId;

test.serial(
  'team-scoped visibility: an agent outside the team gets 404, finds nothing and hears nothing; a team member and the owner see it all',
  async (t) => {
    const ws = await createWorkspace(app, { plan: 'Pro' });
    const member: Account = await addMember(app, ws.businessId, 'agent', { name: 'In Team' });
    const outsider: Account = await addMember(app, ws.businessId, 'agent', { name: 'Out Of Team' });
    const admin = await addMember(app, ws.businessId, 'admin');
    const team = await createTeam(ws, 'Escalations');
    await ok('PUT', `/api/v1/teams/${team.id}/members`, ws.token, { member_ids: [await memberId(member.userId)] });

    const secret = await conversation(ws);
    await setTeam(ws.token, secret, team.id);
    await ok('POST', `/api/v1/conversations/${secret}/messages`, ws.token, { content: 'zanzibarword escalated' });
    // The outsider's own conversation: no team, assigned to them.
    const mine = await conversation(ws);
    const [outsiderNumber] = await app.sql('select agent_number from team_members where user_id = $1', [outsider.userId]);
    await ok('PUT', `/api/v1/conversations/${mine}/assign/${outsiderNumber.agent_number}`, ws.token);
    await ok('POST', `/api/v1/conversations/${mine}/messages`, ws.token, { content: 'zanzibarword mine' });

    // Off (the default): everyone sees everything.
    t.is((await app.request('GET', `/api/v1/conversations/${secret}`, { token: outsider.token })).status, 200);
    const settings = await ok('PATCH', '/api/v1/settings/assignment', admin.token, { team_visibility: true });
    t.true(settings.team_visibility);
    t.is((await app.request('PATCH', '/api/v1/settings/assignment', { token: member.token, body: { team_visibility: false } })).status, 403);

    // Reads: 404 for the outsider on the conversation and everything under it; 200 for the team member and the owner.
    for (const path of [`/api/v1/conversations/${secret}`, `/api/v1/conversations/${secret}/messages`]) {
      const res = await app.request('GET', path, { token: outsider.token });
      t.deepEqual([res.status, res.body], [404, { detail: 'Conversation not found' }], path);
      t.is((await app.request('GET', path, { token: member.token })).status, 200, path);
      t.is((await app.request('GET', path, { token: ws.token })).status, 200, path);
    }
    // Actions too, and nothing changes.
    t.is((await app.request('PUT', `/api/v1/conversations/${secret}/resolve`, { token: outsider.token })).status, 404);
    t.is((await app.request('POST', `/api/v1/conversations/${secret}/messages`, { token: outsider.token, body: { content: 'sneaky' } })).status, 404);
    t.is((await setTeam(outsider.token, secret, null)).status, 404);
    t.is((await one('select status from conversations where id = $1', [secret])).status, 'open');
    const bulk = await ok('POST', '/api/v1/conversations/bulk', outsider.token, { action: 'resolve', ids: [secret, mine] });
    t.deepEqual(
      bulk.results.map((r: any) => [r.id, r.ok, r.error]),
      [
        [secret, false, 'not_found'],
        [mine, true, undefined],
      ],
    );
    await ok('PUT', `/api/v1/conversations/${mine}/reopen`, outsider.token);

    // Lists and search.
    const ids = async (token: string, query = '') => (await ok('GET', `/api/v1/conversations${query}`, token)).map((c: any) => c.id).sort();
    t.deepEqual(await ids(outsider.token), [mine]);
    t.deepEqual(await ids(outsider.token, `?team_id=${team.id}`), []);
    t.deepEqual(await ids(member.token), [secret]);
    t.deepEqual(await ids(ws.token), [mine, secret].sort());
    const search = async (token: string, type: string) =>
      (await ok('GET', `/api/v1/search?q=zanzibarword&type=${type}`, token)).map((h: any) => h.conversation_id ?? h.id).sort();
    t.deepEqual(await search(outsider.token, 'messages'), [mine]);
    t.deepEqual(await search(outsider.token, 'conversations'), [mine]);
    t.deepEqual(await search(member.token, 'messages'), [secret]);
    t.deepEqual(await search(ws.token, 'messages'), [mine, secret].sort());
    // Common enough words (in 5 of the newest messages) take the walk over the newest conversations (CONVERSATION_WALK): hidden the same.
    for (const id of [secret, mine, secret, mine])
      await app.sql(`insert into messages (business_id, conversation_id, sender_type, content) values ($1, $2, 'customer', 'zanzibarword again')`, [
        ws.businessId,
        id,
      ]);
    t.deepEqual(await search(outsider.token, 'conversations'), [mine]);
    t.deepEqual(await search(member.token, 'conversations'), [secret]);
    t.deepEqual(await search(ws.token, 'conversations'), [mine, secret].sort());
    t.is((await ok('GET', '/api/v1/analytics/overview', outsider.token)).total_conversations, 1);
    t.is((await ok('GET', '/api/v1/analytics/overview', ws.token)).total_conversations, 2);

    // Live events: connect all three, then a reply in the team's conversation.
    const [inSock, outSock, ownerSock] = [await connect(member.token), await connect(outsider.token), await connect(ws.token)];
    t.like(await emitWithAck(outSock.socket, 'join_conversation', { conversation_id: secret }), { ok: false, detail: 'Conversation not found' });
    t.like(await emitWithAck(inSock.socket, 'join_conversation', { conversation_id: secret }), { ok: true });
    await ok('POST', `/api/v1/conversations/${secret}/messages`, ws.token, { content: 'live reply' });
    await ok('PUT', `/api/v1/conversations/${secret}/priority`, ws.token, { priority: 'high' });
    for (const { socket, seen } of [inSock, ownerSock]) {
      await sawEventually(socket, seen, (e) => e.name === 'conversation_updated' && e.payload.conversation?.priority === 'high');
      t.true(seen.some((e) => e.name === 'message_created' && e.payload.message.content === 'live reply'));
    }
    // Marker: an event about the outsider's own conversation, published after the others.
    await ok('PUT', `/api/v1/conversations/${mine}/priority`, ws.token, { priority: 'low' });
    await sawEventually(outSock.socket, outSock.seen, (e) => e.name === 'conversation_updated' && e.payload.conversation_id === mine);
    t.deepEqual(outSock.seen.filter(about(secret)), [], 'the outsider heard nothing of the team conversation');
    t.false(inSock.seen.some(about(mine)), 'nor the team member of the outsider’s own');

    // Joining the team shows it at once, everywhere; the setting off shows everything again.
    await ok('PUT', `/api/v1/teams/${team.id}/members`, ws.token, { member_ids: [await memberId(member.userId), await memberId(outsider.userId)] });
    t.is((await app.request('GET', `/api/v1/conversations/${secret}`, { token: outsider.token })).status, 200);
    await ok('PUT', `/api/v1/conversations/${secret}/priority`, ws.token, { priority: 'urgent' });
    await sawEventually(outSock.socket, outSock.seen, (e) => e.name === 'conversation_updated' && e.payload.conversation?.priority === 'urgent');
    await ok('PUT', `/api/v1/teams/${team.id}/members`, ws.token, { member_ids: [await memberId(member.userId)] });
    t.is((await app.request('GET', `/api/v1/conversations/${secret}`, { token: outsider.token })).status, 404);
    await ok('PATCH', '/api/v1/settings/assignment', ws.token, { team_visibility: false });
    t.is((await app.request('GET', `/api/v1/conversations/${secret}`, { token: outsider.token })).status, 200);
    t.deepEqual(await ids(outsider.token), [mine, secret].sort());
  },
);

test.serial('team-scoped visibility: mentions and pending handoffs follow it; an API key of an agent is held to it', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const outsider = await addMember(app, ws.businessId, 'agent', { name: 'Outsider' });
  const team = await createTeam(ws, 'Closed');
  const conv = await conversation(ws);
  await setTeam(ws.token, conv, team.id);
  await ok('POST', `/api/v1/conversations/${conv}/messages`, ws.token, { content: 'note', private: true, mentions: [await memberId(outsider.userId)] });
  await app.sql(`update conversations set handoff_requested_at = now(), handoff_reason = 'help' where id = $1`, [conv]);
  t.is((await ok('GET', '/api/v1/mentions', outsider.token)).length, 1);
  t.is((await ok('GET', '/api/v1/team/pending-handoffs', outsider.token)).length, 1);

  await ok('PATCH', '/api/v1/settings/assignment', ws.token, { team_visibility: true });
  const mentions = await app.request('GET', '/api/v1/mentions', { token: outsider.token });
  t.deepEqual([mentions.body, mentions.headers.get('x-unread-count')], [[], '0']);
  t.deepEqual(await ok('GET', '/api/v1/team/pending-handoffs', outsider.token), []);
  t.is((await ok('GET', '/api/v1/team/pending-handoffs', ws.token)).length, 1);

  // An agent's API key acts as the agent.
  const key = await ok('POST', '/api/v1/api-keys', ws.token, { name: 'probe', scopes: ['read'], password: 'password123' });
  t.is((await app.request('GET', `/api/v1/conversations/${conv}`, { token: key.key })).status, 200, "the owner's key sees it");
  await app.sql('update api_keys set member_id = (select id from team_members where user_id = $1) where id = $2', [outsider.userId, key.id]);
  t.is((await app.request('GET', `/api/v1/conversations/${conv}`, { token: key.key })).status, 404);
  t.deepEqual(await ok('GET', '/api/v1/conversations', key.key), []);
});
