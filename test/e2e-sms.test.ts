/**
 * SMS end to end, through the real HTTP server and the real worker against a fake Twilio:
 * registration points the number at the channel's webhook, a signed inbound SMS becomes a
 * customer, a conversation and a message, an agent reply reaches the customer's phone, and
 * Twilio's status callbacks move the reply's delivery status forward only.
 */
import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { inboxOf, type Inbox } from './helpers/inbox.ts';
import { query, waitFor, workerPerTest } from './helpers/worker.ts';
import { signTwilioWebhook, startFakeTwilio, twilioError, type FakeTwilio } from './fakes/twilio.ts';

const ACCOUNT_SID = 'AC' + 'e2e5'.repeat(8);
const AUTH_TOKEN = 'twilio-e2e-auth-token';
const FROM_NUMBER = '+15550002222';
// Twilio signs the URL it was given, which is the public one: not the address the server listens on.
const PUBLIC_URL = 'https://parley.example';

let app: TestApp;
let fake: FakeTwilio;
let owner: Workspace;
let inbox: Inbox;
let channelId: string;

test.before(async () => {
  fake = await startFakeTwilio({ accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, numbers: [FROM_NUMBER] });
  app = await startTestApp({ env: { TWILIO_API_URL: fake.url, PUBLIC_URL } });
  owner = await createWorkspace(app, { plan: 'Mini' });
  inbox = inboxOf(app, owner.token);
});

test.after.always(async () => {
  await app?.close();
  await fake?.close();
});

const runWorker = workerPerTest(() => app);

const webhookPath = () => `/api/v1/webhooks/sms/${channelId}`;

/** POSTs a Twilio webhook form, signed as Twilio signs it unless `signature` says otherwise. */
async function postTwilio(form: Record<string, string>, signature?: string | null) {
  const sig = signature === undefined ? signTwilioWebhook(AUTH_TOKEN, PUBLIC_URL + webhookPath(), form) : signature;
  return app.request('POST', webhookPath(), {
    rawBody: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(sig === null ? {} : { 'x-twilio-signature': sig }) },
  });
}

let sidCounter = 0;
const nextSid = () => 'SM' + (++sidCounter).toString(16).padStart(32, '0');

function inboundForm(from: string, body: string, sid = nextSid()): Record<string, string> {
  return {
    ToCountry: 'US',
    SmsMessageSid: sid,
    NumMedia: '0',
    SmsSid: sid,
    SmsStatus: 'received',
    Body: body,
    To: FROM_NUMBER,
    NumSegments: '1',
    MessageSid: sid,
    AccountSid: ACCOUNT_SID,
    From: from,
    ApiVersion: '2010-04-01',
  };
}

function statusForm(sid: string, to: string, status: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    SmsSid: sid,
    SmsStatus: status,
    MessageStatus: status,
    To: to,
    MessageSid: sid,
    AccountSid: ACCOUNT_SID,
    From: FROM_NUMBER,
    ApiVersion: '2010-04-01',
    ...extra,
  };
}

/** A customer writes in and the worker turns it into a conversation; returns its id. */
async function customerWrites(phone: string, text: string): Promise<string> {
  const res = await postTwilio(inboundForm(phone, text));
  if (res.status !== 200) throw new Error(`webhook: ${res.status} ${res.text}`);
  await runWorker();
  const customer = await inbox.customerBy('phone', phone);
  const [conversation] = await waitFor(
    async () => {
      const list = await inbox.conversationsOf('sms', customer.uuid);
      return list.length ? list : null;
    },
    20_000,
    'conversation',
  );
  return conversation.id;
}

test.serial("register: the channel connects and the number's incoming SMS URL points at its webhook", async (t) => {
  const res = await app.request('POST', '/api/v1/channels/', {
    token: owner.token,
    body: { type: 'sms', config: { account_sid: ACCOUNT_SID, auth_token: AUTH_TOKEN, from_number: FROM_NUMBER } },
  });
  t.is(res.status, 200, res.text);
  t.is(res.body.status, 'pending');
  channelId = res.body.id;

  await runWorker();
  const channel = await inbox.registered(channelId);
  t.is(channel.status, 'connected');
  t.is(channel.last_error, null);
  t.is(fake.numbers[0].smsUrl, `${PUBLIC_URL}/api/v1/webhooks/sms/${channelId}`);
  t.is(fake.numbers[0].smsMethod, 'POST');
});

