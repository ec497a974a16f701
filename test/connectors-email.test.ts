import test from 'ava';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import email, { createEmailConnector, EMAIL_WEBHOOK_SECRET_HEADER, type EmailConfig } from '../connectors/email/index.ts';
import { messageIdsIn, normalizeMessageId, stripQuotedReply } from '../connectors/email/parse.ts';
import { imapError, MAX_PER_POLL, openImapInbox, pollInbox, type InboxSession, type OpenInbox } from '../connectors/email/poll.ts';
import { ConnectorError, type ConnectorContext, type InboundMessage, type OutboundMessage, type WebhookRequest } from '../connectors/types.ts';
import { startFakeImap, type FakeImap } from './fakes/imap.ts';
import { startFakeSmtp, type FakeSmtp } from './fakes/smtp.ts';
import { closedPort } from './helpers/ports.ts';
import { normalizeChannelConfig, secretFieldsOf } from '../core/domain/channels/channel-config.ts';

// The fake SMTP and IMAP servers run on 127.0.0.1.
const context: ConnectorContext = { baseUrl: '', publicUrl: 'https://parley.example', allowPrivateHosts: true };
const fixture = (name: string) => readFileSync(new URL(`fixtures/${name}`, import.meta.url));
const SMTP_USER = 'support@acme.test';
const SMTP_PASSWORD = 'smtp-password-1';
const IMAP_PASSWORD = 'imap-password-1';

let smtp: FakeSmtp;
let imap: FakeImap;
let files: { url: string; close: () => Promise<void> };
let config: EmailConfig;
test.before(async () => {
  smtp = await startFakeSmtp({ user: SMTP_USER, password: SMTP_PASSWORD });
  imap = await startFakeImap({ user: SMTP_USER, password: IMAP_PASSWORD });
  files = await startFileServer();
  config = normalizeChannelConfig('email', {
    address: 'Support@Acme.test',
    smtp_host: '127.0.0.1',
    smtp_port: smtp.port,
    smtp_user: SMTP_USER,
    smtp_password: SMTP_PASSWORD,
  }) as EmailConfig;
});
test.after.always(async () => {
  await smtp?.close();
  await imap?.close();
  await files?.close();
});

const withImap = (overrides: Partial<EmailConfig> = {}): EmailConfig => ({
  ...config,
  imap_host: '127.0.0.1',
  imap_port: String(imap.port),
  imap_password: IMAP_PASSWORD,
  ...overrides,
});

function outbound(overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    to: { platformUserId: 'ada@customer.test', email: 'ada@customer.test', name: 'Ada Lovelace' },
    text: 'Hi Ada,\nwe have corrected the invoice.',
    attachments: [],
    messageId: '5d0c7f3e-1111-4222-8333-944445555666',
    ...overrides,
  };
}

function rawWebhook(rawBody: Buffer, headers: Record<string, string> = {}, url = 'https://parley.example/api/v1/webhooks/email/7'): WebhookRequest {
  return { url, headers: { 'content-type': 'message/rfc822', ...headers }, rawBody };
}

// --- config -------------------------------------------------------------------------------

test('config: ports coerced to strings, address lower-cased, IMAP optional, passwords secret', (t) => {
  t.is(config.smtp_port, String(smtp.port));
  t.is(config.address, 'support@acme.test');
  t.is(config.imap_host, undefined);
  const full = normalizeChannelConfig('email', {
    ...config,
    smtp_port: '587',
    imap_host: 'imap.acme.test',
    imap_port: 993,
    imap_user: 'u',
    imap_password: 'p',
  });
  t.is(full.smtp_port, '587');
  t.is(full.imap_port, '993');
  t.is(
    normalizeChannelConfig('email', { ...config, imap_host: 'imap.acme.test', imap_user: 'u', imap_password: 'p' }).imap_port,
    '993',
    'IMAP port defaults to 993',
  );
  t.throws(() => normalizeChannelConfig('email', { address: 'nope', smtp_host: 'h', smtp_port: '70000', smtp_user: 'u' }), {
    message: 'Missing required config fields: smtp_password',
  });
  t.throws(() => normalizeChannelConfig('email', { address: 'nope', smtp_host: 'h', smtp_port: '70000', smtp_user: 'u', smtp_password: 'p' }), {
    message: 'Invalid config fields: address (must be an e-mail address), smtp_port (must be a port number (1-65535))',
  });
  t.deepEqual(secretFieldsOf(email), ['smtp_password', 'imap_password']);
});

