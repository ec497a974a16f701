/**
 * The authentication endpoints against the real API and PostgreSQL: register, login (and its
 * rate limit), Google sign-in (against a local JWKS), profile, logout, e-mail verification,
 * and that no password or token reaches the logs.
 */
import test from 'ava';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { SignJWT, UnsecuredJWT, decodeJwt } from 'jose';
import type { JobHelpers } from 'graphile-worker';
import { z } from 'zod';
import { sql } from '../core/adapters/postgres/db.ts';
import { redactPaths } from '../core/adapters/logger.ts';
import { issuePurposeToken } from '../core/domain/accounts/tokens.ts';
import { LOGIN_MAX_FAILURES } from '../core/domain/accounts/login-throttle.ts';
import { createApp } from '../api/app.ts';
import sendEmailTask from '../workers/tasks/send_email.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { startGoogleJwks, type GoogleJwks } from './helpers/jwks.ts';
import { closedPort } from './helpers/ports.ts';

let app: TestApp;
let google: GoogleJwks;

test.before(async () => {
  google = await startGoogleJwks();
  app = await startTestApp({ env: { GOOGLE_CLIENT_ID: google.clientId, GOOGLE_JWKS_URL: google.jwksUrl } });
});
test.after.always(async () => {
  await app?.close();
  await google?.close();
});

const PASSWORD = 'correct horse battery';
const uniqueEmail = (prefix = 'user') => `${prefix}-${randomBytes(5).toString('hex')}@example.com`;

const register = (body: Record<string, unknown>) => app.request('POST', '/api/v1/auth/register', { body });
const login = (email: string, password: string) => app.request('POST', '/api/v1/auth/login', { body: { email, password } });
const me = (token: string) => app.request('GET', '/api/v1/auth/me', { token });

async function registered(prefix = 'user') {
  const email = uniqueEmail(prefix);
  const res = await register({ email, full_name: 'Ada Lovelace', password: PASSWORD });
  if (res.status !== 200) throw new Error(`register failed: ${res.status} ${res.text}`);
  return { email, token: res.body.access_token as string };
}

const jobRow = z.object({ task_identifier: z.string(), payload: z.record(z.string(), z.unknown()) });
/** send_email jobs to one address, oldest first (the public jobs view has no payload: joined from the table). */
const mailJobsTo = (email: string) =>
  app.deps.db.any(sql.type(jobRow)`
    select j.task_identifier, p.payload from graphile_worker.jobs j
    join graphile_worker._private_jobs p on p.id = j.id
    where j.task_identifier = 'send_email' and p.payload->>'to' = ${email} order by j.id`);
const userCount = (email: string) => app.deps.db.oneFirst(sql.type(z.object({ n: z.number() }))`select count(*)::int as n from users where email = ${email}`);

/** `[loc joined with '.', type]` of each 422 issue, sorted, for comparing whole bodies. */
const issues = (body: { detail: { loc: (string | number)[]; type: string }[] }) => body.detail.map((d) => [d.loc.join('.'), d.type]).sort();

// ─── register ──────────────────────────────────────────────────────────────────────────────

test('register: a name with control characters or bidi overrides is 422 and creates nothing; any script and emoji are fine', async (t) => {
  for (const full_name of ['Ada\u0007', 'Ada\nLovelace', 'Ada \u202egnp.exe', 'Ada\u2066x\u2069', 'A\u0085da']) {
    const email = uniqueEmail('name');
    const res = await register({ email, full_name, password: PASSWORD });
    t.is(res.status, 422, JSON.stringify(full_name));
    t.deepEqual(issues(res.body), [['body.full_name', 'string_pattern_mismatch']]);
    t.is((await app.sql('select 1 from users where email = $1', [email])).length, 0);
  }
  for (const full_name of ['Zoë Ünal', '李小龙', 'محمد', 'Ana 👩‍💻']) {
    const res = await register({ email: uniqueEmail('name-ok'), full_name, password: PASSWORD });
    t.is(res.status, 200, `${full_name}: ${res.text}`);
  }
});

test('register returns a bearer JWT for the new user', async (t) => {
  const email = uniqueEmail();
  const res = await register({ email, full_name: 'Ada Lovelace', password: PASSWORD });
  t.is(res.status, 200, res.text);
  t.deepEqual(Object.keys(res.body).sort(), ['access_token', 'token_type']);
  t.is(res.body.token_type, 'bearer');
  const claims = decodeJwt(res.body.access_token);
  t.is(typeof claims.jti, 'string');
  const profile = await me(res.body.access_token);
  t.is(profile.status, 200, profile.text);
  t.is(claims.sub, profile.body.user.id);
  t.like(profile.body.user, { email, full_name: 'Ada Lovelace', is_verified: false, is_google_account: false, avatar_url: null });
});

test('register trims and lower-cases the e-mail, and the account signs in with any case', async (t) => {
  const local = `Mixed-${randomBytes(4).toString('hex')}`;
  const res = await register({ email: `  ${local}@Example.COM `, full_name: '  Ada  ', password: PASSWORD });
  t.is(res.status, 200, res.text);
  const profile = await me(res.body.access_token);
  t.is(profile.body.user.email, `${local.toLowerCase()}@example.com`);
  t.is(profile.body.user.full_name, 'Ada');
  const signIn = await login(`${local.toUpperCase()}@EXAMPLE.com`, PASSWORD);
  t.is(signIn.status, 200, signIn.text);
});

