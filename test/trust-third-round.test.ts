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
import { base32Decode, totpAt } from '../core/domain/accounts/totp.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, registerUser } from './helpers/fixtures.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp({ env: { ALLOW_PRIVATE_HOSTS: 'false', PUBLIC_URL: 'https://parley.example' } });
});
test.after.always(async () => {
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
