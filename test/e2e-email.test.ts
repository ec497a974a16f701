/**
 * E-mail end to end, through the real HTTP server and the real worker against a fake SMTP
 * submission server and a fake IMAP server: registration checks the credentials (and with IMAP
 * settings starts polling at the end of INBOX), customer mail arrives by the raw-MIME webhook
 * and by IMAP polling, an agent reply goes out by SMTP threaded under the customer's mail, and
 * the customer's answer to that reply lands in the same conversation.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { simpleParser } from 'mailparser';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { inboxOf, type Inbox } from './helpers/inbox.ts';
import { query, waitFor, workerPerTest } from './helpers/worker.ts';
import { startFakeSmtp, type FakeSmtp } from './fakes/smtp.ts';
import { startFakeImap, type FakeImap } from './fakes/imap.ts';

const SUPPORT = 'support@acme.test';
const SMTP_PASSWORD = 'smtp-e2e-password';
const IMAP_PASSWORD = 'imap-e2e-password';

let app: TestApp;
let smtp: FakeSmtp;
let imap: FakeImap;
let owner: Workspace;
let inbox: Inbox;
let channelId: string;
let secret: string;
// The fake IMAP server reads these at every LOGIN: changing the password here changes it on the server.
const imapLogin = { user: SUPPORT, password: IMAP_PASSWORD };

test.before(async () => {
  smtp = await startFakeSmtp({ user: SUPPORT, password: SMTP_PASSWORD });
  imap = await startFakeImap(imapLogin);
  app = await startTestApp();
  owner = await createWorkspace(app, { plan: 'Mini' });
  inbox = inboxOf(app, owner.token);
});

test.after.always(async () => {
  await app?.close();
  await smtp?.close();
  await imap?.close();
});

const runWorker = workerPerTest(() => app);

const smtpConfig = (overrides: Record<string, string> = {}) => ({
  address: SUPPORT,
  smtp_host: '127.0.0.1',
  smtp_port: String(smtp.port),
  smtp_user: SUPPORT,
  smtp_password: SMTP_PASSWORD,
  ...overrides,
});
const imapConfig = (overrides: Record<string, string> = {}) =>
  smtpConfig({ imap_host: '127.0.0.1', imap_port: String(imap.port), imap_user: SUPPORT, imap_password: IMAP_PASSWORD, ...overrides });

type Mail = { from: string; subject: string; text: string; messageId?: string; inReplyTo?: string; references?: string[]; to?: string };

/** A plain-text RFC 822 message as a customer's mail client would send it. */
function rfc822(mail: Mail): { raw: string; messageId: string } {
  const messageId = mail.messageId ?? `<${randomBytes(8).toString('hex')}@mail.customer.test>`;
  const headers = [
    `From: ${mail.from}`,
    `To: ${mail.to ?? `Acme Support <${SUPPORT}>`}`,
    `Subject: ${mail.subject}`,
    `Date: ${new Date().toUTCString()}`,
    `Message-ID: ${messageId}`,
    ...(mail.inReplyTo ? [`In-Reply-To: ${mail.inReplyTo}`] : []),
    ...(mail.references ? [`References: ${mail.references.join(' ')}`] : []),
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset="UTF-8"',
  ];
  return { raw: `${headers.join('\r\n')}\r\n\r\n${mail.text.replace(/\n/g, '\r\n')}\r\n`, messageId };
}

async function postMail(raw: string, secretValue: string | null = secret, channel = channelId) {
  return app.request('POST', `/api/v1/webhooks/email/${channel}`, {
    rawBody: raw,
    headers: { 'content-type': 'message/rfc822', ...(secretValue === null ? {} : { 'x-parley-webhook-secret': secretValue }) },
  });
}

async function createChannel(config: Record<string, string>) {
  const res = await app.request('POST', '/api/v1/channels/', { token: owner.token, body: { type: 'email', config } });
  if (res.status !== 200) throw new Error(`channel: ${res.status} ${res.text}`);
  return res.body as { id: string; status: string };
}

const stateOf = async (id: string) => (await query(app, 'select state from channels where id = $1', [id]))[0].state;

async function conversationCount(customerUuid: string, count: number) {
  return waitFor(
    async () => {
      const list = await inbox.conversationsOf('email', customerUuid);
      return list.length === count ? list : null;
    },
    20_000,
    `${count} conversation(s)`,
  );
}

const messageCount = (conversationId: string, count: number) =>
  waitFor(
    async () => {
      const messages = await inbox.messagesOf(conversationId);
      return messages.length === count ? messages : null;
    },
    20_000,
    `${count} message(s)`,
  );