test('register refuses an e-mail already registered, in any case, with 400 and no mail', async (t) => {
  const { email } = await registered();
  t.is((await mailJobsTo(email)).length, 1);
  const again = await register({ email, full_name: 'Someone Else', password: 'another password' });
  t.is(again.status, 400);
  t.deepEqual(again.body, { detail: 'Email already registered' });
  const upper = await register({ email: ` ${email.toUpperCase()}`, full_name: 'Someone Else', password: 'another password' });
  t.is(upper.status, 400);
  t.deepEqual(upper.body, { detail: 'Email already registered' });
  t.is((await mailJobsTo(email)).length, 1, 'a refused register enqueues no mail');
  t.is(await userCount(email), 1);
  // The first password still works, the second was never stored.
  t.is((await login(email, PASSWORD)).status, 200);
  t.is((await login(email, 'another password')).status, 401);
});

test('register enqueues the verification mail in the same transaction', async (t) => {
  const { email } = await registered();
  const jobs = await mailJobsTo(email);
  t.is(jobs.length, 1);
  t.is(jobs[0].task_identifier, 'send_email');
  t.is(jobs[0].payload.to, email);
  t.regex(String(jobs[0].payload.subject), /confirm/i);
  t.regex(String(jobs[0].payload.text), /\/verify-email\?token=[\w.%-]+/);
});

test('register validates every field with 422', async (t) => {
  const missing = await register({});
  t.is(missing.status, 422);
  t.deepEqual(issues(missing.body), [
    ['body.email', 'missing'],
    ['body.full_name', 'missing'],
    ['body.password', 'missing'],
  ]);
  t.is(missing.body.detail[0].msg, 'Field required');

  const cases: [Record<string, unknown>, [string, string]][] = [
    [{ password: 'short77' }, ['body.password', 'string_too_short']],
    [{ password: 'x'.repeat(73) }, ['body.password', 'value_error']],
    // 37 characters but 74 bytes: the limit is bcrypt's 72 bytes, not characters.
    [{ password: 'é'.repeat(37) }, ['body.password', 'value_error']],
    [{ password: 12345678 }, ['body.password', 'string_type']],
    [{ email: 'not-an-email' }, ['body.email', 'value_error']],
    [{ email: 'a@' }, ['body.email', 'value_error']],
    [{ email: 42 }, ['body.email', 'string_type']],
    [{ full_name: '' }, ['body.full_name', 'string_too_short']],
    [{ full_name: '   ' }, ['body.full_name', 'string_too_short']],
    [{ full_name: 'n'.repeat(101) }, ['body.full_name', 'string_too_long']],
  ];
  for (const [override, expected] of cases) {
    const email = uniqueEmail('invalid');
    const res = await register({ email, full_name: 'Ada', password: PASSWORD, ...override });
    t.is(res.status, 422, JSON.stringify(override));
    t.deepEqual(issues(res.body), [expected], JSON.stringify(override));
    t.true(typeof res.body.detail[0].msg === 'string' && res.body.detail[0].msg.length > 0);
    t.is(await userCount(email), 0);
    t.is((await mailJobsTo(email)).length, 0, 'a refused register enqueues no mail');
  }
  // The reasons read as sentences: the app shows them under the field.
  const blank = await register({ email: uniqueEmail('blank'), full_name: '   ', password: PASSWORD });
  t.is(blank.body.detail[0].msg, 'String should have at least 1 character');
  const long = await register({ email: uniqueEmail('long'), full_name: 'n'.repeat(101), password: PASSWORD });
  t.is(long.body.detail[0].msg, 'String should have at most 100 characters');
  const short = await register({ email: uniqueEmail('short'), full_name: 'Ada', password: 'short77' });
  t.is(short.body.detail[0].msg, 'String should have at least 8 characters');
});

test('register accepts the boundaries: 8 characters, 72 bytes, a 100-character name', async (t) => {
  for (const [password, fullName] of [
    ['12345678', 'A'],
    ['x'.repeat(72), 'n'.repeat(100)],
    ['é'.repeat(36), 'Zoë'],
  ]) {
    const email = uniqueEmail('edge');
    const res = await register({ email, full_name: fullName, password });
    t.is(res.status, 200, res.text);
    t.is((await login(email, password)).status, 200);
    // bcrypt ignores bytes past 72; the API does not let that accept a longer password.
    t.is((await login(email, `${password}-and-more`)).status, 401);
  }
});

test('register ignores unknown fields and answers malformed JSON with json_invalid', async (t) => {
  const email = uniqueEmail();
  const res = await register({ email, full_name: 'Ada', password: PASSWORD, is_verified: true, role: 'owner' });
  t.is(res.status, 200, res.text);
  t.is((await me(res.body.access_token)).body.user.is_verified, false);
  const malformed = await app.request('POST', '/api/v1/auth/register', {
    rawBody: '{"email": "x@example.com",',
    headers: { 'content-type': 'application/json' },
  });
  t.is(malformed.status, 422);
  t.deepEqual(malformed.body, { detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] });
});

// ─── login ─────────────────────────────────────────────────────────────────────────────────

test('login returns a fresh token for the right password', async (t) => {
  const { email, token: first } = await registered();
  const res = await login(email, PASSWORD);
  t.is(res.status, 200, res.text);
  t.is(res.body.token_type, 'bearer');
  t.not(res.body.access_token, first);
  const profile = await me(res.body.access_token);
  t.is(profile.body.user.email, email);
});

