/**
 * Accounts and trust, third round (issue #36), against the real API and PostgreSQL: each probe
 * of the issue as it was reported, now refused. The second factor cannot be turned on, API keys
 * made or every session ended with a stolen session alone; a reset link alone changes nothing on
 * an account with two-factor on; CSAT tokens are never shown to members, refuse members, expire
 * and are replaced when asked again; a canned response does not render a hidden conversation;
 * NUL in the CSAT form and in a CSV cell is a 422/row error, not a 500; IPv6 forms of loopback
 * are refused as webhook hosts. Private hosts are refused in this file (ALLOW_PRIVATE_HOSTS=false).
 */
import test from 'ava';
import { io as connectClient, type Socket } from 'socket.io-client';
import { base32Decode, totpAt } from '../core/domain/accounts/totp.ts';
import { requestCsat } from '../core/commands/csat.ts';
import { handleEvents } from '../core/events/pipeline.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, registerUser } from './helpers/fixtures.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp({ env: { ALLOW_PRIVATE_HOSTS: 'false', PUBLIC_URL: 'https://parley.example' } });
});
const sockets: Socket[] = [];
test.after.always(async () => {
  for (const socket of sockets) socket.close();
  await app?.close();
});

async function ok(method: string, path: string, token: string, body?: unknown): Promise<any> {
  const res = await app.request(method, path, { token, body });
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}
const one = async (text: string, params: unknown[] = []): Promise<any> => (await app.sql(text, params))[0];
const PASSWORD = 'password123'; // registerUser's
const codeOf = (secret: string, offsetSteps = 0) => totpAt(base32Decode(secret)!, Date.now() + offsetSteps * 30_000);
const memberId = async (userId: string): Promise<string> => (await one('select id from team_members where user_id = $1', [userId])).id;

// ─── item 7: a canned response does not render a hidden conversation ─────────────────────────

test('item 7: rendering a canned response for a conversation hidden by team visibility is 404, as the conversation paths are', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const outsider = await addMember(app, ws.businessId, 'agent', { name: 'Outsider' });
  const insider = await addMember(app, ws.businessId, 'agent', { name: 'Insider' });
  const team = await ok('POST', '/api/v1/teams', ws.token, { name: 'Closed' });
  await ok('PUT', `/api/v1/teams/${team.id}/members`, ws.token, { member_ids: [await memberId(insider.userId)] });
  const customer = await one(`insert into customers (business_id, name, email) values ($1, 'Secret Customer', 'secret@example.com') returning id`, [
    ws.businessId,
  ]);
  const conv = (await ok('POST', '/api/v1/conversations', ws.token, { business_id: ws.businessId, customer_id: customer.id })).id;
  await ok('PUT', `/api/v1/conversations/${conv}/team`, ws.token, { team_id: team.id });
  await ok('PATCH', '/api/v1/settings/assignment', ws.token, { team_visibility: true });
  const canned = await ok('POST', '/api/v1/canned-responses', ws.token, { short_code: 'hi', content: 'Hi {{customer.name}} <{{customer.email}}>' });

  const render = (token: string, conversationId: string) =>
    app.request('POST', `/api/v1/canned-responses/${canned.id}/render`, { token, body: { conversation_id: conversationId } });
  const hidden = await render(outsider.token, conv);
  t.deepEqual([hidden.status, hidden.body], [404, { detail: 'Conversation not found' }]);
  t.false(hidden.text.includes('Secret'));
  // The same answer as a conversation path and as a random id.
  t.is((await app.request('GET', `/api/v1/conversations/${conv}`, { token: outsider.token })).status, 404);
  t.deepEqual((await render(outsider.token, '00000000-0000-4000-8000-000000000000')).body, hidden.body);
  // Those who may see it get it filled.
  t.is((await render(insider.token, conv)).body.content, 'Hi Secret Customer <secret@example.com>');
  t.is((await render(ws.token, conv)).body.content, 'Hi Secret Customer <secret@example.com>');
});

// ─── item 8: NUL is a 422 naming the field or line, never a 500 ──────────────────────────────

