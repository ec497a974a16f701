/**
 * Bearer tokens on a protected endpoint: what is accepted, and that every missing, malformed,
 * expired, foreign, unsigned or revoked token is 401 with the spec's body and WWW-Authenticate.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { SignJWT, UnsecuredJWT, base64url, decodeJwt, decodeProtectedHeader } from 'jose';
import { issueAccessToken, issuePurposeToken, verifyAccessToken } from '../core/domain/accounts/tokens.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { registerUser, type Account } from './helpers/fixtures.ts';

let app: TestApp;
let user: Account;

test.before(async () => {
  app = await startTestApp({ env: { ACCESS_TOKEN_TTL: '2h' } });
  user = await registerUser(app, 'Token Holder');
});
test.after.always(() => app?.close());

const me = (headers: Record<string, string> = {}) => app.request('GET', '/api/v1/auth/me', { headers });
const bearer = (token: string) => me({ authorization: `Bearer ${token}` });
const now = () => Math.floor(Date.now() / 1000);

/** A token signed with the app's own key; `claims` override the valid defaults (`undefined` drops one). */
function signed(claims: Record<string, unknown>, key: Uint8Array = app.deps.config.jwtSecret, header: Record<string, unknown> = { alg: 'HS256', typ: 'JWT' }) {
  const payload = Object.fromEntries(
    Object.entries({ sub: user.userId, jti: randomUUID(), iat: now(), exp: now() + 600, ...claims }).filter(([, v]) => v !== undefined),
  );
  return new SignJWT(payload).setProtectedHeader(header as { alg: string }).sign(key);
}

function assertInvalid(t: import('ava').ExecutionContext, res: { status: number; body: unknown; headers: Headers }, label: string) {
  t.is(res.status, 401, label);
  t.deepEqual(res.body, { detail: 'Could not validate credentials' }, label);
  t.is(res.headers.get('www-authenticate'), 'Bearer', label);
}

test('a valid token is accepted, with any case of the scheme', async (t) => {
  t.is((await bearer(user.token)).status, 200);
  t.is((await me({ authorization: `bearer ${user.token}` })).status, 200);
  t.is((await me({ authorization: `BEARER   ${user.token}` })).status, 200);
  // A token built by hand with the app's key and every required claim works too.
  t.is((await bearer(await signed({}))).status, 200);
});

test('issued tokens are HS256 JWTs with sub, jti, iat and exp = iat + ACCESS_TOKEN_TTL', async (t) => {
  t.deepEqual(decodeProtectedHeader(user.token), { alg: 'HS256', typ: 'JWT' });
  const claims = decodeJwt(user.token);
  t.is(claims.sub, user.userId);
  t.regex(String(claims.jti), /^[0-9a-f-]{36}$/);
  t.is(typeof claims.iat, 'number');
  t.is(claims.exp! - claims.iat!, 2 * 3600);
  t.not(
    decodeJwt((await app.request('POST', '/api/v1/auth/login', { body: { email: user.email, password: 'password123' } })).body.access_token).jti,
    claims.jti,
  );
});

test('no Authorization header is 401 Not authenticated with WWW-Authenticate: Bearer', async (t) => {
  const res = await me();
  t.is(res.status, 401);
  t.deepEqual(res.body, { detail: 'Not authenticated' });
  t.is(res.headers.get('www-authenticate'), 'Bearer');
});

test('malformed headers are 401 Could not validate credentials', async (t) => {
  for (const header of [
    'Bearer abc',
    'Basic x',
    'Basic dXNlcjpwYXNz',
    'Bearer',
    'Bearer ',
    'Token ' + user.token,
    user.token,
    `Bearer ${user.token} extra`,
    `Bearer ${user.token}x`,
  ]) {
    assertInvalid(t, await me({ authorization: header }), JSON.stringify(header));
  }
});

test('an expired token is refused', async (t) => {
  assertInvalid(t, await bearer(await signed({ iat: now() - 7200, exp: now() - 60 })), 'expired');
  // Same through the issuer: a token with a lifetime already over.
  assertInvalid(t, await bearer(await issueAccessToken(app.deps.config.jwtSecret, user.userId, -1, 0)), 'negative ttl');
});

test('a token signed with another key is refused', async (t) => {
  assertInvalid(t, await bearer(await signed({}, new TextEncoder().encode('another-secret-that-is-long-enough-000'))), 'other key');
  const other = await startTestApp();
  try {
    // Valid for another deployment (another key), with this deployment's user id.
    const foreign = await issueAccessToken(other.deps.config.jwtSecret, user.userId, 600, 0);
    assertInvalid(t, await bearer(foreign), 'other deployment');
  } finally {
    await other.close();
  }
});