test('login refuses a wrong password and an unknown e-mail with the same 401 body', async (t) => {
  const { email } = await registered();
  const wrong = await login(email, 'wrong password');
  const unknown = await login(uniqueEmail('nobody'), PASSWORD);
  t.is(wrong.status, 401);
  t.is(unknown.status, 401);
  t.deepEqual(wrong.body, { detail: 'Incorrect email or password' });
  t.deepEqual(unknown.body, wrong.body);
});

test('login validates its body with 422', async (t) => {
  const empty = await app.request('POST', '/api/v1/auth/login', { body: {} });
  t.is(empty.status, 422);
  t.deepEqual(issues(empty.body), [
    ['body.email', 'missing'],
    ['body.password', 'missing'],
  ]);
  const bad = await login('not-an-email', PASSWORD);
  t.is(bad.status, 422);
  t.deepEqual(issues(bad.body), [['body.email', 'value_error']]);
  const emptyPassword = await login(uniqueEmail(), '');
  t.is(emptyPassword.status, 422);
  t.deepEqual(issues(emptyPassword.body), [['body.password', 'string_too_short']]);
});

test('ten failed logins lock that e-mail (from that address) with 429 and Retry-After', async (t) => {
  const { email } = await registered('locked');
  const other = await registered('neighbour');
  for (let i = 0; i < LOGIN_MAX_FAILURES; i++) {
    const res = await login(email, `wrong password ${i}`);
    t.is(res.status, 401, `attempt ${i + 1}`);
  }
  // The 11th attempt is refused before the password is looked at, even the right one.
  const locked = await login(email, PASSWORD);
  t.is(locked.status, 429, locked.text);
  t.is(typeof locked.body.detail, 'string');
  const retryAfter = Number(locked.headers.get('retry-after'));
  t.true(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 15 * 60, `Retry-After: ${retryAfter}`);
  // The lock is per e-mail, in any case spelling.
  t.is((await login(email.toUpperCase(), PASSWORD)).status, 429);
  t.is((await login(email, 'wrong again')).status, 429);
  // Another e-mail from the same address is unaffected.
  t.is((await login(other.email, PASSWORD)).status, 200);
});

test('parallel guesses cannot get past the limit', async (t) => {
  const { email } = await registered('burst');
  const statuses = await Promise.all(Array.from({ length: 40 }, (_, i) => login(email, `guess ${i}`).then((r) => r.status)));
  const counts = { 401: statuses.filter((s) => s === 401).length, 429: statuses.filter((s) => s === 429).length };
  t.is(counts[401] + counts[429], 40, JSON.stringify(statuses));
  t.true(counts[401] <= LOGIN_MAX_FAILURES, `${counts[401]} passwords were checked`);
  // Attempts refused by the lock are not failures: exactly ten wrong passwords in all lock the pair.
  let checked = counts[401];
  while ((await login(email, 'one more guess')).status === 401) checked++;
  t.is(checked, LOGIN_MAX_FAILURES);
  t.is((await login(email, PASSWORD)).status, 429);
});

test('the lock cannot be escaped with a made-up X-Forwarded-For', async (t) => {
  const { email } = await registered('spoofer');
  for (let i = 0; i < LOGIN_MAX_FAILURES; i++) {
    t.is(
      (await app.request('POST', '/api/v1/auth/login', { body: { email, password: 'wrong password' }, headers: { 'x-forwarded-for': `198.51.100.${i}` } }))
        .status,
      401,
    );
  }
  // No proxy is trusted by default: every attempt came from this test's own address.
  const res = await app.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD }, headers: { 'x-forwarded-for': '203.0.113.99' } });
  t.is(res.status, 429);
});