test.serial("register: a wrong auth token leaves the channel in error with Twilio's reason", async (t) => {
  const res = await app.request('POST', '/api/v1/channels/', {
    token: owner.token,
    body: { type: 'sms', config: { account_sid: ACCOUNT_SID, auth_token: 'not-the-token', from_number: '+15557770001' } },
  });
  t.is(res.status, 200, res.text);
  await runWorker();
  const channel = await inbox.registered(res.body.id);
  t.is(channel.status, 'error');
  t.is(channel.last_error, 'Authenticate (Twilio error 20003)');
  t.is(fake.numbers[0].smsUrl, `${PUBLIC_URL}/api/v1/webhooks/sms/${channelId}`, 'the working channel keeps the number');
  // Not in the way of the plan's channel count for the rest of the file.
  t.is((await app.request('DELETE', `/api/v1/channels/${res.body.id}`, { token: owner.token })).status, 200);
});

test.serial('inbound: a signed SMS is stored with its job before the 200 (TwiML), then becomes customer, conversation and message', async (t) => {
  const phone = '+15557650001';
  const form = inboundForm(phone, "Hi, my order #1042 hasn't arrived yet.");
  const res = await postTwilio(form);
  t.is(res.status, 200, res.text);
  t.regex(res.headers.get('content-type') ?? '', /^text\/xml/);
  t.is(res.text, '<?xml version="1.0" encoding="UTF-8"?><Response></Response>');

  // No worker runs yet: what the platform's 200 promises is already in the database.
  const [event] = await query(app, 'select id, kind, processed_at from inbound_events where channel_id = $1 and dedupe_key = $2', [channelId, form.MessageSid]);
  t.like(event, { kind: 'message', processed_at: null });
  const jobs = await inbox.inboundJobs([event.id]);
  t.is(jobs.length, 1);

  await runWorker();
  const customer = await inbox.customerBy('phone', phone);
  t.like(customer, { phone, email: null });
  const conversations = await inbox.conversationsOf('sms', customer.uuid);
  t.is(conversations.length, 1);
  t.like(conversations[0], { status: 'open', channel_type: 'sms', channel_id: channelId });
  const messages = await inbox.messagesOf(conversations[0].id);
  t.is(messages.length, 1);
  t.like(messages[0], { sender_type: 'customer', content: "Hi, my order #1042 hasn't arrived yet.", external_id: form.MessageSid, delivery_status: null });

  // A second SMS from the same phone joins the same conversation.
  await postTwilio(inboundForm(phone, 'Order placed on Monday.'));
  await waitFor(async () => (await inbox.messagesOf(conversations[0].id)).length === 2, 20_000, 'second message');
  t.is((await inbox.conversationsOf('sms', customer.uuid)).length, 1);
});

test.serial('inbound: the same webhook five times makes one message', async (t) => {
  const phone = '+15557650002';
  const form = inboundForm(phone, 'Is anyone there?');
  const before = await inbox.countEvents(channelId);
  const answers = await Promise.all(Array.from({ length: 5 }, () => postTwilio(form)));
  t.deepEqual(
    answers.map((a) => a.status),
    [200, 200, 200, 200, 200],
  );
  t.is(await inbox.countEvents(channelId), before + 1, 'one inbound event stored');

  await runWorker();
  const customer = await inbox.customerBy('phone', phone);
  const [conversation] = await waitFor(async () => {
    const list = await inbox.conversationsOf('sms', customer.uuid);
    return list.length ? list : null;
  });
  await waitFor(async () => (await inbox.countInboundJobs()) === 0, 20_000, 'inbound jobs done');
  // Twilio retries after the event was processed, too.
  for (let i = 0; i < 5; i++) t.is((await postTwilio(form)).status, 200);
  await waitFor(async () => (await inbox.countInboundJobs()) === 0, 20_000, 'inbound jobs done');
  const messages = await inbox.messagesOf(conversation.id);
  t.is(messages.length, 1);
  t.is(messages[0].content, 'Is anyone there?');
  t.is((await inbox.conversationsOf('sms', customer.uuid)).length, 1);
});

test.serial('inbound: a bad signature is 401 and stores nothing', async (t) => {
  const form = inboundForm('+15557650003', 'Refund me $5000');
  const events = await inbox.countEvents(channelId);
  const jobs = await inbox.countInboundJobs();
  const cases: [string, string | null][] = [
    ['another auth token', signTwilioWebhook('another-token', PUBLIC_URL + webhookPath(), form)],
    ['no signature', null],
    ['signed for the listening address, not the public URL', signTwilioWebhook(AUTH_TOKEN, app.url + webhookPath(), form)],
    ['signed for another channel', signTwilioWebhook(AUTH_TOKEN, `${PUBLIC_URL}/api/v1/webhooks/sms/00000000-0000-4000-8000-000000000000`, form)],
    ['tampered body', signTwilioWebhook(AUTH_TOKEN, PUBLIC_URL + webhookPath(), { ...form, Body: 'Hello' })],
  ];
  for (const [name, signature] of cases) {
    const res = await postTwilio(form, signature);
    t.is(res.status, 401, name);
    t.deepEqual(res.body, { detail: 'Invalid webhook signature' }, name);
  }
  t.is(await inbox.countEvents(channelId), events);
  t.is(await inbox.countInboundJobs(), jobs);
});