test('unsigned and wrongly signed tokens are refused', async (t) => {
  const claims = { sub: user.userId, jti: randomUUID(), iat: now(), exp: now() + 600 };
  const none = new UnsecuredJWT(claims).encode();
  t.true(none.endsWith('.'));
  assertInvalid(t, await bearer(none), 'alg none');
  // alg none with a signature part copied from a real token.
  assertInvalid(t, await bearer(none + user.token.split('.')[2]), 'alg none + signature');
  // HS512 with the right key: only HS256 is accepted.
  assertInvalid(t, await bearer(await signed({}, app.deps.config.jwtSecret, { alg: 'HS512', typ: 'JWT' })), 'HS512');
  // A valid token whose payload was swapped for another user's.
  const [h, , s] = user.token.split('.');
  const swapped = base64url.encode(JSON.stringify({ ...decodeJwt(user.token), sub: randomUUID() }));
  assertInvalid(t, await bearer([h, swapped, s].join('.')), 'tampered payload');
});

test('tokens missing a claim or with malformed claims are refused', async (t) => {
  const cases: Record<string, Record<string, unknown>> = {
    'no sub': { sub: undefined },
    'no jti': { jti: undefined },
    'no exp': { exp: undefined },
    'sub not a uuid': { sub: 'admin' },
    'jti not a uuid': { jti: "x' or 1=1 --" },
    'sub of a user that does not exist': { sub: randomUUID() },
    'a purpose token (e.g. e-mail verification)': { purpose: 'verify-email' },
  };
  for (const [label, claims] of Object.entries(cases)) {
    assertInvalid(t, await bearer(await signed(claims)), label);
  }
  // The typ header is checked as well.
  assertInvalid(t, await bearer(await signed({}, app.deps.config.jwtSecret, { alg: 'HS256', typ: 'at+jwt' })), 'other typ');
  const purpose = await issuePurposeToken(app.deps.config.jwtSecret, 'verify-email', user.userId, 600, { email: user.email });
  assertInvalid(t, await bearer(purpose), 'issued purpose token');
});

test('a revoked token is refused; logging out is per token', async (t) => {
  const first = (await app.request('POST', '/api/v1/auth/login', { body: { email: user.email, password: 'password123' } })).body.access_token as string;
  const second = (await app.request('POST', '/api/v1/auth/login', { body: { email: user.email, password: 'password123' } })).body.access_token as string;
  const out = await app.request('POST', '/api/v1/auth/logout', { token: first });
  t.is(out.status, 200, out.text);
  assertInvalid(t, await bearer(first), 'revoked');
  t.is((await bearer(second)).status, 200);
  t.is((await bearer(user.token)).status, 200);
});

test("a deleted user's token is refused", async (t) => {
  const gone = await registerUser(app, 'Soon Gone');
  t.is((await bearer(gone.token)).status, 200);
  await app.sql('delete from users where id = $1', [gone.userId]);
  assertInvalid(t, await bearer(gone.token), 'deleted user');
});

test('verifyAccessToken: null for anything but a valid access token', async (t) => {
  const key = app.deps.config.jwtSecret;
  const token = await issueAccessToken(key, user.userId, 60, 0);
  t.like(await verifyAccessToken(key, token), { sub: user.userId });
  t.is(await verifyAccessToken(key, ''), null);
  t.is(await verifyAccessToken(key, 'a.b.c'), null);
  t.is(await verifyAccessToken(new TextEncoder().encode('x'.repeat(64)), token), null);
  t.is(await verifyAccessToken(key, await issuePurposeToken(key, 'verify-email', user.userId, 60)), null);
});

test('verifyAccessToken: a token verified before is refused once it expires (the memo of verified tokens keeps the expiry)', async (t) => {
  const key = app.deps.config.jwtSecret;
  const token = await issueAccessToken(key, user.userId, 1, 0);
  const claims = await verifyAccessToken(key, token);
  t.like(claims, { sub: user.userId });
  // Twice while valid (the second from the memo), then past `exp`.
  t.deepEqual(await verifyAccessToken(key, token), claims);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, (claims?.exp ?? 0) * 1000 - Date.now()) + 50));
  t.is(await verifyAccessToken(key, token), null);
});
