import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, registerUser, type Account, type Workspace } from './helpers/fixtures.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

type Member = Account & { memberId: string };

async function invite(ws: Workspace, role: 'agent' | 'admin' = 'agent', name = 'Agent'): Promise<Member> {
  const user = await registerUser(app, name);
  const res = await app.request('POST', '/api/v1/team/invite', { token: ws.token, query: { email: user.email, role } });
  if (res.status !== 200) throw new Error(`invite failed: ${res.status} ${res.text}`);
  return { ...user, memberId: res.body.team_member_id };
}

/**
 * Invitation mails queued for an address (the registration's verification mail excluded).
 * The public graphile_worker.jobs view carries no payload, so this reads the private table.
 */
async function inviteJobs(email: string) {
  const rows = await app.sql(
    `select j.payload from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
     where k.identifier = 'send_email' and j.payload->>'to' = $1 and j.payload->>'subject' = 'You were added to a team on Parley'`,
    [email],
  );
  return rows.map((r) => r.payload as { to: string; subject: string; text: string });
}

type ConversationFields = {
  status?: string;
  assignee_id?: string | null;
  assigned_at?: string | null;
  handoff_requested_at?: string | null;
  handoff_reason?: string | null;
  resolved_at?: string | null;
  customer_id?: string | null;
  created_at?: string;
};

/** Conversations are written directly: the conversation endpoints are another group's. */
async function insertConversation(businessId: string, fields: ConversationFields = {}): Promise<string> {
  const columns = ['business_id', 'channel_type', ...Object.keys(fields)];
  const values = [businessId, 'webchat', ...Object.values(fields)];
  const rows = await app.sql(
    `insert into conversations (${columns.join(', ')}) values (${columns.map((_, i) => `$${i + 1}`).join(', ')}) returning id`,
    values,
  );
  return rows[0].id;
}

async function conversation(id: string) {
  const rows = await app.sql(`select status, assignee_id, assigned_at from conversations where id = $1`, [id]);
  return rows[0] as { status: string; assignee_id: string | null; assigned_at: Date | null };
}

const eventsNamed = (name: string, match: (payload: Record<string, unknown>) => boolean) => app.events.filter((e) => e.name === name && match(e.payload));

const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

// ---------- GET /team/members