test('item 8: a NUL in a CSV attr.* cell is that row’s error (line and column), the other rows are imported', async (t) => {
  const ws = await createWorkspace(app);
  const csv = 'name,email,attr.plan\nAnn,ann@example.com,pro\nBob,bob@example.com,gold\u0000x\n';
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'customers.csv');
  const res = await fetch(`${app.url}/api/v1/customers/import`, { method: 'POST', headers: { authorization: `Bearer ${ws.token}` }, body: form });
  const body = (await res.json()) as any;
  t.is(res.status, 200, JSON.stringify(body));
  t.like(body, { created: 1 });
  t.is(body.errors.length, 1);
  t.like(body.errors[0], { line: 3, column: 'attr.plan' });
  t.regex(body.errors[0].msg, /NUL/);
  t.is((await one('select count(*)::int as n from customers where business_id = $1', [ws.businessId])).n, 1);
});

// ─── item 9: IPv6 forms of loopback are refused as webhook hosts ─────────────────────────────

test('item 9: webhook URLs on IPv6 forms of loopback (IPv4-compatible, local NAT64, 6to4) are refused, and nothing is stored', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  for (const url of ['http://[::127.0.0.1]/hook', 'http://[64:ff9b:1::7f00:1]/hook', 'http://[2002:7f00:1::]/hook', 'http://[64:ff9b::a00:1]/hook']) {
    const res = await app.request('POST', '/api/v1/webhooks', { token: ws.token, body: { url, events: ['message.created'] } });
    t.is(res.status, 400, `${url}: ${res.text}`);
    t.regex(JSON.stringify(res.body), /webhook URLs may not use/, url);
  }
  t.is((await one('select count(*)::int as n from webhook_endpoints where business_id = $1', [ws.businessId])).n, 0);
});

// ─── item 1: a stolen session alone cannot turn two-factor on, mint API keys or sign out everywhere ─

test('item 1: turning two-factor on needs the password: the stolen-session probe (setup → enable with the attacker’s code) changes nothing', async (t) => {
  const victim = await registerUser(app, 'Victim');
  // The attacker holds only the access token.
  const setup = await ok('POST', '/api/v1/auth/two-factor/setup', victim.token);
  const enable = (body: Record<string, unknown>) => app.request('POST', '/api/v1/auth/two-factor/enable', { token: victim.token, body });
  const missing = await enable({ code: codeOf(setup.secret) });
  t.is(missing.status, 422);
  t.like(missing.body.detail[0], { loc: ['body', 'password'], type: 'missing' });
  const wrong = await enable({ code: codeOf(setup.secret), password: 'guessed wrong' });
  t.deepEqual([wrong.status, wrong.body], [400, { detail: 'Incorrect password' }]);
  t.is((await one('select two_factor_secret from users where id = $1', [victim.userId])).two_factor_secret, null);
  // Signing out everywhere with the session alone fails too.
  t.is((await app.request('POST', '/api/v1/auth/logout-all', { token: victim.token })).status, 422);
  t.is((await app.request('POST', '/api/v1/auth/logout-all', { token: victim.token, body: { password: 'guessed wrong' } })).status, 400);
  // So the owner still signs in with the password alone.
  const login = await app.request('POST', '/api/v1/auth/login', { body: { email: victim.email, password: PASSWORD } });
  t.deepEqual(Object.keys(login.body).sort(), ['access_token', 'token_type']);
  t.is((await app.request('GET', '/api/v1/auth/me', { token: victim.token })).status, 200, 'the session is still there');

  // The owner, with the password, turns it on; then signs out everywhere with a code instead of the password.
  t.is((await enable({ code: codeOf(setup.secret), password: PASSWORD })).status, 200);
  t.is((await app.request('POST', '/api/v1/auth/logout-all', { token: victim.token, body: { code: codeOf(setup.secret, 1) } })).status, 200);
  t.is((await app.request('GET', '/api/v1/auth/me', { token: victim.token })).status, 401);
});