/** A customer's new mail through the webhook, processed; returns the conversation and the mail's Message-ID. */
async function customerWrites(from: string, subject: string, text: string) {
  const mail = rfc822({ from, subject, text });
  const res = await postMail(mail.raw);
  if (res.status !== 200) throw new Error(`webhook: ${res.status} ${res.text}`);
  await runWorker();
  const customer = await inbox.customerBy('email', from.match(/<(.+)>/)?.[1] ?? from);
  const [conversation] = await conversationCount(customer.uuid, 1);
  return { conversationId: conversation.id as string, messageId: mail.messageId, customer };
}

test.serial('register: SMTP credentials checked, connected; mail arrives by the webhook with a per-channel secret', async (t) => {
  const channel = await createChannel(smtpConfig());
  t.is(channel.status, 'pending');
  channelId = channel.id;
  await runWorker();
  t.like(await inbox.registered(channelId), { status: 'connected', last_error: null });
  const state = await stateOf(channelId);
  t.is(state.mode, 'webhook');
  t.regex(state.webhook_secret, /^[0-9a-f]{48}$/);
  secret = state.webhook_secret;
  // The owner reads the forwarding address and its secret through the API; an agent does not.
  const listed = (await app.request('GET', '/api/v1/channels/', { token: owner.token })).body.find((c: { id: string }) => c.id === channelId);
  t.deepEqual(listed.inbound_webhook, { url: `${app.deps.config.publicUrl}/api/v1/webhooks/email/${channelId}`, secret });
  const agent = await addMember(app, owner.businessId, 'agent');
  const asAgent = (await app.request('GET', '/api/v1/channels/', { token: agent.token })).body.find((c: { id: string }) => c.id === channelId);
  t.is(asAgent.inbound_webhook, null);
  t.true(smtp.logins.some((l) => l.user === SUPPORT && l.ok));
});

test.serial("register: a wrong SMTP password, or a wrong IMAP password, is an error with the server's reason", async (t) => {
  await runWorker();
  const badSmtp = await createChannel(smtpConfig({ smtp_password: 'wrong' }));
  const smtpFailure = await inbox.registered(badSmtp.id);
  t.is(smtpFailure.status, 'error');
  t.regex(smtpFailure.last_error, /^SMTP authentication failed: .*Authentication credentials invalid/);
  t.is((await app.request('DELETE', `/api/v1/channels/${badSmtp.id}`, { token: owner.token })).status, 200);

  const badImap = await createChannel(imapConfig({ imap_password: 'wrong' }));
  const imapFailure = await inbox.registered(badImap.id);
  t.is(imapFailure.status, 'error');
  t.regex(imapFailure.last_error, /^IMAP authentication failed: .*Invalid credentials/);
  t.is((await app.request('DELETE', `/api/v1/channels/${badImap.id}`, { token: owner.token })).status, 200);
});

test.serial("inbound: raw MIME with the channel's secret is stored with its job before the 200, then becomes customer, conversation and message", async (t) => {
  const mail = rfc822({
    from: '"Ada Lovelace" <Ada@Customer.Test>',
    subject: 'Invoice 2026-001 looks wrong',
    text: 'Hello,\n\nmy invoice charges me twice.\n\nAda',
  });
  const res = await postMail(mail.raw);
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body, { received: 1 });
  const [event] = await query(app, 'select id, kind, processed_at from inbound_events where channel_id = $1 and dedupe_key = $2', [channelId, mail.messageId]);
  t.like(event, { kind: 'message', processed_at: null });
  t.is((await inbox.inboundJobs([event.id])).length, 1);

  await runWorker();
  const customer = await inbox.customerBy('email', 'ada@customer.test');
  t.like(customer, { name: 'Ada Lovelace', phone: null });
  const [conversation] = await conversationCount(customer.uuid, 1);
  t.like(conversation, { status: 'open', channel_type: 'email', channel_id: channelId });
  const [message] = await messageCount(conversation.id, 1);
  t.like(message, { sender_type: 'customer', content: 'Hello,\n\nmy invoice charges me twice.\n\nAda', external_id: mail.messageId, delivery_status: null });
});

test.serial('inbound: the same mail five times makes one message', async (t) => {
  const mail = rfc822({ from: 'grace@customer.test', subject: 'Password reset', text: 'The reset link never arrives.' });
  const before = await inbox.countEvents();
  const answers = await Promise.all(Array.from({ length: 5 }, () => postMail(mail.raw)));
  t.deepEqual(
    answers.map((a) => a.status),
    [200, 200, 200, 200, 200],
  );
  t.is(
    answers.reduce((sum, a) => sum + a.body.received, 0),
    1,
  );
  t.is(await inbox.countEvents(), before + 1);

  await runWorker();
  const customer = await inbox.customerBy('email', 'grace@customer.test');
  const [conversation] = await conversationCount(customer.uuid, 1);
  for (let i = 0; i < 5; i++) t.is((await postMail(mail.raw)).status, 200);
  await waitFor(async () => (await inbox.countInboundJobs()) === 0, 20_000, 'inbound jobs done');
  t.is((await inbox.messagesOf(conversation.id)).length, 1);
  t.is((await inbox.conversationsOf('email', customer.uuid)).length, 1);
});