test('members: the roster in agent-number order with the spec fields', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro', name: 'Olive Owner' });
  const admin = await invite(ws, 'admin', 'Ada Admin');
  const agent = await invite(ws, 'agent', 'Abe Agent');
  const res = await app.request('GET', '/api/v1/team/members', { token: agent.token });
  t.is(res.status, 200, res.text);
  t.deepEqual(
    res.body.map((m: any) => [m.user_id, m.email, m.name, m.role, m.status, m.is_active, m.agent_number]),
    [
      [ws.userId, ws.email, 'Olive Owner', 'owner', 'offline', true, 1],
      [admin.userId, admin.email, 'Ada Admin', 'admin', 'offline', true, 2],
      [agent.userId, agent.email, 'Abe Agent', 'agent', 'offline', true, 3],
    ],
  );
  t.is(res.body[1].id, admin.memberId);
  t.deepEqual(Object.keys(res.body[0]).sort(), ['agent_number', 'email', 'id', 'invited_at', 'is_active', 'name', 'role', 'status', 'user_id']);
  t.regex(res.body[0].invited_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

test("members: another business's members are not listed", async (t) => {
  const a = await createWorkspace(app, { plan: 'Mini' });
  const b = await createWorkspace(app, { plan: 'Mini' });
  await invite(b);
  const res = await app.request('GET', '/api/v1/team/members', { token: a.token });
  t.is(res.status, 200);
  t.deepEqual(
    res.body.map((m: any) => m.user_id),
    [a.userId],
  );
});

test('members: 400 without a business, 401 without a token', async (t) => {
  const loner = await registerUser(app);
  const res = await app.request('GET', '/api/v1/team/members', { token: loner.token });
  t.is(res.status, 400);
  t.deepEqual(res.body, { detail: 'User is not in a business' });
  t.is((await app.request('GET', '/api/v1/team/members')).status, 401);
});

// ---------- POST /team/invite

test('invite: immediate offline membership, next agent number, invitation mail queued', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const user = await registerUser(app, 'Ivy Invitee');
  const res = await app.request('POST', '/api/v1/team/invite', { token: ws.token, query: { email: user.email.toUpperCase() } });
  t.is(res.status, 200, res.text);
  t.deepEqual(Object.keys(res.body).sort(), ['message', 'team_member_id']);
  const rows = await app.sql('select business_id, user_id, role, status, is_active, agent_number from team_members where id = $1', [res.body.team_member_id]);
  t.deepEqual(rows[0], { business_id: ws.businessId, user_id: user.userId, role: 'agent', status: 'offline', is_active: true, agent_number: 2 });
  const business = await app.sql('select next_agent_number from businesses where id = $1', [ws.businessId]);
  t.is(business[0].next_agent_number, 3);
  const jobs = await inviteJobs(user.email);
  t.is(jobs.length, 1);
  // Parley's words first; what the inviter wrote (the team's name, their own) only below, labelled.
  t.true(jobs[0].text.startsWith('Hello,\n\nYou were added to a team on Parley as an agent.'), jobs[0].text);
  t.regex(jobs[0].text, /\n\nTeam name: .+\nAdded by: .+\n$/);
  t.notRegex(jobs[0].text.split('\n\n').slice(0, 3).join('\n'), /Team name|Added by/);
  const me = await app.request('GET', '/api/v1/auth/me', { token: user.token });
  t.is(me.body.team_role, 'agent');
  t.is(me.body.business.id, ws.businessId);
});

test('invite: role admin', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const admin = await invite(ws, 'admin');
  const rows = await app.sql('select role from team_members where id = $1', [admin.memberId]);
  t.is(rows[0].role, 'admin');
  t.regex((await inviteJobs(admin.email))[0].text, /as an admin/);
});

test('invite: a role other than agent or admin is 400, nothing written', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const user = await registerUser(app);
  for (const role of ['owner', 'superuser', '']) {
    const res = await app.request('POST', '/api/v1/team/invite', { token: ws.token, query: { email: user.email, role } });
    t.is(res.status, 400, role);
    t.is(typeof res.body.detail, 'string');
  }
  t.is((await app.sql('select 1 from team_members where user_id = $1', [user.userId])).length, 0);
  t.deepEqual(await inviteJobs(user.email), []);
});

test('invite: unknown user is 404 with no job', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const email = `nobody-${randomUUID()}@example.com`;
  const res = await app.request('POST', '/api/v1/team/invite', { token: ws.token, query: { email } });
  t.is(res.status, 404);
  t.is(typeof res.body.detail, 'string');
  t.deepEqual(await inviteJobs(email), []);
});

test('invite: already a member here, or of another business, is 400', async (t) => {
  const a = await createWorkspace(app, { plan: 'Pro' });
  const b = await createWorkspace(app, { plan: 'Pro' });
  const member = await invite(a);
  const again = await app.request('POST', '/api/v1/team/invite', { token: a.token, query: { email: member.email } });
  t.is(again.status, 400);
  const self = await app.request('POST', '/api/v1/team/invite', { token: a.token, query: { email: a.email } });
  t.is(self.status, 400);
  const other = await app.request('POST', '/api/v1/team/invite', { token: b.token, query: { email: member.email } });
  t.is(other.status, 400);
  t.deepEqual(other.body, { detail: 'User already belongs to another business' });
  const otherOwner = await app.request('POST', '/api/v1/team/invite', { token: b.token, query: { email: a.email } });
  t.deepEqual([otherOwner.status, otherOwner.body], [400, { detail: 'User already belongs to another business' }]);
  t.is((await inviteJobs(member.email)).length, 1);
  t.deepEqual(await inviteJobs(a.email), []);
  const next = await app.sql('select next_agent_number from businesses where id = $1', [b.businessId]);
  t.is(next[0].next_agent_number, 2);
});