test('behind a trusted proxy the lock is per client address the proxy saw', async (t) => {
  const { email } = await registered('proxied');
  const server = http.createServer(createApp({ ...app.deps, config: { ...app.deps.config, TRUST_PROXY_HOPS: 1 } }).callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const attempt = async (forwardedFor: string, password: string) =>
    (
      await fetch(`${base}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
        body: JSON.stringify({ email, password }),
      })
    ).status;
  try {
    // The proxy appends the client's address; anything before it was sent by the client.
    for (let i = 0; i < LOGIN_MAX_FAILURES; i++) t.is(await attempt(`10.0.0.${i}, 203.0.113.7`, 'wrong password'), 401);
    t.is(await attempt('203.0.113.7', PASSWORD), 429);
    t.is(await attempt('192.0.2.1, 203.0.113.7', PASSWORD), 429);
    // Another client of the same proxy is not locked out of the account.
    t.is(await attempt('203.0.113.8', PASSWORD), 200);
  } finally {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
});

test('a successful login clears earlier failures', async (t) => {
  const { email } = await registered();
  for (let i = 0; i < LOGIN_MAX_FAILURES - 1; i++) t.is((await login(email, 'wrong password')).status, 401);
  t.is((await login(email, PASSWORD)).status, 200);
  for (let i = 0; i < LOGIN_MAX_FAILURES - 1; i++) t.is((await login(email, 'wrong password')).status, 401);
  t.is((await login(email, PASSWORD)).status, 200);
});

// ─── Google sign-in ────────────────────────────────────────────────────────────────────────

const googleSignIn = (idToken: unknown) => app.request('POST', '/api/v1/auth/google', { body: { id_token: idToken } });

test('google: a new e-mail creates a verified Google account', async (t) => {
  const email = uniqueEmail('new-google');
  const idToken = await google.signIdToken({ email: email.toUpperCase(), name: 'Grace Hopper' });
  const res = await googleSignIn(idToken);
  t.is(res.status, 200, res.text);
  t.is(res.body.token_type, 'bearer');
  const profile = await me(res.body.access_token);
  t.is(profile.status, 200);
  t.like(profile.body.user, {
    email,
    full_name: 'Grace Hopper',
    is_google_account: true,
    is_verified: true,
    avatar_url: 'https://lh3.googleusercontent.com/a/photo.jpg',
  });
  t.is(profile.body.business, null);
  // The same Google account signs in to the same user again; no verification mail is sent.
  const again = await googleSignIn(await google.signIdToken({ email, sub: decodeJwt(idToken).sub }));
  t.is(again.status, 200);
  t.is((await me(again.body.access_token)).body.user.id, profile.body.user.id);
  t.is(await userCount(email), 1);
  t.is((await mailJobsTo(email)).length, 0);
  // A Google-only account has no password to sign in with.
  t.is((await login(email, PASSWORD)).status, 401);
});

test('google: a name-less token gets a name from the e-mail', async (t) => {
  const local = `nameless-${randomBytes(3).toString('hex')}`;
  const res = await googleSignIn(await google.signIdToken({ email: `${local}@gmail.com`, name: undefined, picture: undefined }));
  t.is(res.status, 200, res.text);
  const profile = await me(res.body.access_token);
  t.like(profile.body.user, { full_name: local, avatar_url: null });
});

test('google: a known e-mail signs in that user and marks it a Google account', async (t) => {
  const { email, token } = await registered('linked');
  const before = await me(token);
  t.false(before.body.user.is_google_account);
  const res = await googleSignIn(await google.signIdToken({ email }));
  t.is(res.status, 200, res.text);
  const after = await me(res.body.access_token);
  t.is(after.body.user.id, before.body.user.id);
  t.like(after.body.user, { email, full_name: 'Ada Lovelace', is_google_account: true, is_verified: true });
  t.is(await userCount(email), 1);
});

test('google: linking an unverified account drops the password nobody proved; a verified one keeps it', async (t) => {
  // Someone registered the address first (never verified it); the real owner then signs in with Google.
  const squatted = await registered('squatted');
  t.is((await googleSignIn(await google.signIdToken({ email: squatted.email }))).status, 200);
  t.is((await login(squatted.email, PASSWORD)).status, 401);

  const verified = await registered('verified');
  await app.deps.db.query(sql.unsafe`update users set is_verified = true where email = ${verified.email}`);
  t.is((await googleSignIn(await google.signIdToken({ email: verified.email }))).status, 200);
  t.is((await login(verified.email, PASSWORD)).status, 200);
});

test('google: linking an unverified account ends every session the squatter had and removes the team they let in', async (t) => {
  // Someone registers pat@… (never verifies), builds a workspace and invites a second account of theirs as admin.
  const squatter = await registered('pat');
  const workspace = await app.request('POST', '/api/v1/business', { token: squatter.token, body: { name: 'Pat Support' } });
  t.is(workspace.status, 200, workspace.text);
  const planted = await registered('planted');
  await app.deps.db.query(sql.unsafe`update businesses set plan = 'Mini' where id = ${workspace.body.id}`);
  t.is((await app.request('POST', `/api/v1/team/invite?email=${encodeURIComponent(planted.email)}&role=admin`, { token: squatter.token })).status, 200);
  t.is((await me(planted.token)).body.business?.id, workspace.body.id);

  // The real Pat signs in with Google.
  const pat = await googleSignIn(await google.signIdToken({ email: squatter.email }));
  t.is(pat.status, 200, pat.text);
  t.is((await me(squatter.token)).status, 401, "the squatter's token stopped working at once");
  t.is((await login(squatter.email, PASSWORD)).status, 401, 'and their password is gone');
  const patProfile = await me(pat.body.access_token);
  t.like(patProfile.body, { team_role: 'owner' });
  t.is(patProfile.body.business.id, workspace.body.id, "the workspace stays with the address's owner");
  const members = await app.request('GET', '/api/v1/team/members', { token: pat.body.access_token });
  t.deepEqual(
    members.body.map((m: { email: string }) => m.email),
    [squatter.email],
    'the planted admin is out',
  );
  t.is((await me(planted.token)).body.business, null, "the planted admin reads nothing of Pat's");

  // A verified account linking Google keeps its sessions and team.
  const verified = await registered('verified-keeps');
  await app.deps.db.query(sql.unsafe`update users set is_verified = true where email = ${verified.email}`);
  t.is((await googleSignIn(await google.signIdToken({ email: verified.email }))).status, 200);
  t.is((await me(verified.token)).status, 200);
});

test('logout-all ends every session of the user on every token, and only theirs', async (t) => {
  const { email, token } = await registered('everywhere');
  const second = (await login(email, PASSWORD)).body.access_token;
  const other = await registered('bystander');
  t.is((await app.request('POST', '/api/v1/auth/logout-all', { token, body: { password: PASSWORD } })).status, 200);
  for (const old of [token, second]) t.is((await me(old)).status, 401);
  t.is((await me(other.token)).status, 200, 'another user is untouched');
  const fresh = await login(email, PASSWORD);
  t.is((await me(fresh.body.access_token)).status, 200, 'signing in again works');
});

test('password change: the current password is checked, every other session ends, the caller gets a new token', async (t) => {
  const { email, token } = await registered('changer');
  const other = (await login(email, PASSWORD)).body.access_token;
  const wrong = await app.request('POST', '/api/v1/auth/password', { token, body: { current_password: 'not it at all', new_password: 'a brand new secret' } });
  t.is(wrong.status, 400, 'not 401: the session is still valid');
  t.deepEqual(wrong.body, { detail: 'Incorrect password' });
  const short = await app.request('POST', '/api/v1/auth/password', { token, body: { current_password: PASSWORD, new_password: 'short' } });
  t.is(short.status, 422);
  const changed = await app.request('POST', '/api/v1/auth/password', { token, body: { current_password: PASSWORD, new_password: 'a brand new secret' } });
  t.is(changed.status, 200, changed.text);
  for (const old of [token, other]) t.is((await me(old)).status, 401);
  t.is((await me(changed.body.access_token)).status, 200);
  t.is((await login(email, PASSWORD)).status, 401);
  t.is((await login(email, 'a brand new secret')).status, 200);
  // A Google-only account has no password to change.
  const googleOnly = await googleSignIn(await google.signIdToken({ email: uniqueEmail('google-only') }));
  const none = await app.request('POST', '/api/v1/auth/password', {
    token: googleOnly.body.access_token,
    body: { current_password: 'anything', new_password: 'a brand new secret' },
  });
  t.is(none.status, 400);
});

/** The reset link mailed to `email` (the latest), as the send_email job holds it. */
async function resetLinkFor(email: string): Promise<string | null> {
  const mails = (await mailJobsTo(email)).filter((m) => m.payload.subject === 'Reset your Parley password');
  const text = String(mails.at(-1)?.payload.text ?? '');
  return /(\S+\/reset-password\?token=\S+)/.exec(text)?.[1] ?? null;
}

test('password reset: the same 202 for known and unknown addresses; the mailed link sets a new password once and ends every session', async (t) => {
  const { email, token } = await registered('forgetful');
  const known = await app.request('POST', '/api/v1/auth/password-reset', { body: { email } });
  const unknown = await app.request('POST', '/api/v1/auth/password-reset', { body: { email: uniqueEmail('nobody') } });
  t.is(known.status, 202);
  t.deepEqual(unknown, { ...unknown, status: 202, body: known.body }, 'an unknown address gets the very same answer');
  const link = await resetLinkFor(email);
  t.truthy(link, 'a link was mailed');
  const resetToken = new URL(link!).searchParams.get('token')!;
  const mail = (await mailJobsTo(email)).at(-1)!;
  t.regex(String(mail.payload.text), /^Someone asked to reset the password/, 'no user-written text in the mail');

  const bad = await app.request('POST', '/api/v1/auth/password-reset/confirm', { body: { token: 'garbage', password: 'a new long secret' } });
  t.is(bad.status, 400);
  const done = await app.request('POST', '/api/v1/auth/password-reset/confirm', { body: { token: resetToken, password: 'a new long secret' } });
  t.is(done.status, 200, done.text);
  t.is((await me(token)).status, 401, 'the old session ended');
  t.like((await me(done.body.access_token)).body.user, { email, is_verified: true });
  t.is((await login(email, 'a new long secret')).status, 200);
  const again = await app.request('POST', '/api/v1/auth/password-reset/confirm', { body: { token: resetToken, password: 'yet another secret' } });
  t.is(again.status, 400, 'the link works once');
  t.deepEqual(again.body, { detail: 'This password reset link is invalid, expired or already used' });

  // An expired link (signed an hour and more ago) is refused too.
  const user = (await me(done.body.access_token)).body.user;
  const generation = (await app.sql('select token_generation from users where id = $1', [user.id]))[0].token_generation;
  const expired = await issuePurposeToken(app.deps.config.jwtSecret, 'password-reset', user.id, -1, { email, gen: String(generation) });
  t.is((await app.request('POST', '/api/v1/auth/password-reset/confirm', { body: { token: expired, password: 'yet another secret' } })).status, 400);
});

test('password reset: at most 3 mails an hour per address, then 429 with Retry-After', async (t) => {
  const { email } = await registered('reset-limit');
  for (let i = 0; i < 3; i++) t.is((await app.request('POST', '/api/v1/auth/password-reset', { body: { email } })).status, 202);
  const limited = await app.request('POST', '/api/v1/auth/password-reset', { body: { email } });
  t.is(limited.status, 429);
  t.truthy(Number(limited.headers.get('retry-after')) > 0);
  t.is((await mailJobsTo(email)).filter((m) => m.payload.subject === 'Reset your Parley password').length, 3);
});

test('google: the Google account id wins over a changed e-mail address', async (t) => {
  const sub = `sub-${randomBytes(6).toString('hex')}`;
  const first = await googleSignIn(await google.signIdToken({ sub, email: uniqueEmail('old-address') }));
  t.is(first.status, 200, first.text);
  const firstUser = (await me(first.body.access_token)).body.user;
  const moved = await googleSignIn(await google.signIdToken({ sub, email: uniqueEmail('new-address') }));
  t.is(moved.status, 200, moved.text);
  t.is((await me(moved.body.access_token)).body.user.id, firstUser.id);
});

test('google: tokens that fail any check are 401 Invalid Google token', async (t) => {
  const email = uniqueEmail('rejected');
  const now = Math.floor(Date.now() / 1000);
  const otherKey = await google.otherKey();
  const valid = decodeJwt(await google.signIdToken({ email }));
  const tokens: Record<string, string> = {
    'wrong audience': await google.signIdToken({ email, aud: 'someone-else.apps.googleusercontent.com' }),
    'wrong issuer': await google.signIdToken({ email, iss: 'https://evil.example.com' }),
    expired: await google.signIdToken({ email, iat: now - 7200 }, { expiresIn: -3600 }),
    'email_verified false': await google.signIdToken({ email, email_verified: false }),
    'email_verified missing': await google.signIdToken({ email, email_verified: undefined }),
    'email_verified as a string': await google.signIdToken({ email, email_verified: 'true' }),
    'no email': await google.signIdToken({ email: undefined }),
    'signed by another key, same kid': await google.signIdToken({ email }, { key: otherKey }),
    'signed by another key, unknown kid': await google.signIdToken({ email }, { key: otherKey, kid: 'unknown-kid' }),
    'alg none': new UnsecuredJWT(valid).encode(),
    'HS256 with the client id as secret': await new SignJWT(valid)
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(google.clientId.padEnd(32, 'x'))),
    'not a JWT': 'definitely-not-a-jwt',
  };
  // The header and signature of one token around the payload of another.
  const signed = (await google.signIdToken({ email })).split('.');
  const forged = (await google.signIdToken({ email: 'admin@example.com' })).split('.');
  tokens['tampered payload'] = [signed[0], forged[1], signed[2]].join('.');

  for (const [name, idToken] of Object.entries(tokens)) {
    const res = await googleSignIn(idToken);
    t.is(res.status, 401, `${name}: ${res.text}`);
    t.deepEqual(res.body, { detail: 'Invalid Google token' }, name);
  }
  t.is(await userCount(email), 0);
  t.is(await userCount('admin@example.com'), 0);
  // Both accepted issuer spellings work.
  const bare = await googleSignIn(await google.signIdToken({ email, iss: 'accounts.google.com' }));
  t.is(bare.status, 200, bare.text);
});

test("google: when Google's keys cannot be fetched, sign-in is 503 (not a verdict on the token)", async (t) => {
  const unreachable = await closedPort();
  const failing = http.createServer((_req, res) => res.writeHead(500).end('upstream trouble'));
  await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
  const jwksUrls = [`http://127.0.0.1:${unreachable}/certs`, `http://127.0.0.1:${(failing.address() as { port: number }).port}/certs`];
  try {
    for (const jwksUrl of jwksUrls) {
      const server = http.createServer(createApp({ ...app.deps, config: { ...app.deps.config, GOOGLE_JWKS_URL: jwksUrl } }).callback());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const post = async (id_token: string) => {
        const res = await fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/api/v1/auth/google`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ id_token }),
        });
        return { status: res.status, body: await res.json() };
      };
      try {
        t.deepEqual(await post(await google.signIdToken()), { status: 503, body: { detail: 'Google sign-in is temporarily unavailable' } }, jwksUrl);
        // A token that is bad on its face is still refused as such.
        t.is((await post(new UnsecuredJWT({ email: 'x@example.com' }).encode())).status, 401, jwksUrl);
        t.is((await post('garbage')).status, 401, jwksUrl);
      } finally {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      }
    }
  } finally {
    await new Promise<void>((resolve) => {
      failing.close(() => resolve());
      failing.closeAllConnections();
    });
  }
});

test('google: id_token is required (422)', async (t) => {
  const missing = await app.request('POST', '/api/v1/auth/google', { body: {} });
  t.is(missing.status, 422);
  t.deepEqual(issues(missing.body), [['body.id_token', 'missing']]);
  const empty = await googleSignIn('');
  t.is(empty.status, 422);
  t.deepEqual(issues(empty.body), [['body.id_token', 'string_too_short']]);
  const wrongType = await googleSignIn(123);
  t.deepEqual(issues(wrongType.body), [['body.id_token', 'string_type']]);
});

test('google: without GOOGLE_CLIENT_ID sign-in is 400 not configured', async (t) => {
  const plain = await startTestApp({ env: { GOOGLE_JWKS_URL: google.jwksUrl } });
  try {
    const res = await plain.request('POST', '/api/v1/auth/google', { body: { id_token: await google.signIdToken() } });
    t.is(res.status, 400);
    t.deepEqual(res.body, { detail: 'Google sign-in is not configured' });
  } finally {
    await plain.close();
  }
});

// ─── profile ───────────────────────────────────────────────────────────────────────────────

test('me shows the user, then the business and role once a workspace exists', async (t) => {
  const { email, token } = await registered('profile');
  const before = await me(token);
  t.is(before.status, 200, before.text);
  t.deepEqual(Object.keys(before.body).sort(), ['business', 'can', 'onboarding_complete', 'team_role', 'two_factor', 'user']);
  t.true(
    Object.values(before.body.can).every((allowed) => allowed === false),
    'without a business nothing is allowed',
  );
  t.deepEqual(Object.keys(before.body.user).sort(), ['avatar_url', 'email', 'full_name', 'id', 'is_google_account', 'is_verified']);
  t.like(before.body, { business: null, onboarding_complete: false, team_role: null });
  t.is(before.body.user.email, email);
  t.regex(before.body.user.id, /^[0-9a-f-]{36}$/);

  const created = await app.request('POST', '/api/v1/business', { token, body: { name: 'Acme Support', website: 'https://acme.example' } });
  t.is(created.status, 200, created.text);
  const after = await me(token);
  t.is(after.status, 200);
  t.like(after.body, { onboarding_complete: true, team_role: 'owner' });
  t.like(after.body.can, { 'widgets.manage': true, 'team.invite': true, 'channels.manage': true, 'conversations.reply': true });
  t.like(after.body.business, { id: created.body.id, name: 'Acme Support', website: 'https://acme.example', industry: '', team_size: '', goal: '' });
  t.regex(after.body.business.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  t.is(after.body.user.id, before.body.user.id);
});

test('me shows a member their role in the business they joined', async (t) => {
  const owner = await registered('owner');
  const business = await app.request('POST', '/api/v1/business', { token: owner.token, body: { name: 'Team Co' } });
  t.is(business.status, 200, business.text);
  const agent = await registered('agent');
  const agentId = (await me(agent.token)).body.user.id;
  // Joined directly in the database: this test is about the profile, not the invite flow.
  await app.deps.db.query(sql.unsafe`
    insert into team_members (business_id, user_id, role, agent_number) values (${business.body.id}, ${agentId}, 'agent', 2)`);
  const profile = await me(agent.token);
  t.like(profile.body, { onboarding_complete: true, team_role: 'agent' });
  // What an agent may do comes from the policy table: reply and read, not manage.
  t.like(profile.body.can, {
    'conversations.reply': true,
    'kb.write': true,
    'channels.manage': false,
    'widgets.manage': false,
    'team.invite': false,
    'conversations.assign': false,
  });
  t.is(profile.body.business.id, business.body.id);
  // A deactivated membership no longer counts.
  await app.deps.db.query(sql.unsafe`update team_members set is_active = false where user_id = ${agentId}`);
  t.like((await me(agent.token)).body, { business: null, onboarding_complete: false, team_role: null });
});

test('me without a token is 401', async (t) => {
  const res = await app.request('GET', '/api/v1/auth/me');
  t.is(res.status, 401);
  t.deepEqual(res.body, { detail: 'Not authenticated' });
});

// ─── logout ────────────────────────────────────────────────────────────────────────────────

test('logout revokes only the token it was called with', async (t) => {
  const { email, token } = await registered('logout');
  const second = (await login(email, PASSWORD)).body.access_token as string;
  const res = await app.request('POST', '/api/v1/auth/logout', { token });
  t.is(res.status, 200, res.text);
  t.is(typeof res.body.message, 'string');
  const revoked = await me(token);
  t.is(revoked.status, 401);
  t.deepEqual(revoked.body, { detail: 'Could not validate credentials' });
  t.is(revoked.headers.get('www-authenticate'), 'Bearer');
  // Logging out twice with the same token: it no longer authenticates.
  t.is((await app.request('POST', '/api/v1/auth/logout', { token })).status, 401);
  // Another session of the same user is untouched.
  t.is((await me(second)).status, 200);
  // The revocation is kept until the token would have expired.
  const row = await app.deps.db.one(sql.type(z.object({ expires_at: z.string() }))`
    select expires_at from revoked_tokens where jti = ${String(decodeJwt(token).jti)}`);
  t.is(Date.parse(row.expires_at) / 1000, decodeJwt(token).exp as number);
});

test('logout without a token is 401', async (t) => {
  const res = await app.request('POST', '/api/v1/auth/logout');
  t.is(res.status, 401);
  t.deepEqual(res.body, { detail: 'Not authenticated' });
});

// ─── e-mail verification ───────────────────────────────────────────────────────────────────

/** The token in the verification link of a send_email job's text. */
function linkToken(text: unknown): string {
  const match = /\/verify-email\?token=([^\s]+)/.exec(String(text));
  if (!match) throw new Error(`no verification link in: ${String(text)}`);
  return decodeURIComponent(match[1]);
}

const confirm = (token: unknown) => app.request('POST', '/api/v1/auth/verify-email', { body: { token } });

test('verification: the mailed link verifies the address; sending again after that is 400', async (t) => {
  const { email, token } = await registered('verify');
  const [registerMail] = await mailJobsTo(email);
  t.true(String(registerMail.payload.text).includes(`${app.deps.config.publicUrl}/verify-email?token=`));

  const send = await app.request('POST', '/api/v1/auth/verify-email/send', { token });
  t.is(send.status, 200, send.text);
  t.is(typeof send.body.message, 'string');
  const jobs = await mailJobsTo(email);
  t.is(jobs.length, 2);
  t.is(jobs[1].payload.to, email);
  const linkFromSend = linkToken(jobs[1].payload.text);

  // Confirming needs no bearer token: the link's token identifies the user.
  const confirmed = await confirm(linkFromSend);
  t.is(confirmed.status, 200, confirmed.text);
  t.is(typeof confirmed.body.message, 'string');
  t.true((await me(token)).body.user.is_verified);

  // The older link still works (idempotent), and sending again is refused.
  t.is((await confirm(linkToken(registerMail.payload.text))).status, 200);
  const again = await app.request('POST', '/api/v1/auth/verify-email/send', { token });
  t.is(again.status, 400);
  t.deepEqual(again.body, { detail: 'Email already verified' });
  t.is((await mailJobsTo(email)).length, 2);
});

test('verification: resends are limited per account (429 with Retry-After, no mail); the mail carries no user-written text', async (t) => {
  const { email, token } = await registered('verify-limit');
  await app.sql(`update users set full_name = 'Click https://evil.example now' where email = $1`, [email]);
  for (let i = 0; i < 3; i++) t.is((await app.request('POST', '/api/v1/auth/verify-email/send', { token })).status, 200);
  const refused = await app.request('POST', '/api/v1/auth/verify-email/send', { token });
  t.is(refused.status, 429);
  t.deepEqual(refused.body, { detail: 'Too many verification e-mails. Try again later.' });
  const retryAfter = Number(refused.headers.get('retry-after'));
  t.true(retryAfter >= 1 && retryAfter <= 3600, String(retryAfter));
  const mails = await mailJobsTo(email);
  t.is(mails.length, 4, 'the registration mail and three resends');
  for (const mail of mails) t.false(String(mail.payload.text).includes('evil.example'), 'no name in mail to an unproven address');
});

test('verification: bad, expired, foreign and misused tokens are 400', async (t) => {
  const { email, token } = await registered('verify-bad');
  const userId = (await me(token)).body.user.id as string;
  const key = app.deps.config.jwtSecret;
  const bad: Record<string, string> = {
    garbage: 'not-a-token',
    expired: await issuePurposeToken(key, 'verify-email', userId, -60, { email }),
    'another key': await issuePurposeToken(new TextEncoder().encode('k'.repeat(48)), 'verify-email', userId, 600, { email }),
    'another purpose': await issuePurposeToken(key, 'reset-password', userId, 600, { email }),
    'an access token': token,
    'another e-mail': await issuePurposeToken(key, 'verify-email', userId, 600, { email: 'someone@example.com' }),
    'unknown user': await issuePurposeToken(key, 'verify-email', '00000000-0000-4000-8000-000000000000', 600, { email }),
    'not a uuid subject': await issuePurposeToken(key, 'verify-email', 'admin', 600, { email }),
    'alg none': new UnsecuredJWT({ purpose: 'verify-email', email }).setSubject(userId).setExpirationTime('1h').encode(),
  };
  for (const [name, value] of Object.entries(bad)) {
    const res = await confirm(value);
    t.is(res.status, 400, `${name}: ${res.text}`);
    t.deepEqual(res.body, { detail: 'Invalid or expired verification token' }, name);
  }
  t.false((await me(token)).body.user.is_verified);
  const missing = await app.request('POST', '/api/v1/auth/verify-email', { body: {} });
  t.is(missing.status, 422);
  t.deepEqual(issues(missing.body), [['body.token', 'missing']]);
});

test('verification: the verification token is not an access token', async (t) => {
  const { email } = await registered('not-bearer');
  const link = linkToken((await mailJobsTo(email))[0].payload.text);
  const res = await me(link);
  t.is(res.status, 401);
  t.deepEqual(res.body, { detail: 'Could not validate credentials' });
});

test('verification: send needs a token (401)', async (t) => {
  const res = await app.request('POST', '/api/v1/auth/verify-email/send');
  t.is(res.status, 401);
  t.deepEqual(res.body, { detail: 'Not authenticated' });
});

test('send_email without SMTP_URL writes the mail, link included, to the log', async (t) => {
  const { email } = await registered('mail-log');
  const [job] = await mailJobsTo(email);
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }));
  t.is(app.deps.config.SMTP_URL, undefined);
  const payload = sendEmailTask.payload.parse(job.payload);
  await sendEmailTask.run(payload, { ...app.deps, logger }, {} as JobHelpers);
  t.is(lines.length, 1);
  const entry = JSON.parse(lines[0]);
  t.like(entry.mail, { to: email, subject: job.payload.subject });
  t.true(entry.mail.text.includes(linkToken(job.payload.text)));
});

// ─── secrets stay out of the logs ──────────────────────────────────────────────────────────

test('no password or access token ever reaches the logs', async (t) => {
  // The same app, served with a logger that records everything (trace level).
  let output = '';
  const logger = pino(
    { level: 'trace', redact: { paths: redactPaths, censor: '[redacted]' } },
    new Writable({ write: (chunk, _enc, done) => ((output += String(chunk)), done()) }),
  );
  const server = http.createServer(createApp({ ...app.deps, logger }).callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const call = async (method: string, path: string, body?: unknown, token?: string) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(base + path + '?password=in-the-query-too', { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as { access_token: string } };
  };
  try {
    const email = uniqueEmail('logs');
    const password = `S3cret-${randomBytes(6).toString('hex')}`;
    const reg = await call('POST', '/api/v1/auth/register', { email, full_name: 'Log Watcher', password });
    t.is(reg.status, 200);
    const signIn = await call('POST', '/api/v1/auth/login', { email, password });
    t.is(signIn.status, 200);
    t.is((await call('POST', '/api/v1/auth/login', { email, password: `${password}-wrong` })).status, 401);
    t.is((await call('POST', '/api/v1/auth/register', { email, full_name: 'Again', password })).status, 400);
    t.is((await call('POST', '/api/v1/auth/register', { email: 'bad', full_name: 'Again', password: `${password}x`.repeat(10) })).status, 422);
    t.is((await call('GET', '/api/v1/auth/me', undefined, signIn.body.access_token)).status, 200);
    const idToken = await google.signIdToken({ email: uniqueEmail('logs-google') });
    const viaGoogle = await call('POST', '/api/v1/auth/google', { id_token: idToken });
    t.is(viaGoogle.status, 200);
    t.is((await call('POST', '/api/v1/auth/logout', undefined, reg.body.access_token)).status, 200);
    t.is((await call('GET', '/api/v1/auth/me', undefined, reg.body.access_token)).status, 401);

    t.true(output.includes('"path":"/api/v1/auth/login"'), 'requests were logged');
    for (const secret of [
      password,
      `${password}-wrong`,
      reg.body.access_token,
      signIn.body.access_token,
      viaGoogle.body.access_token,
      idToken,
      'in-the-query-too',
    ]) {
      t.false(output.includes(secret), `secret in the logs: ${secret.slice(0, 12)}…`);
    }
  } finally {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
});