// --- parsing ------------------------------------------------------------------------------

test('parse: a new message with an attachment', async (t) => {
  const events = await email.webhook.parse(rawWebhook(fixture('email-new.eml')));
  t.deepEqual(events, [
    {
      kind: 'message',
      externalId: '<CAF7a1b2c3d4e5f6@mail.customer.test>',
      from: { platformUserId: 'ada@customer.test', email: 'ada@customer.test', name: 'Ada Lovelace' },
      text: 'Hello,\n\nmy invoice 2026-001 charges me twice for the Pro plan. Could you have a look?\n\nThanks,\nAda',
      // The part's bytes travel in the stored event to fetch_attachment (never into the message row).
      attachments: [
        {
          filename: 'invoice-2026-001.pdf',
          content_type: 'application/pdf',
          size: 45,
          content_base64: 'JVBERi0xLjQKMSAwIG9iajw8Pj5lbmRvYmoKdHJhaWxlcjw8Pj4KJSVFT0YK',
        },
      ],
      sentAt: '2026-01-01T10:00:00.000Z',
      references: [],
      subject: 'Invoice 2026-001 looks wrong',
      // Its recipients (for the Cc a reply carries over); a plain-text mail has no HTML.
      email: { to: [{ address: 'support@acme.test', name: 'Acme Support' }], cc: [] },
    },
  ]);
  t.true(
    Buffer.from((events[0] as { attachments: { content_base64: string }[] }).attachments[0].content_base64, 'base64')
      .toString('latin1')
      .startsWith('%PDF-1.4'),
  );
});

test('parse: a reply: references nearest parent first, quoted text dropped', async (t) => {
  const [message] = (await email.webhook.parse(rawWebhook(fixture('email-reply.eml')))) as InboundMessage[];
  t.is(message.externalId, '<CAF7reply999@mail.customer.test>');
  t.deepEqual(message.references, ['<5d0c7f3e-1111-4222-8333-944445555666@acme.test>', '<CAF7a1b2c3d4e5f6@mail.customer.test>']);
  t.is(message.text, 'Thanks, the corrected invoice is fine now.');
  t.is(message.subject, 'Re: Invoice 2026-001 looks wrong');
  t.is(message.sentAt, '2026-01-01T11:30:00.000Z');
});

test('parse: HTML only, encoded words, no Message-ID (a stable one is derived)', async (t) => {
  const [first] = (await email.webhook.parse(rawWebhook(fixture('email-html-only.eml')))) as InboundMessage[];
  const [again] = (await email.webhook.parse(rawWebhook(fixture('email-html-only.eml')))) as InboundMessage[];
  t.deepEqual(first.from, { platformUserId: 'jose@cliente.test', email: 'jose@cliente.test', name: 'José Núñez' });
  t.is(first.subject, 'Pregunta sobre envío');
  t.is(first.text, 'Hola,\n\n¿Cuándo llega mi pedido? A & B');
  t.regex(first.externalId, /^<[0-9a-f]{64}@parley\.invalid>$/);
  t.is(again.externalId, first.externalId);
  // The HTML part is kept, sanitized (its <style> is gone), beside the text.
  t.deepEqual(first.email, { to: [{ address: 'support@acme.test' }], cc: [], html: '<p>Hola,</p><p>¿Cuándo llega mi pedido? A &amp; B</p>', remote_images: 0 });
});

test('parse: no sender, nothing to answer: no event', async (t) => {
  t.deepEqual(await email.webhook.parse(rawWebhook(fixture('email-no-sender.eml'))), []);
});

test('parse: out-of-office answers and bounces are dropped (no reply loops)', async (t) => {
  t.deepEqual(await email.webhook.parse(rawWebhook(fixture('email-auto-reply.eml'))), []);
  t.deepEqual(await email.webhook.parse(rawWebhook(fixture('email-bounce.eml'))), []);
  const explicitNo = Buffer.from(fixture('email-new.eml').toString('latin1').replace('MIME-Version: 1.0', 'Auto-Submitted: no\r\nMIME-Version: 1.0'), 'latin1');
  t.is((await email.webhook.parse(rawWebhook(explicitNo))).length, 1);
});