test('invite: only the owner (403), nothing written', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const admin = await invite(ws, 'admin');
  const agent = await invite(ws, 'agent');
  const user = await registerUser(app);
  for (const caller of [admin, agent]) {
    const res = await app.request('POST', '/api/v1/team/invite', { token: caller.token, query: { email: user.email } });
    t.is(res.status, 403);
    t.is(typeof res.body.detail, 'string');
  }
  t.deepEqual(await inviteJobs(user.email), []);
  t.is((await app.sql('select 1 from team_members where user_id = $1', [user.userId])).length, 0);
});

test('invite: 400 for a caller without a business', async (t) => {
  const loner = await registerUser(app);
  const user = await registerUser(app);
  const res = await app.request('POST', '/api/v1/team/invite', { token: loner.token, query: { email: user.email } });
  t.is(res.status, 400);
  t.deepEqual(await inviteJobs(user.email), []);
});

test('invite: Free allows no additional agent (402), nothing written', async (t) => {
  const ws = await createWorkspace(app);
  const user = await registerUser(app);
  const res = await app.request('POST', '/api/v1/team/invite', { token: ws.token, query: { email: user.email } });
  t.is(res.status, 402);
  t.like(res.body, { error: 'limit_exceeded', plan: 'Free', feature: 'agents', current: 0, limit: 0 });
  t.is(typeof res.body.message, 'string');
  t.deepEqual(await inviteJobs(user.email), []);
  t.is((await app.sql('select 1 from team_members where user_id = $1', [user.userId])).length, 0);
  const next = await app.sql('select next_agent_number from businesses where id = $1', [ws.businessId]);
  t.is(next[0].next_agent_number, 2);
});

test('invite: Mini allows two additional agents, the third is 402', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  await invite(ws);
  await invite(ws, 'admin');
  const user = await registerUser(app);
  const res = await app.request('POST', '/api/v1/team/invite', { token: ws.token, query: { email: user.email } });
  t.is(res.status, 402);
  t.like(res.body, { error: 'limit_exceeded', plan: 'Mini', feature: 'agents', current: 2, limit: 2 });
  t.deepEqual(await inviteJobs(user.email), []);
});

test('invite: Pro allows five additional agents', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  for (let i = 0; i < 5; i++) await invite(ws);
  const user = await registerUser(app);
  const res = await app.request('POST', '/api/v1/team/invite', { token: ws.token, query: { email: user.email } });
  t.is(res.status, 402);
  t.like(res.body, { plan: 'Pro', current: 5, limit: 5 });
});

test('invite: concurrent invites never exceed the plan or share an agent number', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const users = await Promise.all([1, 2, 3, 4].map(() => registerUser(app)));
  const results = await Promise.all(users.map((u) => app.request('POST', '/api/v1/team/invite', { token: ws.token, query: { email: u.email } })));
  t.deepEqual(results.map((r) => r.status).sort(), [200, 200, 402, 402]);
  const rows = await app.sql('select agent_number from team_members where business_id = $1 order by agent_number', [ws.businessId]);
  t.deepEqual(
    rows.map((r) => r.agent_number),
    [1, 2, 3],
  );
});

test('invite: missing or malformed email is 422', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const missing = await app.request('POST', '/api/v1/team/invite', { token: ws.token });
  t.is(missing.status, 422);
  t.deepEqual(
    missing.body.detail.map((d: any) => [d.loc, d.type]),
    [[['query', 'email'], 'missing']],
  );
  const bad = await app.request('POST', '/api/v1/team/invite', { token: ws.token, query: { email: 'not-an-email' } });
  t.is(bad.status, 422);
  t.deepEqual(bad.body.detail[0].loc, ['query', 'email']);
  t.is((await app.request('POST', '/api/v1/team/invite', { query: { email: 'a@b.co' } })).status, 401);
});

// ---------- DELETE /team/members/{member_id}

