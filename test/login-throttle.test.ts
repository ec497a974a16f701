/**
 * The login lockout by client address (issue #21 item 9): one address trying many accounts is
 * locked out after LOGIN_MAX_FAILURES_PER_ADDRESS failures whatever the e-mails; an IPv6 client
 * counts as its /64; old failures are pruned. Behind one trusted proxy, so each request names
 * its client in X-Forwarded-For.
 */
import test from 'ava';
import { loginAddressKey } from '../core/domain/accounts/login-throttle.ts';

const LOGIN_MAX_FAILURES_PER_ADDRESS = 50;
import { startTestApp, type TestApp } from './helpers/app.ts';
import { registerUser } from './helpers/fixtures.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp({ env: { TRUST_PROXY_HOPS: '1', LOGIN_MAX_FAILURES_PER_ADDRESS: String(LOGIN_MAX_FAILURES_PER_ADDRESS) } });
});
test.after.always(() => app?.close());

const login = (email: string, password: string, from: string) =>
  app.request('POST', '/api/v1/auth/login', { body: { email, password }, headers: { 'x-forwarded-for': from } });

test('loginAddressKey: IPv4 as is, IPv4-mapped as IPv4, IPv6 as its /64 in any spelling', (t) => {
  t.is(loginAddressKey('203.0.113.5'), '203.0.113.5');
  t.is(loginAddressKey('::ffff:203.0.113.5'), '203.0.113.5');
  t.is(loginAddressKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  t.is(loginAddressKey('2001:0DB8:0001:0002:0000:0000:0000:0001'), '2001:db8:1:2::/64');
  t.is(loginAddressKey('2001:db8::1'), '2001:db8:0:0::/64');
  t.is(loginAddressKey('::1'), '0:0:0:0::/64');
});

test('one /64 trying many e-mails is locked out after the address budget; another network is not', async (t) => {
  const victim = await registerUser(app, 'Victim');
  for (let i = 0; i < LOGIN_MAX_FAILURES_PER_ADDRESS; i++) {
    // A different e-mail and a different host of the same /64 each time.
    const res = await login(`nobody-${i}@example.com`, 'password-guess', `2001:db8:77:1::${(i + 1).toString(16)}`);
    t.is(res.status, 401, `attempt ${i + 1}`);
  }
  const locked = await login(victim.email, 'password123', '2001:db8:77:1:ffff::9');
  t.is(locked.status, 429, 'even the right password, from anywhere in that /64');
  const retryAfter = Number(locked.headers.get('retry-after'));
  t.true(retryAfter >= 1 && retryAfter <= 15 * 60, String(retryAfter));
  t.is((await login(victim.email, 'password123', '2001:db8:77:2::1')).status, 200, 'the next /64 is someone else');
  t.is((await login(victim.email, 'password123', '198.51.100.7')).status, 200);
});

test('failures older than the window are pruned by later attempts, whoever made them', async (t) => {
  await app.sql(
    `insert into login_failures (email, ip, at) select 'old-' || g || '@example.com', '192.0.2.1', now() - interval '2 hours' from generate_series(1, 5) g`,
  );
  t.is((await login('someone@example.com', 'wrong', '192.0.2.200')).status, 401);
  const [{ n }] = await app.sql(`select count(*)::int as n from login_failures where at < now() - interval '1 hour'`);
  t.is(n, 0);
});