test('message ids: brackets normalized, header lists split, no duplicates', (t) => {
  t.is(normalizeMessageId(' abc@x '), '<abc@x>');
  t.is(normalizeMessageId('<abc@x>'), '<abc@x>');
  t.is(normalizeMessageId('<>'), undefined);
  t.deepEqual(messageIdsIn('<a@x> <b@x>\r\n <c@x>'), ['<a@x>', '<b@x>', '<c@x>']);
  t.deepEqual(messageIdsIn(['<a@x>', 'b@x']), ['<a@x>', '<b@x>']);
  t.deepEqual(messageIdsIn(undefined), []);
});

test('quote stripping keeps inline answers and unquoted text', (t) => {
  t.is(stripQuotedReply('Yes please.\n\nOn Mon, Jan 5, 2026 at 9:00 Acme wrote:\n> Shall we refund?\n> Acme'), 'Yes please.');
  t.is(stripQuotedReply('> Shall we refund?\nYes.\n> And ship again?\nNo.'), '> Shall we refund?\nYes.\n> And ship again?\nNo.');
  t.is(stripQuotedReply('Fine.\n-----Original Message-----\nFrom: Acme'), 'Fine.');
  t.is(stripQuotedReply('> only a quote'), '> only a quote');
  t.is(stripQuotedReply('On my way home I wrote:\nthe address is wrong'), 'On my way home I wrote:\nthe address is wrong');
});

// --- webhook secret -----------------------------------------------------------------------

test('verifyWebhook: the channel secret in the header or the query', (t) => {
  const state = { webhook_secret: 's3cret-value' };
  const body = fixture('email-new.eml');
  t.true(email.webhook.verify(rawWebhook(body, { [EMAIL_WEBHOOK_SECRET_HEADER]: 's3cret-value' }), config, state));
  t.true(email.webhook.verify(rawWebhook(body, {}, 'https://parley.example/api/v1/webhooks/email/7?secret=s3cret-value'), config, state));
  t.false(email.webhook.verify(rawWebhook(body, { [EMAIL_WEBHOOK_SECRET_HEADER]: 's3cret-valuf' }), config, state));
  t.false(email.webhook.verify(rawWebhook(body, { [EMAIL_WEBHOOK_SECRET_HEADER]: 's3cret' }), config, state));
  t.false(email.webhook.verify(rawWebhook(body), config, state));
  t.false(email.webhook.verify(rawWebhook(body, { [EMAIL_WEBHOOK_SECRET_HEADER]: 'anything' }), config, {}));
  t.false(email.webhook.verify(rawWebhook(body, { [EMAIL_WEBHOOK_SECRET_HEADER]: '' }), config, { webhook_secret: '' }));
});

// --- sending ------------------------------------------------------------------------------

test.serial("send: authenticated SMTP, our Message-ID, text, a new thread's subject", async (t) => {
  const result = await email.send(config, outbound({ thread: { references: [], subject: 'Your invoice' } }), context);
  t.is(result.externalId, '<5d0c7f3e-1111-4222-8333-944445555666@acme.test>');
  const sent = smtp.messages.at(-1)!;
  t.is(sent.user, SMTP_USER);
  t.is(sent.from, 'support@acme.test');
  t.deepEqual(sent.to, ['ada@customer.test']);
  const mail = await simpleParser(sent.raw);
  t.is(mail.messageId, result.externalId);
  t.is(mail.subject, 'Your invoice');
  t.is(mail.text?.trim(), 'Hi Ada,\nwe have corrected the invoice.');
  t.is(mail.inReplyTo, undefined);
  t.is(mail.headers.get('references'), undefined);
  t.deepEqual(mail.to && !Array.isArray(mail.to) ? mail.to.value : null, [{ address: 'ada@customer.test', name: 'Ada Lovelace' }]);
});