test('remove: membership deleted, open and pending conversations unassigned, number never reused', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const agent = await invite(ws);
  const other = await invite(ws);
  const open = await insertConversation(ws.businessId, { status: 'open', assignee_id: agent.userId, assigned_at: ago(5) });
  const pending = await insertConversation(ws.businessId, { status: 'pending', assignee_id: agent.userId, assigned_at: ago(5) });
  const resolved = await insertConversation(ws.businessId, { status: 'resolved', assignee_id: agent.userId, assigned_at: ago(5), resolved_at: ago(1) });
  const others = await insertConversation(ws.businessId, { status: 'open', assignee_id: other.userId, assigned_at: ago(5) });

  const res = await app.request('DELETE', `/api/v1/team/members/${agent.memberId}`, { token: ws.token });
  t.is(res.status, 200, res.text);
  t.deepEqual(Object.keys(res.body), ['message']);
  t.is((await app.sql('select 1 from team_members where id = $1', [agent.memberId])).length, 0);
  t.like(await conversation(open), { status: 'open', assignee_id: null, assigned_at: null });
  t.like(await conversation(pending), { status: 'pending', assignee_id: null });
  t.like(await conversation(resolved), { status: 'resolved', assignee_id: agent.userId });
  t.like(await conversation(others), { assignee_id: other.userId });
  const updated = eventsNamed('conversation_updated', (p) => p.conversation_id === open || p.conversation_id === pending);
  t.is(updated.length, 2);
  t.deepEqual(updated[0].rooms, [`business:${ws.businessId}`]);
  t.is(updated[0].payload.assignee_id, null);

  // The removed user is no longer in the business, and may be invited again with a new number.
  const me = await app.request('GET', '/api/v1/auth/me', { token: agent.token });
  t.is(me.body.business, null);
  t.is((await app.request('GET', '/api/v1/team/members', { token: agent.token })).status, 400);
  const back = await app.request('POST', '/api/v1/team/invite', { token: ws.token, query: { email: agent.email } });
  t.is(back.status, 200, back.text);
  const rows = await app.sql('select agent_number from team_members where id = $1', [back.body.team_member_id]);
  t.is(rows[0].agent_number, 4);
});

test('remove: frees a plan slot', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const first = await invite(ws);
  await invite(ws);
  const user = await registerUser(app);
  t.is((await app.request('POST', '/api/v1/team/invite', { token: ws.token, query: { email: user.email } })).status, 402);
  t.is((await app.request('DELETE', `/api/v1/team/members/${first.memberId}`, { token: ws.token })).status, 200);
  t.is((await app.request('POST', '/api/v1/team/invite', { token: ws.token, query: { email: user.email } })).status, 200);
});

test('remove: the owner cannot be removed (400)', async (t) => {
  const ws = await createWorkspace(app);
  const rows = await app.sql(`select id from team_members where user_id = $1`, [ws.userId]);
  const res = await app.request('DELETE', `/api/v1/team/members/${rows[0].id}`, { token: ws.token });
  t.is(res.status, 400);
  t.is(typeof res.body.detail, 'string');
  t.is((await app.sql('select 1 from team_members where id = $1', [rows[0].id])).length, 1);
});

test('remove: only the owner (403)', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const admin = await invite(ws, 'admin');
  const agent = await invite(ws, 'agent');
  for (const caller of [admin, agent]) {
    const res = await app.request('DELETE', `/api/v1/team/members/${agent.memberId}`, { token: caller.token });
    t.is(res.status, 403);
  }
  t.is((await app.sql('select 1 from team_members where id = $1', [agent.memberId])).length, 1);
});