test.serial('inbound: a missing or wrong secret is 401 and stores nothing', async (t) => {
  const mail = rfc822({ from: 'mallory@customer.test', subject: 'Refund', text: 'Refund me' });
  const events = await inbox.countEvents();
  const jobs = await inbox.countInboundJobs();
  for (const [name, value] of [
    ['no secret', null],
    ['wrong secret', 'not-the-secret'],
    ['secret with a suffix', `${secret}x`],
  ] as const) {
    const res = await postMail(mail.raw, value);
    t.is(res.status, 401, name);
    t.deepEqual(res.body, { detail: 'Invalid webhook signature' }, name);
  }
  t.is(await inbox.countEvents(), events);
  t.is(await inbox.countInboundJobs(), jobs);
});

test.serial(
  'reply: SMTP mail to the customer threaded under their mail ("Re:", In-Reply-To, References); their answer lands in the same conversation',
  async (t) => {
    const {
      conversationId,
      messageId: customerMessageId,
      customer,
    } = await customerWrites('Katherine Johnson <katherine@customer.test>', 'Order 7 missing', 'My order 7 has not arrived.');
    const before = smtp.messages.length;
    const sent = await inbox.reply(conversationId, 'Hi Katherine,\nyour order ships today.');
    t.is(sent.delivery_status, 'queued');
    const message = await inbox.messageSettled(conversationId, sent.id);
    t.like(message, { delivery_status: 'sent', error: null });

    const delivered = smtp.messages.slice(before);
    t.is(delivered.length, 1);
    t.deepEqual(delivered[0].to, ['katherine@customer.test']);
    t.is(delivered[0].from, SUPPORT);
    const parsed = await simpleParser(delivered[0].raw);
    t.is(parsed.subject, 'Re: Order 7 missing');
    t.is(parsed.inReplyTo, customerMessageId);
    t.deepEqual([parsed.references].flat(), [customerMessageId]);
    t.is(parsed.text?.trim(), 'Hi Katherine,\nyour order ships today.');
    t.is(parsed.to && !Array.isArray(parsed.to) ? parsed.to.value[0].address : null, 'katherine@customer.test');
    t.is(message.external_id, parsed.messageId, "the reply's Message-ID is its external id");

    // The customer answers Parley's reply: it threads by In-Reply-To into the same conversation.
    const answer = rfc822({
      from: 'Katherine Johnson <katherine@customer.test>',
      subject: 'Re: Order 7 missing',
      text: `Thanks, got the tracking number.\n\nOn ${new Date().toUTCString()} Acme Support <${SUPPORT}> wrote:\n> Hi Katherine,\n> your order ships today.`,
      inReplyTo: parsed.messageId,
      references: [customerMessageId, parsed.messageId!],
    });
    t.is((await postMail(answer.raw)).status, 200);
    const messages = await messageCount(conversationId, 3);
    t.like(messages[2], { sender_type: 'customer', content: 'Thanks, got the tracking number.', external_id: answer.messageId });
    t.is((await inbox.conversationsOf('email', customer.uuid)).length, 1);

    // A client that names only Parley's reply (In-Reply-To, no References) threads too.
    const terse = rfc822({ from: 'katherine@customer.test', subject: 'Re: Order 7 missing', text: 'One more thing: gift wrap?', inReplyTo: parsed.messageId });
    t.is((await postMail(terse.raw)).status, 200);
    t.like((await messageCount(conversationId, 4))[3], { content: 'One more thing: gift wrap?' });

    // A new mail without references from the same customer is a new conversation.
    t.is((await postMail(rfc822({ from: 'katherine@customer.test', subject: 'Another question', text: 'Do you ship to Canada?' }).raw)).status, 200);
    await conversationCount(customer.uuid, 2);
  },
);