test('item 1: an API key is made only with the password (or a second factor); an account without a password is told how to get one', async (t) => {
  const ws = await createWorkspace(app);
  const make = (body: Record<string, unknown>) =>
    app.request('POST', '/api/v1/api-keys', { token: ws.token, body: { name: 'CRM', scopes: ['read'], ...body } });
  const missing = await make({});
  t.is(missing.status, 422);
  t.like(missing.body.detail[0], { loc: ['body', 'password'] });
  t.is((await make({ password: 'nope nope' })).status, 400);
  t.is((await make({ code: '123456' })).status, 400, 'a code means nothing while two-factor is off');
  t.is((await make({ password: PASSWORD, code: '123456' })).status, 422, 'exactly one proof');
  t.is((await one('select count(*)::int as n from api_keys where business_id = $1', [ws.businessId])).n, 0);
  const made = await make({ password: PASSWORD });
  t.is(made.status, 200, made.text);
  t.regex(made.body.key, /^prl_/);
  // A Google-only account (no password) is told to set one.
  await app.sql('update users set password_hash = null where id = $1', [ws.userId]);
  const noPassword = await make({ password: PASSWORD });
  t.is(noPassword.status, 400);
  t.regex(noPassword.body.detail, /Forgot password/);
});

// ─── item 3 (and 8's CSAT form): ratings come only from customers ────────────────────────────

/** The conversation's recorded domain events through their subscribers (the CSAT request is one: core/subscribers/csat.ts). */
async function subscribersRun(conversationId: string): Promise<void> {
  const pending = await app.sql(`select id from domain_events where conversation_id = $1 and handled_at is null order by seq`, [conversationId]);
  if (pending.length)
    await handleEvents(
      app.deps,
      pending.map((r: { id: string }) => r.id),
    );
}

/** A resolved conversation asked for its rating (the csat_request job's command, run here): its token. */
async function askedForRating(ws: { token: string; businessId: string }, conversationId: string): Promise<string> {
  await app.sql(`update conversations set status = 'resolved', resolved_at = now() where id = $1`, [conversationId]);
  await app.deps.db.transaction((tx) => requestCsat(tx, conversationId));
  return (await one('select token from csat_surveys where conversation_id = $1', [conversationId])).token;
}