test("remove: unknown id and another business's member are 404, a non-UUID is 422", async (t) => {
  const a = await createWorkspace(app, { plan: 'Mini' });
  const b = await createWorkspace(app, { plan: 'Mini' });
  const bAgent = await invite(b);
  const unknown = await app.request('DELETE', `/api/v1/team/members/${randomUUID()}`, { token: a.token });
  t.is(unknown.status, 404);
  const foreign = await app.request('DELETE', `/api/v1/team/members/${bAgent.memberId}`, { token: a.token });
  t.is(foreign.status, 404);
  t.is((await app.sql('select 1 from team_members where id = $1', [bAgent.memberId])).length, 1);
  const bad = await app.request('DELETE', '/api/v1/team/members/42', { token: a.token });
  t.is(bad.status, 422);
  t.deepEqual(
    bad.body.detail.map((d: any) => [d.loc, d.type]),
    [[['path', 'member_id'], 'uuid_parsing']],
  );
});

test('leave: an agent leaves on their own; their conversations lose the assignee; they may then create their own workspace', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const agent = await invite(ws);
  const conversation = await app.request('POST', '/api/v1/conversations/', { token: ws.token, body: { business_id: ws.businessId } });
  t.is(conversation.status, 200, conversation.text);
  t.is((await app.request('POST', `/api/v1/team/assign/${conversation.body.id}`, { token: ws.token, query: { agent_id: agent.userId } })).status, 200);
  const before = await app.request('GET', '/api/v1/auth/me', { token: agent.token });
  t.true(before.body.can['team.leave']);
  const res = await app.request('POST', '/api/v1/team/leave', { token: agent.token });
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body, { message: 'You left the team' });
  t.is((await app.sql('select 1 from team_members where id = $1', [agent.memberId])).length, 0);
  t.deepEqual((await app.sql('select assignee_id from conversations where id = $1', [conversation.body.id]))[0], { assignee_id: null });
  const me = await app.request('GET', '/api/v1/auth/me', { token: agent.token });
  t.is(me.status, 200, 'the account and its token stay');
  t.is(me.body.business, null);
  const own = await app.request('POST', '/api/v1/business', { token: agent.token, body: { name: 'My own' } });
  t.is(own.status, 200, own.text);
  t.is((await app.request('POST', '/api/v1/team/leave', { token: agent.token })).status, 403, 'the owner of the new one cannot leave it');
});

test('leave: the owner cannot (403, nothing changes); without a business it is 400; without a token 401', async (t) => {
  const ws = await createWorkspace(app);
  const res = await app.request('POST', '/api/v1/team/leave', { token: ws.token });
  t.is(res.status, 403);
  t.deepEqual(res.body, { detail: 'The business owner cannot leave their own business' });
  t.is((await app.sql('select 1 from team_members where user_id = $1', [ws.userId])).length, 1);
  t.false((await app.request('GET', '/api/v1/auth/me', { token: ws.token })).body.can['team.leave']);
  const loner = await registerUser(app);
  const none = await app.request('POST', '/api/v1/team/leave', { token: loner.token });
  t.deepEqual([none.status, none.body], [400, { detail: 'User is not in a business' }]);
  t.is((await app.request('POST', '/api/v1/team/leave')).status, 401);
});

// ---------- PATCH /team/status

test('status: sets the value and publishes agent_status_changed to the business', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const agent = await invite(ws);
  for (const status of ['live', 'away', 'offline']) {
    const res = await app.request('PATCH', '/api/v1/team/status', { token: agent.token, body: { status } });
    t.is(res.status, 200, res.text);
    t.deepEqual(res.body, { status });
    const rows = await app.sql('select status from team_members where id = $1', [agent.memberId]);
    t.is(rows[0].status, status);
  }
  const events = eventsNamed('agent_status_changed', (p) => p.member_id === agent.memberId);
  t.deepEqual(
    events.map((e) => e.payload.status),
    ['live', 'away', 'offline'],
  );
  const [first] = events;
  t.deepEqual(first.rooms, [`business:${ws.businessId}`]);
  t.deepEqual(Object.keys(first.payload).sort(), ['at', 'business_id', 'member_id', 'status', 'user_id']);
  t.like(first.payload, { business_id: ws.businessId, user_id: agent.userId, member_id: agent.memberId });
  t.regex(first.payload.at as string, /^\d{4}-\d\d-\d\dT.*Z$/);
  const roster = await app.request('GET', '/api/v1/team/members', { token: ws.token });
  t.is(roster.body.find((m: any) => m.id === agent.memberId).status, 'offline');
});