test.serial(
  "a stranger who quotes another customer's Message-ID in References gets a conversation of their own; the thread and the reply stay the victim's",
  async (t) => {
    const victim = await customerWrites('Dorothy Vaughan <dorothy@customer.test>', 'Invoice 12', 'Please resend invoice 12.');
    const sent = await inbox.reply(victim.conversationId, 'Dorothy, invoice 12 is attached.');
    await inbox.messageSettled(victim.conversationId, sent.id);
    const replyId = (await inbox.messagesOf(victim.conversationId)).find((m: { id: string }) => m.id === sent.id).external_id;

    // The stranger knows both Message-IDs (forwarded mail, a leaked header) and quotes them.
    const forged = rfc822({
      from: 'Mallory <mallory@attacker.test>',
      subject: 'Re: Invoice 12',
      text: 'Please send all invoices to this address from now on.',
      inReplyTo: replyId,
      references: [victim.messageId, replyId],
    });
    t.is((await postMail(forged.raw)).status, 200);
    await runWorker();
    const stranger = await waitFor(
      async () => {
        const row = (await query(app, `select id from customers where email = 'mallory@attacker.test'`))[0];
        return row ? await inbox.conversationsOf('email', row.id) : null;
      },
      20_000,
      "the stranger's conversation",
    );
    t.is(stranger.length, 1, 'the stranger has a conversation of their own');
    t.not(stranger[0].id, victim.conversationId);
    t.deepEqual(
      (await messageCount(stranger[0].id, 1)).map((m: { content: string }) => m.content),
      ['Please send all invoices to this address from now on.'],
    );
    // The victim's thread holds only the victim's mail and the reply.
    const thread = await messageCount(victim.conversationId, 2);
    t.deepEqual(
      thread.map((m: { sender_type: string }) => m.sender_type),
      ['customer', 'agent'],
    );

    // The real customer's answer with the same References still threads into their conversation.
    const answer = rfc822({
      from: 'dorothy@customer.test',
      subject: 'Re: Invoice 12',
      text: 'Got it, thanks.',
      inReplyTo: replyId,
      references: [victim.messageId, replyId],
    });
    t.is((await postMail(answer.raw)).status, 200);
    t.like((await messageCount(victim.conversationId, 3))[2], { sender_type: 'customer', content: 'Got it, thanks.' });
  },
);

test.serial('delivery: a temporary SMTP refusal (451) then acceptance delivers once, after a retry', async (t) => {
  const { conversationId } = await customerWrites('margaret@customer.test', 'Hello', 'Anyone there?');
  const before = smtp.messages.length;
  smtp.rejectNext(1, 451, '4.3.0 Try again later');
  const sent = await inbox.reply(conversationId, 'We are here.');
  const message = await inbox.messageSettled(conversationId, sent.id);
  t.like(message, { delivery_status: 'sent', error: null });
  const delivered = smtp.messages.slice(before);
  t.is(delivered.length, 1, 'delivered exactly once');
  t.deepEqual(delivered[0].to, ['margaret@customer.test']);
  t.is((await simpleParser(delivered[0].raw)).text?.trim(), 'We are here.');
  t.is(await inbox.releasedDeliveryJob(sent.id), undefined, 'no job left');
});

test.serial("delivery: a permanent SMTP refusal (550) fails the message with the server's reason, without retrying", async (t) => {
  const { conversationId } = await customerWrites('radia@customer.test', 'Hi', 'Hello');
  const before = smtp.messages.length;
  smtp.rejectNext(1, 550, '5.1.1 No such user');
  const sent = await inbox.reply(conversationId, 'Hello from support');
  const message = await inbox.messageSettled(conversationId, sent.id);
  t.is(message.delivery_status, 'failed');
  t.regex(message.error, /^SMTP: 550 5\.1\.1 No such user/);
  t.is(message.external_id, null);
  t.is(await inbox.releasedDeliveryJob(sent.id), undefined, 'its drain finished, nothing waits for a retry');
  t.is(smtp.messages.length, before, 'nothing was accepted, and nothing retried');
});

test.serial("delivery: refused SMTP credentials (the mailbox password changed) fail the reply with the server's reason", async (t) => {
  const other = await createChannel(smtpConfig({ address: 'billing@acme.test' }));
  await runWorker();
  t.like(await inbox.registered(other.id), { status: 'connected' });
  const otherSecret = (await stateOf(other.id)).webhook_secret;
  t.is(
    (await postMail(rfc822({ from: 'edsger@customer.test', to: 'billing@acme.test', subject: 'Invoice', text: 'Wrong VAT?' }).raw, otherSecret, other.id))
      .status,
    200,
  );
  const customer = await inbox.customerBy('email', 'edsger@customer.test');
  const [conversation] = await conversationCount(customer.uuid, 1);
  t.is(conversation.channel_id, other.id);

  const patched = await app.request('PATCH', `/api/v1/channels/${other.id}`, { token: owner.token, body: { config: { smtp_password: 'the-old-password' } } });
  t.is(patched.status, 200, patched.text);
  t.like(await inbox.registered(other.id), { status: 'error' });
  const before = smtp.messages.length;
  const sent = await inbox.reply(conversation.id, 'The VAT is right.');
  const message = await inbox.messageSettled(conversation.id, sent.id);
  t.is(message.delivery_status, 'failed');
  t.regex(message.error, /^SMTP authentication failed: .*Authentication credentials invalid/);
  t.is(smtp.messages.length, before);
  t.is(await inbox.releasedDeliveryJob(sent.id), undefined, 'its drain finished, nothing waits for a retry');
  t.is((await app.request('DELETE', `/api/v1/channels/${other.id}`, { token: owner.token })).status, 200);
});

