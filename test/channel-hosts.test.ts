/**
 * Channel settings cannot lead the server into its own network (SSRF): e-mail server hosts
 * that are or resolve to internal addresses are refused when saved, and again at every
 * connection. This file runs with ALLOW_PRIVATE_HOSTS off, as production does; tests that need
 * the switch on set it on the app's config for their duration (tests here run serially).
 */
import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { inboxOf } from './helpers/inbox.ts';
import { query, workerPerTest } from './helpers/worker.ts';
import { startFakeSmtp, type FakeSmtp } from './fakes/smtp.ts';

const SMTP_USER = 'support@acme.test';
const SMTP_PASSWORD = 'smtp-secret';

let app: TestApp;
let owner: Workspace;
let smtp: FakeSmtp;

test.before(async () => {
  smtp = await startFakeSmtp({ user: SMTP_USER, password: SMTP_PASSWORD });
  app = await startTestApp({ env: { ALLOW_PRIVATE_HOSTS: 'false' } });
  owner = await createWorkspace(app, { plan: 'Pro' });
});

test.after.always(async () => {
  await app?.close();
  await smtp?.close();
});

const runWorker = workerPerTest(() => app);

const emailConfig = (overrides: Record<string, string> = {}) => ({
  address: 'support@acme.test',
  smtp_host: '127.0.0.1',
  smtp_port: String(smtp.port),
  smtp_user: SMTP_USER,
  smtp_password: SMTP_PASSWORD,
  ...overrides,
});

const createEmail = (config: Record<string, string>) => app.request('POST', '/api/v1/channels/', { token: owner.token, body: { type: 'email', config } });
const emailChannels = async () => (await query(app, `select id from channels where business_id = $1 and type = 'email'`, [owner.businessId])).length;

function allowPrivate(value: boolean) {
  (app.deps.config as { ALLOW_PRIVATE_HOSTS: boolean }).ALLOW_PRIVATE_HOSTS = value;
}

test.serial('create: internal SMTP or IMAP hosts are 400 naming the field, and nothing is stored', async (t) => {
  const before = await emailChannels();
  const cases: [Record<string, string>, RegExp][] = [
    [{ smtp_host: '127.0.0.1' }, /smtp_host \(127\.0\.0\.1 is a loopback address/],
    [{ smtp_host: 'localhost' }, /smtp_host \(localhost resolves to .*loopback/],
    [{ smtp_host: '169.254.169.254' }, /smtp_host \(169\.254\.169\.254 is a link-local address/],
    [{ smtp_host: '10.0.0.8' }, /smtp_host \(10\.0\.0\.8 is a private network address/],
    [{ smtp_host: '0.0.0.0' }, /smtp_host \(0\.0\.0\.0 is an unspecified address/],
    [{ smtp_host: '8.8.8.8', imap_host: '192.168.1.10', imap_user: 'u', imap_password: 'p' }, /imap_host \(192\.168\.1\.10 is a private network address/],
  ];
  for (const [overrides, detail] of cases) {
    const res = await createEmail(emailConfig(overrides));
    t.is(res.status, 400, JSON.stringify(overrides));
    t.regex(res.body.detail, detail);
  }
  t.is(await emailChannels(), before);
});

test.serial('update: an internal host is refused and the stored config stays', async (t) => {
  const created = await createEmail(emailConfig({ smtp_host: '8.8.8.8' }));
  t.is(created.status, 200, created.text);
  const res = await app.request('PATCH', `/api/v1/channels/${created.body.id}`, { token: owner.token, body: { config: { smtp_host: '169.254.169.254' } } });
  t.is(res.status, 400);
  t.regex(res.body.detail, /smtp_host/);
  const channel = await inboxOf(app, owner.token).channelOf(created.body.id);
  t.is(channel.config.smtp_host, '8.8.8.8');
  await app.request('DELETE', `/api/v1/channels/${created.body.id}`, { token: owner.token });
});

test.serial('ALLOW_PRIVATE_HOSTS: a mail server on loopback is accepted and connected; link-local and unspecified stay refused', async (t) => {
  allowPrivate(true);
  try {
    for (const host of ['169.254.169.254', '0.0.0.0', '::']) {
      const res = await createEmail(emailConfig({ smtp_host: host }));
      t.is(res.status, 400, host);
    }
    const res = await createEmail(emailConfig());
    t.is(res.status, 200, res.text);
    await runWorker();
    t.like(await inboxOf(app, owner.token).registered(res.body.id), { status: 'connected', last_error: null });
    await app.request('DELETE', `/api/v1/channels/${res.body.id}`, { token: owner.token });
  } finally {
    allowPrivate(false);
  }
});

test.serial('connect time: a host that became internal after it was saved is never contacted; the channel shows error with the reason', async (t) => {
  // Saved while the switch was on (as a host whose DNS answer later changes would be).
  allowPrivate(true);
  const res = await createEmail(emailConfig());
  allowPrivate(false);
  t.is(res.status, 200, res.text);
  const logins = smtp.logins.length;
  await runWorker();
  const channel = await inboxOf(app, owner.token).registered(res.body.id);
  t.is(channel.status, 'error');
  t.regex(channel.last_error, /^smtp_host: 127\.0\.0\.1 is a loopback address/);
  t.is(smtp.logins.length, logins, 'the server was never contacted');
  await app.request('DELETE', `/api/v1/channels/${res.body.id}`, { token: owner.token });
});

test.serial('a host that does not resolve is saved, then shows error with the reason instead of staying pending', async (t) => {
  const res = await createEmail(emailConfig({ smtp_host: 'mail.no-such-host.invalid' }));
  t.is(res.status, 200, res.text);
  await runWorker();
  const channel = await inboxOf(app, owner.token).registered(res.body.id);
  t.like(channel, { status: 'error', last_error: 'smtp_host: mail.no-such-host.invalid cannot be resolved' });
});