test('status: a value outside the three states is 400 and changes nothing', async (t) => {
  const ws = await createWorkspace(app);
  const before = app.events.length;
  for (const status of ['busy', 'LIVE', '']) {
    const res = await app.request('PATCH', '/api/v1/team/status', { token: ws.token, body: { status } });
    t.is(res.status, 400, status);
    t.is(typeof res.body.detail, 'string');
  }
  const rows = await app.sql('select status from team_members where user_id = $1', [ws.userId]);
  t.is(rows[0].status, 'offline');
  t.is(app.events.slice(before).filter((e) => e.name === 'agent_status_changed' && e.payload.user_id === ws.userId).length, 0);
});

test('status: a missing or non-string status is 422', async (t) => {
  const ws = await createWorkspace(app);
  const missing = await app.request('PATCH', '/api/v1/team/status', { token: ws.token, body: {} });
  t.is(missing.status, 422);
  t.deepEqual(
    missing.body.detail.map((d: any) => [d.loc, d.type]),
    [[['body', 'status'], 'missing']],
  );
  const number = await app.request('PATCH', '/api/v1/team/status', { token: ws.token, body: { status: 1 } });
  t.is(number.status, 422);
  t.deepEqual(number.body.detail[0].type, 'string_type');
});

test('status: 400 without a business, 401 without a token', async (t) => {
  const loner = await registerUser(app);
  const res = await app.request('PATCH', '/api/v1/team/status', { token: loner.token, body: { status: 'live' } });
  t.is(res.status, 400);
  t.deepEqual(res.body, { detail: 'User is not in a business' });
  t.is((await app.request('PATCH', '/api/v1/team/status', { body: { status: 'live' } })).status, 401);
});

// ---------- GET /team/pending-handoffs

test('pending handoffs: flagged and not taken over, newest first, scoped to the business', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const other = await createWorkspace(app, { plan: 'Mini' });
  const agent = await invite(ws);
  const customers = await app.sql(`insert into customers (business_id, name) values ($1, 'Cleo') returning id`, [ws.businessId]);
  const customerId = customers[0].id;

  const older = await insertConversation(ws.businessId, {
    status: 'open',
    handoff_requested_at: ago(30),
    handoff_reason: 'Asked for a refund',
    customer_id: customerId,
  });
  const newest = await insertConversation(ws.businessId, { status: 'pending', handoff_requested_at: ago(5), handoff_reason: null });
  const assignedBefore = await insertConversation(ws.businessId, {
    status: 'open',
    assignee_id: agent.userId,
    assigned_at: ago(60),
    handoff_requested_at: ago(20),
    handoff_reason: 'Angry customer',
  });
  // Taken over or finished since the request: not pending.
  await insertConversation(ws.businessId, { status: 'open', assignee_id: agent.userId, assigned_at: ago(10), handoff_requested_at: ago(15) });
  await insertConversation(ws.businessId, { status: 'resolved', handoff_requested_at: ago(15), resolved_at: ago(10) });
  await insertConversation(ws.businessId, { status: 'closed', handoff_requested_at: ago(15) });
  await insertConversation(ws.businessId, { status: 'open', handoff_requested_at: ago(40), resolved_at: ago(35) });
  await insertConversation(ws.businessId, { status: 'open' });
  await insertConversation(other.businessId, { status: 'open', handoff_requested_at: ago(1) });

  const res = await app.request('GET', '/api/v1/team/pending-handoffs', { token: agent.token });
  t.is(res.status, 200, res.text);
  t.deepEqual(
    res.body.map((c: any) => c.id),
    [newest, assignedBefore, older],
  );
  const item = res.body.find((c: any) => c.id === older);
  t.deepEqual(Object.keys(item).sort(), ['created_at', 'customer_id', 'handoff_reason', 'id', 'status']);
  t.like(item, { customer_id: customerId, handoff_reason: 'Asked for a refund', status: 'open' });
  t.like(res.body[0], { customer_id: null, handoff_reason: '', status: 'pending' });

  // Assigning through the team endpoint takes it over.
  const assigned = await app.request('POST', `/api/v1/team/assign/${older}`, { token: ws.token, query: { agent_id: agent.userId } });
  t.is(assigned.status, 200, assigned.text);
  const after = await app.request('GET', '/api/v1/team/pending-handoffs', { token: ws.token });
  t.deepEqual(
    after.body.map((c: any) => c.id),
    [newest, assignedBefore],
  );

  const theirs = await app.request('GET', '/api/v1/team/pending-handoffs', { token: other.token });
  t.is(theirs.body.length, 1);
});