test('item 3: members never read a usable token, a signed-in member’s rating is refused, tokens expire and a new question replaces the old', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const agent = await addMember(app, ws.businessId, 'agent', { name: 'Self Rater' });
  await ok('PATCH', '/api/v1/settings/csat', ws.token, { enabled: true, question: 'How did we do?' });
  const conv = (await ok('POST', '/api/v1/conversations', ws.token, { business_id: ws.businessId })).id;
  await ok('PUT', `/api/v1/conversations/${conv}/assign/2`, ws.token);
  const token = await askedForRating(ws, conv);

  // The thread and search show the question, never the token.
  const messages = await app.request('GET', `/api/v1/conversations/${conv}/messages`, { token: agent.token });
  t.true(messages.text.includes('How did we do?'));
  t.false(messages.text.includes(token));
  t.false(messages.text.includes('/csat/'));
  t.is((await one(`select content from messages where conversation_id = $1 and sender_type = 'system'`, [conv])).content, 'How did we do?');

  // The assigned agent (or any member, or a member's API key) who got the token anyway is refused.
  const rate = (body: unknown, headers: Record<string, string> = {}) => app.request('POST', `/api/v1/csat/${token}`, { body, headers });
  const self = await rate({ rating: 5, comment: 'Great agent' }, { authorization: `Bearer ${agent.token}` });
  t.is(self.status, 403);
  t.regex(self.body.detail, /customer/);
  const key = await ok('POST', '/api/v1/api-keys', ws.token, { name: 'k', scopes: ['read', 'write'], password: PASSWORD });
  t.is((await rate({ rating: 5 }, { authorization: `Bearer ${key.key}` })).status, 403);
  t.is((await one('select rating from csat_surveys where conversation_id = $1', [conv])).rating, null, 'nothing was counted');

  // Reopened and resolved again, unanswered: a new question replaces it; the old token is gone.
  await ok('PUT', `/api/v1/conversations/${conv}/reopen`, ws.token);
  await ok('PUT', `/api/v1/conversations/${conv}/resolve`, ws.token);
  await subscribersRun(conv);
  t.is((await one(`select count(*)::int as n from graphile_worker.jobs where task_identifier = 'csat_request' and key = $1`, [`csat:${conv}`])).n, 1);
  await app.deps.db.transaction((tx) => requestCsat(tx, conv));
  const fresh = (await one('select token from csat_surveys where conversation_id = $1', [conv])).token;
  t.not(fresh, token);
  t.is((await rate({ rating: 1 })).status, 404);

  // Fourteen days later the link has expired: 410 through the API and the page.
  await app.sql(`update csat_surveys set asked_at = now() - interval '14 days 1 minute' where conversation_id = $1`, [conv]);
  const late = await app.request('POST', `/api/v1/csat/${fresh}`, { body: { rating: 4 } });
  t.deepEqual([late.status, late.body], [410, { detail: 'This rating link has expired' }]);
  const page = await app.request('GET', `/csat/${fresh}`);
  t.is(page.status, 410);
  t.true(page.text.includes('expired'));

  // Within the time, the customer (no credentials; or another business's member) rates.
  await app.sql(`update csat_surveys set asked_at = now() - interval '13 days' where conversation_id = $1`, [conv]);
  const stranger = await createWorkspace(app);
  const rated = await app.request('POST', `/api/v1/csat/${fresh}`, { body: { rating: 4 }, headers: { authorization: `Bearer ${stranger.token}` } });
  t.is(rated.status, 200, rated.text);
  // Rated: resolving again asks nothing.
  await ok('PUT', `/api/v1/conversations/${conv}/reopen`, ws.token);
  await app.sql(`delete from graphile_worker._private_jobs where key = $1`, [`csat:${conv}`]);
  await ok('PUT', `/api/v1/conversations/${conv}/resolve`, ws.token);
  await subscribersRun(conv);
  t.is((await one(`select count(*)::int as n from graphile_worker.jobs where key = $1`, [`csat:${conv}`])).n, 0);
});