test.serial('send: a reply threads with In-Reply-To and References and says Re:', async (t) => {
  const references = ['<CAF7a1b2c3d4e5f6@mail.customer.test>', '<earlier-out@acme.test>', 'CAF7reply999@mail.customer.test'];
  const result = await email.send(config, outbound({ messageId: 'aaaa-bbbb', thread: { references, subject: 'Invoice 2026-001 looks wrong' } }), context);
  const mail = await simpleParser(smtp.messages.at(-1)!.raw);
  t.is(mail.messageId, result.externalId);
  t.is(result.externalId, '<aaaa-bbbb@acme.test>');
  t.is(mail.inReplyTo, '<CAF7reply999@mail.customer.test>');
  t.deepEqual(mail.references, ['<CAF7a1b2c3d4e5f6@mail.customer.test>', '<earlier-out@acme.test>', '<CAF7reply999@mail.customer.test>']);
  t.is(mail.subject, 'Re: Invoice 2026-001 looks wrong');

  await email.send(config, outbound({ thread: { references, subject: 'RE: already a reply' } }), context);
  t.is((await simpleParser(smtp.messages.at(-1)!.raw)).subject, 'RE: already a reply');
  await email.send(config, outbound({ thread: { references } }), context);
  t.is((await simpleParser(smtp.messages.at(-1)!.raw)).subject, 'Re: Hi Ada,');
});

test.serial('send: a long thread keeps the root and the latest references', async (t) => {
  const references = Array.from({ length: 30 }, (_, i) => `<m${i}@x.test>`);
  await email.send(config, outbound({ thread: { references, subject: 'Long' } }), context);
  const mail = await simpleParser(smtp.messages.at(-1)!.raw);
  t.is(mail.inReplyTo, '<m29@x.test>');
  t.deepEqual(mail.references, ['<m0@x.test>', ...references.slice(11)]);
});

test.serial('send: attachments are fetched from their URLs', async (t) => {
  await email.send(
    config,
    outbound({ attachments: [{ url: `${files.url}/files/label.txt`, filename: 'label.txt', content_type: 'text/plain', size: 13 }] }),
    context,
  );
  const mail = await simpleParser(smtp.messages.at(-1)!.raw);
  t.is(mail.attachments.length, 1);
  t.is(mail.attachments[0].filename, 'label.txt');
  t.is(mail.attachments[0].contentType, 'text/plain');
  t.is(mail.attachments[0].content.toString(), 'shipping label');
});

test('send: a local path as attachment is refused, nothing sent', async (t) => {
  const before = smtp.messages.length;
  const error = await t.throwsAsync(
    email.send(config, outbound({ attachments: [{ url: '/etc/passwd', filename: 'passwd', content_type: 'text/plain', size: 1 }] }), context),
    { instanceOf: ConnectorError },
  );
  t.is(error.kind, 'permanent');
  t.is(smtp.messages.length, before);
});

test("send: a wrong SMTP password is permanent with the server's text", async (t) => {
  const error = await t.throwsAsync(email.send({ ...config, smtp_password: 'wrong' }, outbound(), context), { instanceOf: ConnectorError });
  t.is(error.kind, 'permanent');
  t.regex(error.message, /^SMTP authentication failed: .*535.*Authentication credentials invalid/);
});

test.serial('send: a 5xx reply is permanent, a 4xx reply transient', async (t) => {
  smtp.rejectNext(1, 550, '5.1.1 Mailbox does not exist');
  const rejected = await t.throwsAsync(email.send(config, outbound(), context), { instanceOf: ConnectorError });
  t.is(rejected.kind, 'permanent');
  t.regex(rejected.message, /550 5\.1\.1 Mailbox does not exist/);
  smtp.rejectNext(1, 451, '4.3.0 Try again later');
  const deferred = await t.throwsAsync(email.send(config, outbound(), context), { instanceOf: ConnectorError });
  t.is(deferred.kind, 'transient');
  t.regex(deferred.message, /451 4\.3\.0 Try again later/);
});

test('send: an unreachable SMTP server is transient', async (t) => {
  const error = await t.throwsAsync(email.send({ ...config, smtp_port: String(await closedPort()) }, outbound(), context), { instanceOf: ConnectorError });
  t.is(error.kind, 'transient');
});

// --- registration ---------------------------------------------------------------------------

test('register: SMTP only: connected, mail through the webhook', async (t) => {
  const result = await email.register!(config, { webhookUrl: '', secret: 'sec', state: {} }, context);
  t.deepEqual(result, { status: 'connected', state: { webhook_secret: 'sec', mode: 'webhook' } });
});

test('register: a wrong SMTP password is an error', async (t) => {
  const result = await email.register!({ ...config, smtp_password: 'wrong' }, { webhookUrl: '', secret: 'sec', state: {} }, context);
  t.is(result.status, 'error');
  t.regex(result.last_error!, /^SMTP authentication failed/);
});