test('pending handoffs: 400 without a business', async (t) => {
  const loner = await registerUser(app);
  const res = await app.request('GET', '/api/v1/team/pending-handoffs', { token: loner.token });
  t.is(res.status, 400);
  t.is((await app.request('GET', '/api/v1/team/pending-handoffs')).status, 401);
});

// ---------- POST /team/assign/{conversation_id}

test('assign: sets the assignee, pending becomes open, events to the assignee and the business', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const agent = await invite(ws);
  const id = await insertConversation(ws.businessId, { status: 'pending' });
  const res = await app.request('POST', `/api/v1/team/assign/${id}`, { token: ws.token, query: { agent_id: agent.userId } });
  t.is(res.status, 200, res.text);
  t.deepEqual(Object.keys(res.body), ['message']);
  const row = await conversation(id);
  t.is(row.status, 'open');
  t.is(row.assignee_id, agent.userId);
  t.truthy(row.assigned_at);

  const [assigned] = eventsNamed('conversation_assigned', (p) => p.conversation_id === id);
  t.deepEqual(assigned.rooms, [`user:${agent.userId}`]);
  t.deepEqual(Object.keys(assigned.payload).sort(), ['assigned_by', 'assignee_id', 'at', 'business_id', 'conversation_id']);
  t.like(assigned.payload, { business_id: ws.businessId, assignee_id: agent.userId, assigned_by: ws.userId });
  t.is(new Date(assigned.payload.at as string).getTime(), row.assigned_at!.getTime());
  const [updated] = eventsNamed('conversation_updated', (p) => p.conversation_id === id);
  t.deepEqual(updated.rooms, [`business:${ws.businessId}`]);
  t.like(updated.payload, { status: 'open', assignee_id: agent.userId });
});

test('assign: other states are kept; an admin may assign, also to themselves', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const admin = await invite(ws, 'admin');
  const resolved = await insertConversation(ws.businessId, { status: 'resolved', resolved_at: ago(1) });
  const res = await app.request('POST', `/api/v1/team/assign/${resolved}`, { token: admin.token, query: { agent_id: admin.userId } });
  t.is(res.status, 200, res.text);
  t.like(await conversation(resolved), { status: 'resolved', assignee_id: admin.userId });
  const open = await insertConversation(ws.businessId);
  const toOwner = await app.request('POST', `/api/v1/team/assign/${open}`, { token: admin.token, query: { agent_id: ws.userId } });
  t.is(toOwner.status, 200);
  t.like(await conversation(open), { status: 'open', assignee_id: ws.userId });
});

test('assign: an agent may not assign (403)', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const agent = await invite(ws);
  const id = await insertConversation(ws.businessId, { status: 'pending' });
  const res = await app.request('POST', `/api/v1/team/assign/${id}`, { token: agent.token, query: { agent_id: agent.userId } });
  t.is(res.status, 403);
  t.like(await conversation(id), { status: 'pending', assignee_id: null });
  t.deepEqual(
    eventsNamed('conversation_assigned', (p) => p.conversation_id === id),
    [],
  );
});