test.serial('IMAP: with IMAP settings the channel polls from the end of INBOX; new mail arrives after poll_channel runs', async (t) => {
  imap.deliver(rfc822({ from: 'old@customer.test', subject: 'Old', text: 'Sent before the channel existed' }).raw);
  const channel = await createChannel(imapConfig({ address: 'help@acme.test' }));
  await runWorker();
  t.like(await inbox.registered(channel.id), { status: 'connected', last_error: null });
  const state = await stateOf(channel.id);
  t.like(state, { mode: 'polling', uidValidity: String(imap.uidValidity), lastUid: 1 });

  const mail = rfc822({ from: 'Barbara Liskov <barbara@customer.test>', to: 'help@acme.test', subject: 'Substitution', text: 'Can I swap my plan?' });
  imap.deliver(mail.raw);
  // What the crontab does every minute: poll_channels enqueues one poll_channel per polling channel.
  await query(app, `select graphile_worker.add_job('poll_channels', '{}'::json)`);
  const customer = await inbox.customerBy('email', 'barbara@customer.test');
  const [conversation] = await conversationCount(customer.uuid, 1);
  t.like(conversation, { channel_id: channel.id, channel_type: 'email' });
  const [message] = await messageCount(conversation.id, 1);
  t.like(message, { sender_type: 'customer', content: 'Can I swap my plan?', external_id: mail.messageId });
  t.like(await stateOf(channel.id), { lastUid: 2 });

  // Polling again (a poll_channel job directly) imports nothing twice and never the old mail.
  await query(app, `select graphile_worker.add_job('poll_channel', json_build_object('channel_id', $1::text))`, [channel.id]);
  await waitFor(
    async () =>
      (await query(app, `select 1 from graphile_worker.jobs where task_identifier in ('poll_channels', 'poll_channel', 'process_inbound')`)).length === 0,
    20_000,
    'polls done',
  );
  t.is((await inbox.messagesOf(conversation.id)).length, 1);
  t.is((await app.request('GET', '/api/v1/customers', { token: owner.token, query: { q: 'old@customer.test' } })).body.length, 0);
  t.true(
    imap.messages.every((m) => !m.seen),
    'mail is read without marking it seen',
  );
});

test.serial('IMAP: a refused login while polling puts the channel in error and stops polling; saving it again resumes where it stopped', async (t) => {
  const res = await app.request('GET', '/api/v1/channels', { token: owner.token });
  const channel = (res.body as any[]).find((c) => c.config.address === 'help@acme.test');
  await runWorker();
  const jobsDone = () =>
    waitFor(
      async () =>
        (await query(app, `select 1 from graphile_worker.jobs where task_identifier in ('poll_channels', 'poll_channel', 'process_inbound')`)).length === 0,
      20_000,
      'jobs done',
    );
  const logins = () => imap.commands.filter((c) => c.startsWith('LOGIN')).length;

  imapLogin.password = 'changed-by-the-mail-provider';
  try {
    const mail = rfc822({ from: 'alan@customer.test', to: 'help@acme.test', subject: 'Hello', text: 'Written while the password was wrong' });
    imap.deliver(mail.raw);
    await query(app, `select graphile_worker.add_job('poll_channels', '{}'::json)`);
    const failed = await waitFor(
      async () => {
        const list = (await app.request('GET', '/api/v1/channels', { token: owner.token })).body as any[];
        const c = list.find((x) => x.id === channel.id);
        return c.status === 'error' ? c : null;
      },
      20_000,
      'channel in error',
    );
    t.regex(failed.last_error, /^IMAP authentication failed: .*Invalid credentials/);
    await jobsDone();

    // The next rounds leave the refused mailbox alone.
    const loginsInError = logins();
    await query(app, `select graphile_worker.add_job('poll_channels', '{}'::json)`);
    await jobsDone();
    t.is(logins(), loginsInError, 'no login attempted while in error');

    // The owner fixes the password at the provider and re-activates the channel: it registers again and catches up.
    imapLogin.password = IMAP_PASSWORD;
    for (const is_active of [false, true]) {
      t.is((await app.request('PATCH', `/api/v1/channels/${channel.id}`, { token: owner.token, body: { is_active } })).status, 200);
    }
    t.like(await inbox.registered(channel.id), { status: 'connected', last_error: null });
    await query(app, `select graphile_worker.add_job('poll_channels', '{}'::json)`);
    const customer = await inbox.customerBy('email', 'alan@customer.test');
    const [conversation] = await conversationCount(customer.uuid, 1);
    t.like((await messageCount(conversation.id, 1))[0], { content: 'Written while the password was wrong', external_id: mail.messageId });
  } finally {
    imapLogin.password = IMAP_PASSWORD;
  }
});