test('item 8: a NUL in the public CSAT form’s comment is the form again with a 422 naming the comment, nothing stored', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  await ok('PATCH', '/api/v1/settings/csat', ws.token, { enabled: true });
  const conv = (await ok('POST', '/api/v1/conversations', ws.token, { business_id: ws.businessId })).id;
  const token = await askedForRating(ws, conv);
  const post = (fields: Record<string, string>) =>
    fetch(`${app.url}/csat/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  const refused = await post({ rating: '3', comment: 'bad\u0000byte' });
  t.is(refused.status, 422);
  const html = await refused.text();
  t.regex(html, /comment contains a character that cannot be stored/);
  t.true(html.includes('<form method="post"'));
  t.is((await one('select rating from csat_surveys where conversation_id = $1', [conv])).rating, null);
  t.is((await post({ rating: '3', comment: 'fine' })).status, 200);
});

// ─── item 6: losing sight of a conversation ends every way of hearing about it ──────────────

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
async function sawEventually(seen: Seen, match: (e: { name: string; payload: any }) => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!seen.some(match)) {
    if (Date.now() > deadline) throw new Error(`never saw ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('item 6: a socket that lost sight of a conversation (moved to another team) hears no typing or presence, and its typing reaches nobody', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const agent = await addMember(app, ws.businessId, 'agent', { name: 'Moved Away' });
  const other = await addMember(app, ws.businessId, 'agent', { name: 'Other Team' });
  const first = await ok('POST', '/api/v1/teams', ws.token, { name: 'First' });
  const second = await ok('POST', '/api/v1/teams', ws.token, { name: 'Second' });
  await ok('PUT', `/api/v1/teams/${first.id}/members`, ws.token, { member_ids: [await memberId(agent.userId)] });
  await ok('PUT', `/api/v1/teams/${second.id}/members`, ws.token, { member_ids: [await memberId(other.userId)] });
  const conv = (await ok('POST', '/api/v1/conversations', ws.token, { business_id: ws.businessId })).id;
  await ok('PUT', `/api/v1/conversations/${conv}/team`, ws.token, { team_id: first.id });
  await ok('PATCH', '/api/v1/settings/assignment', ws.token, { team_visibility: true });

  const [agentSock, ownerSock] = [await connect(agent.token), await connect(ws.token)];
  t.like(await emitWithAck(agentSock.socket, 'join_conversation', { conversation_id: conv }), { ok: true });
  t.like(await emitWithAck(ownerSock.socket, 'join_conversation', { conversation_id: conv }), { ok: true });
  // While it may see it, the agent hears the owner typing.
  t.like(await emitWithAck(ownerSock.socket, 'typing', { conversation_id: conv, typing: true }), { ok: true });
  await sawEventually(agentSock.seen, (e) => e.name === 'typing' && e.payload.user_id === ws.userId && e.payload.typing, 'the owner typing');

  // The conversation moves to the other team: the agent no longer may see it.
  await ok('PUT', `/api/v1/conversations/${conv}/team`, ws.token, { team_id: second.id });
  t.is((await app.request('GET', `/api/v1/conversations/${conv}`, { token: agent.token })).status, 404);
  const heardBefore = agentSock.seen.length;
  // Its own typing is refused and reaches nobody.
  t.like(await emitWithAck(agentSock.socket, 'typing', { conversation_id: conv, typing: true }), { ok: false, detail: 'Conversation not found' });
  // The owner types (a stop, then a start) and a teammate of the new team joins: presence goes out.
  const otherSock = await connect(other.token);
  t.like(await emitWithAck(otherSock.socket, 'join_conversation', { conversation_id: conv }), { ok: true });
  t.like(await emitWithAck(ownerSock.socket, 'typing', { conversation_id: conv, typing: false }), { ok: true });
  t.like(await emitWithAck(ownerSock.socket, 'typing', { conversation_id: conv, typing: true, private: true }), { ok: true });
  await sawEventually(otherSock.seen, (e) => e.name === 'typing' && e.payload.user_id === ws.userId && e.payload.private === true, 'the owner typing a note');
  await sawEventually(
    ownerSock.seen,
    (e) => e.name === 'conversation_presence' && e.payload.viewers.some((v: any) => v.user_id === other.userId),
    'presence with the new viewer',
  );
  // Marker: an event published after all of those reached the agent (events from one process arrive in order).
  await ok('PATCH', '/api/v1/team/status', ws.token, { status: 'away' });
  await sawEventually(agentSock.seen, (e) => e.name === 'agent_status_changed' && e.payload.status === 'away', 'the marker');
  const heard = agentSock.seen.slice(heardBefore).filter((e) => e.payload?.conversation_id === conv);
  t.deepEqual(heard, [], 'nothing more about the conversation');
  t.false(
    ownerSock.seen.some((e) => e.name === 'typing' && e.payload.user_id === agent.userId),
    'the agent’s typing reached nobody',
  );
  t.false(otherSock.seen.some((e) => e.name === 'typing' && e.payload.user_id === agent.userId));
  const presence = ownerSock.seen.filter((e) => e.name === 'conversation_presence').at(-1)!;
  t.false(
    presence.payload.viewers.some((v: any) => v.user_id === agent.userId),
    'nor is the agent counted as viewing it',
  );
});

// ─── item 10: what a multipart refusal says; a removed member's keys show revoked ─────────────

test('item 10: a tiny multipart with two files or more than 20 fields says what is wrong, not "File too large"', async (t) => {
  const ws = await createWorkspace(app);
  const conv = (await ok('POST', '/api/v1/conversations', ws.token, { business_id: ws.businessId })).id;
  const send = (form: FormData) =>
    fetch(`${app.url}/api/v1/conversations/${conv}/upload`, { method: 'POST', headers: { authorization: `Bearer ${ws.token}` }, body: form });
  const two = new FormData();
  two.append('file', new Blob(['a'], { type: 'text/plain' }), 'a.txt');
  two.append('file', new Blob(['b'], { type: 'text/plain' }), 'b.txt');
  const twoFiles = await send(two);
  t.is(twoFiles.status, 413);
  t.regex(((await twoFiles.json()) as any).detail, /Too many files/);
  const fields = new FormData();
  for (let i = 0; i < 21; i++) fields.append(`f${i}`, 'x');
  fields.append('file', new Blob(['a'], { type: 'text/plain' }), 'a.txt');
  const manyFields = await send(fields);
  t.is(manyFields.status, 413);
  t.regex(((await manyFields.json()) as any).detail, /Too many form fields: at most 20/);
  const one = new FormData();
  one.append('file', new Blob(['a'], { type: 'text/plain' }), 'a.txt');
  t.is((await send(one)).status, 200);
});

test('item 10: a removed member’s API keys are revoked with the membership: no longer listed as active', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const admin = await addMember(app, ws.businessId, 'admin', { name: 'Leaving Admin' });
  const key = await ok('POST', '/api/v1/api-keys', admin.token, { name: 'Admin key', scopes: ['read'], password: PASSWORD });
  const own = await ok('POST', '/api/v1/api-keys', ws.token, { name: 'Owner key', scopes: ['read'], password: PASSWORD });
  t.is((await app.request('GET', '/api/v1/conversations', { token: key.key })).status, 200);
  await ok('DELETE', `/api/v1/team/members/${await memberId(admin.userId)}`, ws.token);
  t.is((await app.request('GET', '/api/v1/conversations', { token: key.key })).status, 401);
  const listed = await ok('GET', '/api/v1/api-keys', ws.token);
  t.deepEqual(
    listed.map((k: any) => k.id),
    [own.id],
  );
  t.truthy((await one('select revoked_at from api_keys where id = $1', [key.id])).revoked_at);
  t.is((await one('select revoked_at from api_keys where id = $1', [own.id])).revoked_at, null);
});

