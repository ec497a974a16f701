/**
 * The agent reply takes its caller from memory (api/middlewares/remembered-callers.ts) and its
 * statement checks that caller (api/middlewares/auth.ts callerCheck). Whatever changed since the
 * caller was remembered, a reply is answered as a freshly authenticated one would be, and a
 * refused reply stores nothing. Each change here is made after a first reply put the caller in
 * memory, as another node or an admin would make it.
 */
import test from 'ava';
import { callerCheck } from '../api/middlewares/auth.ts';
import { assertChecked, recallCaller } from '../api/middlewares/remembered-callers.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, type Account, type Workspace } from './helpers/fixtures.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

type Setup = { ws: Workspace; agent: Account; conversationId: string };

/** A business, an agent, a conversation, and one reply by the agent: the agent is remembered. */
async function setup(t: { is: (a: unknown, b: unknown, m?: string) => void; truthy: (a: unknown, m?: string) => void }): Promise<Setup> {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const agent = await addMember(app, ws.businessId, 'agent');
  const conversationId = (await app.request('POST', '/api/v1/conversations', { token: ws.token, body: { business_id: ws.businessId } })).body.id;
  const first = await reply(agent, conversationId, 'first');
  t.is(first.status, 200, first.text);
  t.truthy(recallCaller(agent.token), 'the agent is remembered after a reply');
  return { ws, agent, conversationId };
}

const reply = (who: Account, conversationId: string, content: string) =>
  app.request('POST', `/api/v1/conversations/${conversationId}/messages`, { token: who.token, body: { content } });

const stored = async (conversationId: string, content: string) =>
  Number((await app.sql('select count(*) as n from messages where conversation_id = $1 and content = $2', [conversationId, content]))[0].n);

test('a reply after signing out is 401 and stores nothing; the caller is forgotten', async (t) => {
  const { agent, conversationId } = await setup(t);
  t.is((await app.request('POST', '/api/v1/auth/logout', { token: agent.token })).status, 200);
  const res = await reply(agent, conversationId, 'after logout');
  t.is(res.status, 401, res.text);
  t.is(await stored(conversationId, 'after logout'), 0);
  t.is(recallCaller(agent.token), null);
});

test('a reply after the password changed (every session ended) is 401 and stores nothing', async (t) => {
  const { agent, conversationId } = await setup(t);
  const changed = await app.request('POST', '/api/v1/auth/password', {
    token: agent.token,
    body: { current_password: 'password123', new_password: 'another-password-456' },
  });
  t.is(changed.status, 200, changed.text);
  const res = await reply(agent, conversationId, 'after password change');
  t.is(res.status, 401, res.text);
  t.is(await stored(conversationId, 'after password change'), 0);
});

test('a reply after the member was removed is refused as for any caller without a business, and stores nothing', async (t) => {
  const { ws, agent, conversationId } = await setup(t);
  const [member] = await app.sql('select id from team_members where user_id = $1', [agent.userId]);
  t.is((await app.request('DELETE', `/api/v1/team/members/${member.id}`, { token: ws.token })).status, 200);
  const res = await reply(agent, conversationId, 'after removal');
  // What the same reply gets with a token no process has seen (signed in again).
  const login = await app.request('POST', '/api/v1/auth/login', { body: { email: agent.email, password: 'password123' } });
  const fresh = await reply({ ...agent, token: login.body.access_token }, conversationId, 'after removal');
  t.is(res.status, fresh.status, res.text);
  t.deepEqual(res.body, fresh.body);
  t.true(res.status >= 400 && res.status < 500);
  t.is(await stored(conversationId, 'after removal'), 0);
});

test('team-scoped visibility switched on: a reply to a conversation outside the agent’s teams is 404 and stores nothing', async (t) => {
  const { ws, agent, conversationId } = await setup(t);
  const on = await app.request('PATCH', '/api/v1/settings/assignment', { token: ws.token, body: { team_visibility: true } });
  t.is(on.status, 200, on.text);
  const res = await reply(agent, conversationId, 'hidden now');
  t.is(res.status, 404, res.text);
  t.is(await stored(conversationId, 'hidden now'), 0);
  // Switched off again: the reply goes, once.
  t.is((await app.request('PATCH', '/api/v1/settings/assignment', { token: ws.token, body: { team_visibility: false } })).status, 200);
  t.is((await reply(agent, conversationId, 'visible again')).status, 200);
  t.is(await stored(conversationId, 'visible again'), 1);
});

test('the business came to require two-factor sign-in: a reply is 403 and stores nothing', async (t) => {
  const { ws, agent, conversationId } = await setup(t);
  await app.sql('update businesses set require_two_factor = true where id = $1', [ws.businessId]);
  const res = await reply(agent, conversationId, 'without two-factor');
  t.is(res.status, 403, res.text);
  t.is(await stored(conversationId, 'without two-factor'), 0);
});

test('a role changed since: the reply is stored once, and the caller is remembered with the new role', async (t) => {
  const { agent, conversationId } = await setup(t);
  await app.sql(`update team_members set role = 'admin' where user_id = $1`, [agent.userId]);
  const res = await reply(agent, conversationId, 'as admin');
  t.is(res.status, 200, res.text);
  t.is(await stored(conversationId, 'as admin'), 1);
  t.is(recallCaller(agent.token)?.member?.role, 'admin');
});

test('a private note and a scheduled reply are checked too (they write outside the reply statement)', async (t) => {
  const { agent, conversationId } = await setup(t);
  t.is((await app.request('POST', '/api/v1/auth/logout', { token: agent.token })).status, 200);
  // Remembered again as the reply had it (the logout's own request authenticated afresh).
  t.truthy(recallCaller(agent.token));
  const note = await app.request('POST', `/api/v1/conversations/${conversationId}/messages`, {
    token: agent.token,
    body: { content: 'a note', private: true },
  });
  t.is(note.status, 401, note.text);
  t.is(await stored(conversationId, 'a note'), 0);
  const later = await app.request('POST', `/api/v1/conversations/${conversationId}/messages`, {
    token: agent.token,
    body: { content: 'later', send_at: new Date(Date.now() + 3_600_000).toISOString() },
  });
  t.is(later.status, 401, later.text);
  t.is(await stored(conversationId, 'later'), 0);
});

test('a route that takes a remembered caller and answers without checking it is a server error, never a silent pass', async (t) => {
  const { agent } = await setup(t);
  const unchecked = recallCaller(agent.token)!;
  t.throws(() => assertChecked(unchecked, 'POST /test'), { message: /never checked/ });
  const checked = recallCaller(agent.token)!;
  callerCheck(checked);
  t.notThrows(() => assertChecked(checked, 'POST /test'));
});