test('register: an unreachable SMTP server is retried', async (t) => {
  const error = await t.throwsAsync(
    email.register!({ ...config, smtp_port: String(await closedPort()) }, { webhookUrl: '', secret: 'sec', state: {} }, context),
    { instanceOf: ConnectorError },
  );
  t.is(error.kind, 'transient');
});

test.serial('register with IMAP: polling from the end of INBOX; a wrong IMAP password is an error', async (t) => {
  imap.deliver(fixture('email-new.eml'));
  const result = await email.register!(withImap(), { webhookUrl: '', secret: 'sec', state: { webhook_secret: 'kept' } }, context);
  t.deepEqual(result, {
    status: 'connected',
    state: { webhook_secret: 'kept', mode: 'polling', uidValidity: String(imap.uidValidity), lastUid: imap.messages.at(-1)!.uid },
  });
  t.true(
    imap.commands.some((command) => command.startsWith('EXAMINE')),
    'INBOX is opened read-only',
  );
  // Re-registering the same mailbox keeps the position.
  const again = await email.register!(withImap(), { webhookUrl: '', secret: 'sec', state: { uidValidity: String(imap.uidValidity), lastUid: 0 } }, context);
  t.like(again.state, { uidValidity: String(imap.uidValidity), lastUid: 0 });
  const wrong = await email.register!(withImap({ imap_password: 'wrong' }), { webhookUrl: '', secret: 'sec', state: {} }, context);
  t.is(wrong.status, 'error');
  t.regex(wrong.last_error!, /^IMAP authentication failed: .*Invalid credentials/);
});

// --- polling against the fake IMAP server ---------------------------------------------------

test.serial('poll (IMAP): new mail after the position, read-only, position advances', async (t) => {
  const { state } = await email.poll!(withImap(), {}, context);
  t.like(state, { mode: 'polling', uidValidity: String(imap.uidValidity), lastUid: imap.messages.at(-1)!.uid });
  t.deepEqual((await email.poll!(withImap(), state, context)).events, []);

  const replyUid = imap.deliver(fixture('email-reply.eml'));
  imap.deliver(fixture('email-html-only.eml'));
  const next = await email.poll!(withImap(), { ...state, webhook_secret: 'w' }, context);
  t.deepEqual(next.events.map((event) => (event as InboundMessage).externalId).slice(0, 1), ['<CAF7reply999@mail.customer.test>']);
  t.is(next.events.length, 2);
  t.deepEqual(next.state, { webhook_secret: 'w', mode: 'polling', uidValidity: String(imap.uidValidity), lastUid: replyUid + 1 });
  t.false(
    imap.messages.some((message) => message.seen),
    'fetching does not mark mail as read',
  );
  // `n:*` always matches the newest message: it is not returned twice.
  t.deepEqual((await email.poll!(withImap(), next.state, context)).events, []);

  imap.resetUidValidity();
  const rescanned = await email.poll!(withImap(), next.state, context);
  t.is(rescanned.events.length, imap.messages.length);
  t.like(rescanned.state, { uidValidity: String(imap.uidValidity), lastUid: imap.messages.at(-1)!.uid });
});

test('poll: without IMAP settings nothing happens', async (t) => {
  t.deepEqual(await email.poll!(config, { mode: 'webhook' }, context), { events: [], state: { mode: 'webhook' } });
});

test('poll: IMAP errors are classified', async (t) => {
  const auth = await t.throwsAsync(email.poll!(withImap({ imap_password: 'nope' }), {}, context), { instanceOf: ConnectorError });
  t.is(auth.kind, 'permanent');
  const down = await t.throwsAsync(email.poll!(withImap({ imap_port: String(await closedPort()) }), {}, context), { instanceOf: ConnectorError });
  t.is(down.kind, 'transient');
  t.is(imapError(Object.assign(new Error('x'), { authenticationFailed: true })).kind, 'permanent');
  t.is(imapError(new Error('socket hang up')).kind, 'transient');
});

// --- polling logic with an injected session -------------------------------------------------