// ─── item 5 (part): invitations are rate-limited per address and per business ───────────────

test('item 5 (part): an invite→remove loop mails one address at most 3 times a day, refused and unknown addresses count too', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const person = await registerUser(app, 'Reluctant Person');
  const invite = (email: string) => app.request('POST', '/api/v1/team/invite', { token: ws.token, query: { email, role: 'agent' } });
  const mails = async (email: string) =>
    (
      await app.sql(
        `select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
         where k.identifier = 'send_email' and j.payload->>'to' = $1 and j.payload->>'subject' ilike '%team%'`,
        [email],
      )
    )[0].n;
  for (let i = 0; i < 3; i++) {
    const added = await invite(person.email);
    t.is(added.status, 200, added.text);
    await ok('DELETE', `/api/v1/team/members/${added.body.team_member_id}`, ws.token);
  }
  const fourth = await invite(person.email);
  t.is(fourth.status, 429);
  t.true(Number(fourth.headers.get('retry-after')) >= 1);
  t.is(await mails(person.email), 3);
  t.is((await app.sql('select count(*)::int as n from team_members where user_id = $1', [person.userId]))[0].n, 0);
  // Another business cannot start the loop again for that address today.
  const other = await createWorkspace(app, { plan: 'Pro' });
  t.is((await app.request('POST', '/api/v1/team/invite', { token: other.token, query: { email: person.email } })).status, 429);

  // A business trying address after address (unknown ones answer 404) is stopped at 20 an hour.
  const prober = await createWorkspace(app, { plan: 'Pro' });
  const statuses: number[] = [];
  for (let i = 0; i < 21; i++)
    statuses.push(
      (await app.request('POST', '/api/v1/team/invite', { token: prober.token, query: { email: `nobody-${i}-${Date.now()}@example.com` } })).status,
    );
  t.deepEqual([...new Set(statuses.slice(0, 20))], [404]);
  t.is(statuses[20], 429);
});