test("assign: unknown or another business's conversation is 404", async (t) => {
  const a = await createWorkspace(app, { plan: 'Mini' });
  const b = await createWorkspace(app, { plan: 'Mini' });
  const theirs = await insertConversation(b.businessId);
  const foreign = await app.request('POST', `/api/v1/team/assign/${theirs}`, { token: a.token, query: { agent_id: a.userId } });
  t.is(foreign.status, 404);
  t.like(await conversation(theirs), { assignee_id: null });
  // Even naming the other business's own owner as the agent.
  const foreignAgent = await app.request('POST', `/api/v1/team/assign/${theirs}`, { token: a.token, query: { agent_id: b.userId } });
  t.is(foreignAgent.status, 404);
  const unknown = await app.request('POST', `/api/v1/team/assign/${randomUUID()}`, { token: a.token, query: { agent_id: a.userId } });
  t.is(unknown.status, 404);
  t.is(typeof unknown.body.detail, 'string');
});

test('assign: an agent who is not an active member of the business is 400', async (t) => {
  const a = await createWorkspace(app, { plan: 'Mini' });
  const b = await createWorkspace(app, { plan: 'Mini' });
  const loner = await registerUser(app);
  const removed = await invite(a);
  await app.request('DELETE', `/api/v1/team/members/${removed.memberId}`, { token: a.token });
  const inactive = await invite(a);
  await app.sql('update team_members set is_active = false where id = $1', [inactive.memberId]);
  const id = await insertConversation(a.businessId, { status: 'pending' });
  for (const agentId of [b.userId, loner.userId, removed.userId, inactive.userId, randomUUID()]) {
    const res = await app.request('POST', `/api/v1/team/assign/${id}`, { token: a.token, query: { agent_id: agentId } });
    t.is(res.status, 400, agentId);
    t.is(typeof res.body.detail, 'string');
  }
  t.like(await conversation(id), { status: 'pending', assignee_id: null });
});

test('assign: bad ids are 422, no business is 400', async (t) => {
  const ws = await createWorkspace(app);
  const id = await insertConversation(ws.businessId);
  const missing = await app.request('POST', `/api/v1/team/assign/${id}`, { token: ws.token });
  t.is(missing.status, 422);
  t.deepEqual(
    missing.body.detail.map((d: any) => [d.loc, d.type]),
    [[['query', 'agent_id'], 'missing']],
  );
  const badAgent = await app.request('POST', `/api/v1/team/assign/${id}`, { token: ws.token, query: { agent_id: '7' } });
  t.deepEqual([badAgent.status, badAgent.body.detail[0].type], [422, 'uuid_parsing']);
  const badConversation = await app.request('POST', '/api/v1/team/assign/nope', { token: ws.token, query: { agent_id: ws.userId } });
  t.deepEqual([badConversation.status, badConversation.body.detail[0].loc], [422, ['path', 'conversation_id']]);
  const loner = await registerUser(app);
  const none = await app.request('POST', `/api/v1/team/assign/${id}`, { token: loner.token, query: { agent_id: ws.userId } });
  t.is(none.status, 400);
  t.is((await app.request('POST', `/api/v1/team/assign/${id}`, { query: { agent_id: ws.userId } })).status, 401);
});

test('assign and remove at the same time never leave a conversation with a removed assignee', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const agents = await Promise.all([1, 2, 3].map(() => invite(ws)));
  const ids = await Promise.all(agents.map(() => insertConversation(ws.businessId, { status: 'pending' })));
  const results = await Promise.all(
    agents.flatMap((agent, i) => [
      app.request('POST', `/api/v1/team/assign/${ids[i]}`, { token: ws.token, query: { agent_id: agent.userId } }),
      app.request('DELETE', `/api/v1/team/members/${agent.memberId}`, { token: ws.token }),
    ]),
  );
  t.true(
    results.every((r) => r.status === 200 || r.status === 400),
    results.map((r) => `${r.status} ${r.text}`).join('\n'),
  );
  const rows = await app.sql(
    `select c.id from conversations c where c.id = any($1) and c.assignee_id is not null
     and not exists (select 1 from team_members m where m.user_id = c.assignee_id and m.business_id = c.business_id)`,
    [ids],
  );
  t.deepEqual(rows, []);
});