function fakeSession(uidValidity: string, mail: Record<number, Buffer>, calls: string[] = []): OpenInbox {
  return async () => {
    const uids = Object.keys(mail)
      .map(Number)
      .sort((a, b) => a - b);
    const session: InboxSession = {
      uidValidity,
      uidNext: (uids.at(-1) ?? 0) + 1,
      async listUids(from) {
        calls.push(`list ${from}`);
        // Like IMAP: `from:*` includes the highest UID even when it is below `from`.
        return uids.filter((uid) => uid >= from || uid === uids.at(-1));
      },
      async fetchSources(wanted) {
        calls.push(`fetch ${wanted.join(',')}`);
        return wanted.map((uid) => ({ uid, source: mail[uid] }));
      },
      async close() {
        calls.push('close');
      },
    };
    return session;
  };
}

const settings = { host: 'h', port: 993, user: 'u', password: 'p' };

test('poll logic: a first poll starts at the end of the mailbox', async (t) => {
  const calls: string[] = [];
  const result = await pollInbox(fakeSession('9', { 3: fixture('email-new.eml'), 8: fixture('email-reply.eml') }, calls), settings, {});
  t.deepEqual(result, { events: [], state: { mode: 'polling', uidValidity: '9', lastUid: 8 } });
  t.deepEqual(calls, ['list 9', 'close']);
});

test('poll logic: only UIDs above the position, in order; no-sender mail skipped but passed', async (t) => {
  const calls: string[] = [];
  const mail = { 3: fixture('email-new.eml'), 5: fixture('email-no-sender.eml'), 8: fixture('email-reply.eml') };
  const result = await pollInbox(fakeSession('9', mail, calls), settings, { uidValidity: '9', lastUid: 3, other: 'kept' });
  t.deepEqual(
    result.events.map((event) => (event as InboundMessage).externalId),
    ['<CAF7reply999@mail.customer.test>'],
  );
  t.deepEqual(result.state, { other: 'kept', mode: 'polling', uidValidity: '9', lastUid: 8 });
  t.deepEqual(calls, ['list 4', 'fetch 5,8', 'close']);
  const caughtUp = await pollInbox(fakeSession('9', mail), settings, result.state);
  t.deepEqual(caughtUp.events, []);
  t.is(caughtUp.state.lastUid, 8);
});

test('poll logic: a new UIDVALIDITY rescans from the start', async (t) => {
  const calls: string[] = [];
  const result = await pollInbox(fakeSession('10', { 1: fixture('email-new.eml'), 2: fixture('email-reply.eml') }, calls), settings, {
    uidValidity: '9',
    lastUid: 500,
  });
  t.is(result.events.length, 2);
  t.deepEqual(result.state, { mode: 'polling', uidValidity: '10', lastUid: 2 });
  t.deepEqual(calls, ['list 1', 'fetch 1,2', 'close']);
});

test('poll logic: at most MAX_PER_POLL messages per poll, the rest next time', async (t) => {
  const mail: Record<number, Buffer> = {};
  for (let uid = 1; uid <= MAX_PER_POLL + 5; uid++) mail[uid] = fixture('email-html-only.eml');
  const first = await pollInbox(fakeSession('1', mail), settings, { uidValidity: '1', lastUid: 0 });
  t.is(first.events.length, MAX_PER_POLL);
  t.is(first.state.lastUid, MAX_PER_POLL);
  const second = await pollInbox(fakeSession('1', mail), settings, first.state);
  t.is(second.events.length, 5);
  t.is(second.state.lastUid, MAX_PER_POLL + 5);
});

test('poll logic: a failure during fetch is transient and closes the session', async (t) => {
  const calls: string[] = [];
  const open: OpenInbox = async (s) => ({
    ...(await fakeSession('1', { 1: fixture('email-new.eml') }, calls)(s)),
    fetchSources: async () => {
      throw new Error('Connection not available');
    },
  });
  const error = await t.throwsAsync(pollInbox(open, settings, { uidValidity: '1', lastUid: 0 }), { instanceOf: ConnectorError });
  t.is(error.kind, 'transient');
  t.deepEqual(calls, ['list 1', 'close']);
});

test('the real IMAP opener is the default', (t) => {
  t.is(typeof openImapInbox, 'function');
  t.is(createEmailConnector().type, 'email');
});

// --- helpers ------------------------------------------------------------------------------

async function startFileServer() {
  const server = createHttpServer((req, res) => {
    if (req.url === '/files/label.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end('shipping label');
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