test.serial("reply: Twilio receives exactly the text for the customer's phone from the channel's number; sent with its SID", async (t) => {
  const phone = '+15557650004';
  const conversationId = await customerWrites(phone, 'Where is my parcel?');
  const before = fake.messages.length;
  const sent = await inbox.reply(conversationId, 'It ships today, tracking follows.');
  t.is(sent.delivery_status, 'queued');
  const message = await inbox.messageSettled(conversationId, sent.id, ['sent', 'failed']);
  t.is(message.delivery_status, 'sent');
  t.is(message.error, null);

  const received = fake.messages.slice(before);
  t.is(received.length, 1);
  t.like(received[0], {
    to: phone,
    from: FROM_NUMBER,
    body: 'It ships today, tracking follows.',
    statusCallback: `${PUBLIC_URL}/api/v1/webhooks/sms/${channelId}`,
  });
  t.is(message.external_id, received[0].sid);
});

test.serial("status callbacks: delivered, then a late sent, keeps delivered; undelivered fails with Twilio's error", async (t) => {
  const phone = '+15557650005';
  const conversationId = await customerWrites(phone, 'Can you text me the code?');
  const first = await inbox.messageSettled(conversationId, (await inbox.reply(conversationId, 'Your code is 4242.')).id, ['sent']);

  t.is((await postTwilio(statusForm(first.external_id, phone, 'delivered'))).status, 200);
  await inbox.messageSettled(conversationId, first.id, ['delivered']);
  t.is((await postTwilio(statusForm(first.external_id, phone, 'sent'))).status, 200);
  await waitFor(async () => (await inbox.countInboundJobs()) === 0, 20_000, 'receipts processed');
  const [row] = await query(app, 'select processed_at from inbound_events where channel_id = $1 and dedupe_key = $2', [
    channelId,
    `receipt:${first.external_id}:sent`,
  ]);
  t.truthy(row.processed_at, 'the late receipt was processed');
  t.like(
    (await inbox.messagesOf(conversationId)).find((m) => m.id === first.id),
    { delivery_status: 'delivered', error: null },
  );

  const second = await inbox.messageSettled(conversationId, (await inbox.reply(conversationId, 'Did it arrive?')).id, ['sent']);
  const undelivered = statusForm(second.external_id, phone, 'undelivered', { ErrorCode: '30003', ErrorMessage: 'Unreachable destination handset' });
  t.is((await postTwilio(undelivered)).status, 200);
  const failed = await inbox.messageSettled(conversationId, second.id, ['failed']);
  t.is(failed.error, 'Unreachable destination handset (Twilio error 30003)');
});

test.serial('delivery: Twilio 500 then 200 delivers once, after a retry', async (t) => {
  const phone = '+15557650006';
  const conversationId = await customerWrites(phone, 'Hello?');
  const before = fake.messages.length;
  const attemptsBefore = fake.requests.filter((r) => r.path.endsWith('/Messages.json')).length;
  fake.failNext(1, 500, twilioError(500, 20500, 'Internal Server Error'));
  const sent = await inbox.reply(conversationId, 'Sorry, we are here.');
  const message = await inbox.messageSettled(conversationId, sent.id, ['sent', 'failed']);
  t.is(message.delivery_status, 'sent');
  t.is(message.error, null);
  t.is(fake.requests.filter((r) => r.path.endsWith('/Messages.json')).length - attemptsBefore, 2, 'one failed attempt, one retry');
  const received = fake.messages.slice(before);
  t.is(received.length, 1, 'delivered exactly once');
  t.like(received[0], { to: phone, body: 'Sorry, we are here.' });
  t.is(message.external_id, received[0].sid);
});

test.serial('delivery: Twilio 401 fails the message with the reason, without retrying', async (t) => {
  const phone = '+15557650007';
  const conversationId = await customerWrites(phone, 'Hi');
  const attemptsBefore = fake.requests.filter((r) => r.path.endsWith('/Messages.json')).length;
  const before = fake.messages.length;
  fake.failNext(1, 401, twilioError(401, 20003, 'Authenticate'));
  const sent = await inbox.reply(conversationId, 'Hello from support');
  const message = await inbox.messageSettled(conversationId, sent.id, ['sent', 'failed']);
  t.is(message.delivery_status, 'failed');
  t.is(message.error, 'Authenticate (Twilio error 20003)');
  t.is(message.external_id, null);
  t.is(fake.messages.length, before);
  t.is(await inbox.releasedDeliveryJob(sent.id), undefined, 'its drain finished, nothing waits for a retry');
  t.is(fake.requests.filter((r) => r.path.endsWith('/Messages.json')).length - attemptsBefore, 1, 'a refusal is not retried');
});