// ——— E-mail in depth (issue 19 item 6): HTML mail, Cc/Bcc, signatures, multipart replies, forwards ———

/** A multipart/alternative mail (text + HTML) with To and Cc lists, as a mail client sends it. */
function htmlMail(mail: { from: string; to: string; cc?: string; subject: string; text: string; html: string }): { raw: string; messageId: string } {
  const messageId = `<${randomBytes(8).toString('hex')}@mail.customer.test>`;
  const boundary = `b-${randomBytes(6).toString('hex')}`;
  const lines = [
    `From: ${mail.from}`,
    `To: ${mail.to}`,
    ...(mail.cc ? [`Cc: ${mail.cc}`] : []),
    `Subject: ${mail.subject}`,
    `Date: ${new Date().toUTCString()}`,
    `Message-ID: ${messageId}`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/alternative; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset="UTF-8"',
    '',
    mail.text,
    `--${boundary}`,
    'Content-Type: text/html; charset="UTF-8"',
    '',
    mail.html,
    `--${boundary}--`,
    '',
  ];
  return { raw: lines.join('\r\n'), messageId };
}

const HOSTILE_HTML =
  '<html><head><style>p{color:red}</style><script>steal(document.cookie)</script></head><body>' +
  '<p onclick="steal()">The lid of my <b>kettle</b> is broken.</p>' +
  '<a href="javascript:alert(1)">see here</a> <a href="https://customer.test/order/7">order 7</a>' +
  '<img src="https://cdn.customer.test/lid.jpg" alt="The broken lid" width="320">' +
  '<img src="https://tracker.test/open.gif?u=ada" width="1" height="1">' +
  '</body></html>';

let htmlThread: { conversationId: string; messageId: string };

test.serial('HTML mail: the plain text is the content, the HTML is sanitized with remote images blocked until images=1, and its To/Cc are kept', async (t) => {
  await runWorker();
  const mail = htmlMail({
    from: 'Ada Byron <ada.html@customer.test>',
    to: `Acme Support <${SUPPORT}>, Bob Byron <Bob@Customer.test>`,
    cc: `Carol <carol@customer.test>, ${SUPPORT}`,
    subject: 'Kettle lid',
    text: 'The lid of my kettle is broken.',
    html: HOSTILE_HTML,
  });
  t.is((await postMail(mail.raw)).status, 200);
  const customer = await inbox.customerBy('email', 'ada.html@customer.test');
  const [conversation] = await conversationCount(customer.uuid, 1);
  const [message] = await messageCount(conversation.id, 1);
  htmlThread = { conversationId: conversation.id, messageId: message.id };

  t.is(message.content, 'The lid of my kettle is broken.', 'the plain text is kept as the content');
  const html: string = message.html_sanitized;
  t.truthy(html);
  t.false(/<script|steal|onclick|javascript:|<style|tracker\.test/i.test(html), html);
  t.true(html.includes('<b>kettle</b>'));
  t.true(html.includes('href="https://customer.test/order/7"'));
  t.true(html.includes('data-parley-src="https://cdn.customer.test/lid.jpg"'));
  t.false(/\ssrc="https:/.test(html), 'no remote image loads by default');
  t.is(message.remote_images, 1);
  t.deepEqual(
    message.email.to.map((a: { address: string }) => a.address),
    [SUPPORT, 'bob@customer.test'],
  );
  t.deepEqual(message.email.cc, [{ address: 'carol@customer.test', name: 'Carol' }, { address: SUPPORT }]);

  // The agent asks for the images: the same HTML with src armed (list and conversation alike), never the tracker.
  const listed = await app.request('GET', `/api/v1/conversations/${conversation.id}/messages`, { token: owner.token, query: { images: '1' } });
  t.is(listed.status, 200);
  const armed: string = listed.body[0].html_sanitized;
  t.true(armed.includes('src="https://cdn.customer.test/lid.jpg"'));
  t.false(armed.includes('tracker.test'));
  const read = await app.request('GET', `/api/v1/conversations/${conversation.id}`, { token: owner.token, query: { images: '1' } });
  t.true(read.body.messages[0].html_sanitized.includes('src="https://cdn.customer.test/lid.jpg"'));
  t.is((await app.request('GET', `/api/v1/conversations/${conversation.id}/messages`, { token: owner.token, query: { images: 'yes' } })).status, 422);
});

test.serial(
  "reply: the thread's Cc is carried over, Bcc is added, the agent's and the channel's signatures appended, sent as multipart text + HTML",
  async (t) => {
    await runWorker();
    const { conversationId } = htmlThread;
    t.like((await app.request('PUT', '/api/v1/team/signature', { token: owner.token, body: { signature: '  Grace Hopper\nSupport lead  ' } })).body, {
      signature: 'Grace Hopper\nSupport lead',
    });
    t.deepEqual((await app.request('GET', '/api/v1/team/signature', { token: owner.token })).body, { signature: 'Grace Hopper\nSupport lead' });
    t.is((await app.request('PUT', '/api/v1/team/signature', { token: owner.token, body: { signature: 'x'.repeat(2001) } })).status, 422);
    const patched = await app.request('PATCH', `/api/v1/channels/${channelId}`, {
      token: owner.token,
      body: { config: { signature: 'Acme Inc.\nacme.test' } },
    });
    t.is(patched.status, 200, patched.text);
    t.like(await inbox.registered(channelId), { status: 'connected' });

    const recipients = await app.request('GET', `/api/v1/conversations/${conversationId}/reply-recipients`, { token: owner.token });
    t.is(recipients.status, 200, recipients.text);
    t.deepEqual(recipients.body, {
      from: SUPPORT,
      to: { address: 'ada.html@customer.test', name: 'Ada Byron' },
      cc: [
        { address: 'bob@customer.test', name: 'Bob Byron' },
        { address: 'carol@customer.test', name: 'Carol' },
      ],
      signature: 'Grace Hopper\nSupport lead\n\nAcme Inc.\nacme.test',
    });

    const before = smtp.messages.length;
    const res = await app.request('POST', `/api/v1/conversations/${conversationId}/messages`, {
      token: owner.token,
      body: { content: 'Hi Ada,\na new lid is on its way.', bcc: ['Audit@Acme-Internal.test'] },
    });
    t.is(res.status, 200, res.text);
    t.deepEqual(res.body.email, {
      to: [],
      cc: [
        { address: 'bob@customer.test', name: 'Bob Byron' },
        { address: 'carol@customer.test', name: 'Carol' },
      ],
      bcc: [{ address: 'audit@acme-internal.test' }],
      signature: 'Grace Hopper\nSupport lead\n\nAcme Inc.\nacme.test',
      forward_to: null,
      forwarded_message_ids: null,
    });
    t.like(await inbox.messageSettled(conversationId, res.body.id), { delivery_status: 'sent' });
    const [delivered] = smtp.messages.slice(before);
    t.deepEqual([...delivered.to].sort(), ['ada.html@customer.test', 'audit@acme-internal.test', 'bob@customer.test', 'carol@customer.test']);
    const raw = delivered.raw.toString('utf8');
    t.regex(raw, /Content-Type: multipart\/alternative/i);
    t.false(/^bcc:/im.test(raw), 'Bcc is in the envelope only, never a header');
    const parsed = await simpleParser(delivered.raw);
    t.deepEqual(parsed.cc && !Array.isArray(parsed.cc) ? parsed.cc.value.map((a) => a.address) : null, ['bob@customer.test', 'carol@customer.test']);
    t.is(parsed.text?.trim(), 'Hi Ada,\na new lid is on its way.\n\n-- \nGrace Hopper\nSupport lead\n\nAcme Inc.\nacme.test');
    t.true(typeof parsed.html === 'string' && parsed.html.includes('<p>Hi Ada,<br>\na new lid is on its way.</p>'), String(parsed.html));
    t.true(typeof parsed.html === 'string' && /class="signature"[^>]*>-- <br>\n<p>Grace Hopper<br>\nSupport lead<\/p>/.test(parsed.html));
    t.is(parsed.subject, 'Re: Kettle lid');

    // `cc: []`: nobody copied this time.
    const solo = await app.request('POST', `/api/v1/conversations/${conversationId}/messages`, {
      token: owner.token,
      body: { content: 'Just you, Ada.', cc: [] },
    });
    t.is(solo.status, 200);
    await inbox.messageSettled(conversationId, solo.body.id);
    const soloMail = smtp.messages.at(-1)!;
    t.deepEqual(soloMail.to, ['ada.html@customer.test']);
    t.false(/^cc:/im.test(soloMail.raw.toString('utf8')));

    // Bad addresses and too many are 422; Cc on a note is 400.
    for (const body of [
      { content: 'x', cc: ['not-an-address'] },
      { content: 'x', bcc: Array.from({ length: 11 }, (_, i) => `p${i}@x.test`) },
      { content: 'x', cc: [`${'a'.repeat(250)}@x.test`] },
    ]) {
      t.is(
        (await app.request('POST', `/api/v1/conversations/${conversationId}/messages`, { token: owner.token, body })).status,
        422,
        JSON.stringify(body).slice(0, 60),
      );
    }
    t.is(
      (
        await app.request('POST', `/api/v1/conversations/${conversationId}/messages`, {
          token: owner.token,
          body: { content: 'x', private: true, cc: ['a@x.test'] },
        })
      ).status,
      400,
    );
  },
);

test.serial('forward: the conversation (or chosen messages) goes to an outside address as "Fwd:", private to the team, never the notes', async (t) => {
  await runWorker();
  const { conversationId, messageId } = htmlThread;
  t.is(
    (
      await app.request('POST', `/api/v1/conversations/${conversationId}/messages`, {
        token: owner.token,
        body: { content: 'Internal: supplier batch 12', private: true },
      })
    ).status,
    200,
  );
  const before = smtp.messages.length;
  const res = await app.request('POST', `/api/v1/conversations/${conversationId}/forward`, {
    token: owner.token,
    body: { to: ['Parts@Supplier.test'], note: 'Can you send a new lid?' },
  });
  t.is(res.status, 200, res.text);
  t.like(res.body, { sender_type: 'agent', private: true, delivery_status: 'queued', content: 'Can you send a new lid?' });
  t.deepEqual(res.body.email.forward_to, [{ address: 'parts@supplier.test' }]);
  t.like(await inbox.messageSettled(conversationId, res.body.id), { delivery_status: 'sent' });
  const [delivered] = smtp.messages.slice(before);
  t.deepEqual(delivered.to, ['parts@supplier.test'], "only the outside address, not the customer or the thread's Cc");
  const parsed = await simpleParser(delivered.raw);
  t.is(parsed.subject, 'Fwd: Kettle lid');
  t.is(parsed.inReplyTo, undefined, 'a new thread for the recipient');
  t.true(parsed.text?.startsWith('Can you send a new lid?\n\n-- \nGrace Hopper'));
  t.true(parsed.text?.includes('---------- Forwarded message ---------\nFrom: Ada Byron <ada.html@customer.test>'));
  t.true(parsed.text?.includes('The lid of my kettle is broken.'));
  t.true(parsed.text?.includes('Hi Ada,\na new lid is on its way.'));
  t.false(parsed.text?.includes('Internal: supplier batch 12'), 'private notes are never forwarded');
  t.true(typeof parsed.html === 'string' && parsed.html.includes('src="https://cdn.customer.test/lid.jpg"') && !parsed.html.includes('tracker.test'));

  // One message only.
  const one = await app.request('POST', `/api/v1/conversations/${conversationId}/forward`, {
    token: owner.token,
    body: { to: ['parts@supplier.test'], message_ids: [messageId] },
  });
  t.is(one.status, 200, one.text);
  await inbox.messageSettled(conversationId, one.body.id);
  const oneText = (await simpleParser(smtp.messages.at(-1)!.raw)).text ?? '';
  t.true(oneText.includes('The lid of my kettle is broken.'));
  t.false(oneText.includes('a new lid is on its way'));

  // Refusals: a message of another conversation or a note, bad addresses, the support address only.
  const note = (await inbox.messagesOf(conversationId)).find((m: { private: boolean; content: string }) => m.private && m.content.startsWith('Internal'));
  for (const [body, status] of [
    [{ to: ['a@x.test'], message_ids: [note.id] }, 400],
    [{ to: ['a@x.test'], message_ids: ['00000000-0000-4000-8000-000000000000'] }, 400],
    [{ to: [SUPPORT] }, 400],
    [{ to: [] }, 422],
    [{ to: ['nope'] }, 422],
    [{ to: Array.from({ length: 11 }, (_, i) => `p${i}@x.test`) }, 422],
  ] as const) {
    t.is(
      (await app.request('POST', `/api/v1/conversations/${conversationId}/forward`, { token: owner.token, body })).status,
      status,
      JSON.stringify(body).slice(0, 80),
    );
  }

  // Another business sees none of it; a webchat conversation has no forward, Cc or reply recipients.
  const other = await createWorkspace(app, { plan: 'Mini' });
  t.is((await app.request('POST', `/api/v1/conversations/${conversationId}/forward`, { token: other.token, body: { to: ['a@x.test'] } })).status, 404);
  t.is((await app.request('GET', `/api/v1/conversations/${conversationId}/reply-recipients`, { token: other.token })).status, 404);
  const webchat = (await app.request('POST', '/api/v1/conversations', { token: owner.token, body: { business_id: owner.businessId } })).body;
  t.is((await app.request('POST', `/api/v1/conversations/${webchat.id}/forward`, { token: owner.token, body: { to: ['a@x.test'] } })).status, 400);
  t.is((await app.request('GET', `/api/v1/conversations/${webchat.id}/reply-recipients`, { token: owner.token })).status, 400);
  t.is(
    (await app.request('POST', `/api/v1/conversations/${webchat.id}/messages`, { token: owner.token, body: { content: 'hi', cc: ['a@x.test'] } })).status,
    400,
  );
});
