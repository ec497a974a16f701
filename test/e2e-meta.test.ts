/**
 * WhatsApp and Instagram end to end, through the real HTTP server and the real worker against the
 * fake Graph API: channels created through the API, Meta's GET handshake, signed webhooks that
 * become customers, conversations and messages in the inbox, agent replies delivered to the
 * customer with the channel's credentials, retries and refusals, and WhatsApp delivery receipts.
 *
 * Tests run serially: some check what exists right after a webhook's 200 with no worker
 * running, and the fake's scripted failures apply to whichever request comes next.
 */
import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { inboxOf, type Inbox } from './helpers/inbox.ts';
import { query, startTestWorker, waitFor } from './helpers/worker.ts';
import { fetchCustomerName } from '../core/commands/customer-names.ts';
import {
  instagramMessagePayload,
  postMetaWebhook,
  signedMetaWebhook,
  startFakeMeta,
  whatsappStatusPayload,
  whatsappTextPayload,
  type FakeMeta,
} from './fakes/meta.ts';

const PUBLIC_URL = 'https://parley.example';

const WA = { phoneNumberId: '106540352242922', token: 'EAAG-whatsapp-token', appSecret: 'wa-app-secret', verifyToken: 'wa-verify-token' };
const IG = { accountId: '17841405822304914', token: 'IGAA-instagram-token', appSecret: 'ig-app-secret' };

let fake: FakeMeta;
let app: TestApp;
let owner: Workspace;
let inbox: Inbox;
let waChannelId: string;
let igChannel: { id: string; verifyToken: string };

test.before(async () => {
  fake = await startFakeMeta();
  fake.addWhatsAppNumber(WA.phoneNumberId, WA.token);
  fake.addInstagramAccount(IG.accountId, IG.token);
  app = await startTestApp({ env: { META_GRAPH_URL: fake.graphUrl, INSTAGRAM_GRAPH_URL: fake.instagramUrl, PUBLIC_URL } });
  owner = await createWorkspace(app, { plan: 'Pro' });
  inbox = inboxOf(app, owner.token);
});

test.after.always(async () => {
  await app?.close();
  await fake?.close();
});

// Helpers

async function createChannel(type: 'whatsapp' | 'instagram', config: Record<string, string>) {
  const res = await app.request('POST', '/api/v1/channels/', { token: owner.token, body: { type, config } });
  if (res.status !== 200) throw new Error(`create channel: ${res.status} ${res.text}`);
  return res.body;
}

/** Runs the real worker (every task) until `check` holds, then stops it. */
async function untilWorked<T>(check: () => Promise<T | null | undefined | false>, what: string): Promise<T> {
  const worker = await startTestWorker(app);
  try {
    return await waitFor(check, 20_000, what);
  } finally {
    await worker.stop();
  }
}

const webhook = (type: 'whatsapp' | 'instagram') => `${app.url}/api/v1/webhooks/${type}`;

const eventsByKey = (channelId: string, dedupeKey: string) =>
  query(app, 'select id, kind, processed_at from inbound_events where channel_id = $1 and dedupe_key = $2', [channelId, dedupeKey]);

/** The conversations (newest first) of the channel type that hold a message with this text, through the API. */
async function conversationsWith(type: 'whatsapp' | 'instagram', text: string): Promise<any[]> {
  const found = [];
  for (const conversation of await inbox.conversations(type, { limit: 200 })) {
    if ((await inbox.messagesOf(conversation.id)).some((m) => m.content === text)) found.push(conversation);
  }
  return found;
}

let wamidCounter = 0;
let midCounter = 0;

/** A customer writes in on WhatsApp; the worker runs until it is in the inbox. Returns the conversation id. */
async function whatsappCustomerWrites(from: string, text: string, name = 'Sheena Nelson'): Promise<string> {
  wamidCounter += 1;
  const payload = whatsappTextPayload({ phoneNumberId: WA.phoneNumberId, from, id: `wamid.IN${wamidCounter}`, text, name });
  const res = await postMetaWebhook(webhook('whatsapp'), payload, WA.appSecret);
  if (res.status !== 200) throw new Error(`webhook: ${res.status} ${await res.text()}`);
  return untilWorked(async () => (await conversationsWith('whatsapp', text))[0]?.id, `"${text}" in the inbox`);
}

async function instagramCustomerWrites(senderId: string, text: string): Promise<string> {
  midCounter += 1;
  const payload = instagramMessagePayload({ accountId: IG.accountId, senderId, mid: `aWdfZAG1faXRlbTo${midCounter}`, text });
  const res = await postMetaWebhook(webhook('instagram'), payload, IG.appSecret);
  if (res.status !== 200) throw new Error(`webhook: ${res.status} ${await res.text()}`);
  return untilWorked(async () => (await conversationsWith('instagram', text))[0]?.id, `"${text}" in the inbox`);
}

async function untilDelivery(conversationId: string, messageId: string, status: string) {
  return untilWorked(async () => {
    const m = await inbox.messageById(conversationId, messageId);
    return m?.delivery_status === status ? m : null;
  }, `delivery_status ${status}`);
}

/** The 500-then-200 scenario: the first attempt fails, the retry (brought forward) delivers. */
async function deliveredAfterRetry(conversationId: string, messageId: string) {
  const worker = await startTestWorker(app);
  try {
    const failed = await waitFor(
      async () => {
        const job = await inbox.deliveryJob(messageId);
        return job?.attempts === 1 && job.locked_at === null ? job : null;
      },
      20_000,
      'the first attempt failed',
    );
    const queued = (await inbox.messageById(conversationId, messageId)).delivery_status;
    // graphile-worker would wait exp(1) ≈ 2.7 s before the retry: bring the retry forward.
    await inbox.retryNow(messageId);
    const delivered = await waitFor(
      async () => {
        const m = await inbox.messageById(conversationId, messageId);
        return m?.delivery_status === 'sent' ? m : null;
      },
      20_000,
      'sent after the retry',
    );
    return { failed, queued, delivered };
  } finally {
    await worker.stop();
  }
}

/** Posts a signed WhatsApp status webhook and runs the worker until it is processed. */
async function receipt(
  externalId: string,
  recipientId: string,
  status: 'sent' | 'delivered' | 'read' | 'failed',
  error?: { code: number; title: string; details?: string },
) {
  const res = await postMetaWebhook(
    webhook('whatsapp'),
    whatsappStatusPayload({ phoneNumberId: WA.phoneNumberId, id: externalId, status, recipientId, error }),
    WA.appSecret,
  );
  if (res.status !== 200) throw new Error(`receipt webhook: ${res.status}`);
  const [event] = await eventsByKey(waChannelId, `receipt:${externalId}:${status}`);
  await untilWorked(async () => (await eventsByKey(waChannelId, `receipt:${externalId}:${status}`))[0]?.processed_at, `${status} receipt processed`);
  return event;
}

// WhatsApp

test.serial('WhatsApp: the channel is created pending with Meta setup instructions; the worker marks it connected', async (t) => {
  const created = await createChannel('whatsapp', {
    phone_number_id: WA.phoneNumberId,
    access_token: WA.token,
    app_secret: WA.appSecret,
    verify_token: WA.verifyToken,
  });
  waChannelId = created.id;
  t.like(created, {
    type: 'whatsapp',
    status: 'pending',
    config: { _meta_setup_instructions: { callback_url: `${PUBLIC_URL}/api/v1/webhooks/whatsapp`, verify_token: WA.verifyToken } },
  });
  await untilWorked(async () => (await inbox.channelOf(waChannelId)).status === 'connected', 'connected');
  t.like(await inbox.channelOf(waChannelId), { status: 'connected', last_error: null, config: { phone_number_id: WA.phoneNumberId, access_token: WA.token } });
  // Registration read the number with the channel's token.
  const check = fake.requests.find((r) => r.method === 'GET' && r.path === `/graph/v23.0/${WA.phoneNumberId}`)!;
  t.is(check.headers.authorization, `Bearer ${WA.token}`);
  const [row] = await query(app, 'select state from channels where id = $1', [waChannelId]);
  t.like(row.state, { verified_name: 'Acme Support', display_phone_number: '+1 555-078-3881' });
});

test.serial("WhatsApp: a bad access token or an unknown number: status error with Graph's reason; Graph down: retried", async (t) => {
  fake.addWhatsAppNumber('300400500600', 'right-token');
  const badToken = await createChannel('whatsapp', { phone_number_id: '300400500600', access_token: 'revoked-token' });
  const unknown = await createChannel('whatsapp', { phone_number_id: '999888777666', access_token: 'any-token' });
  await untilWorked(
    async () => (await inbox.channelOf(badToken.id)).status !== 'pending' && (await inbox.channelOf(unknown.id)).status !== 'pending',
    'registered',
  );
  t.like(await inbox.channelOf(badToken.id), { status: 'error', last_error: 'Invalid OAuth access token - Cannot parse access token' });
  t.like(await inbox.channelOf(unknown.id), { status: 'error' });
  t.regex((await inbox.channelOf(unknown.id)).last_error, /Object with ID '999888777666' does not exist/);
  t.deepEqual(
    await query(app, 'select id from graphile_worker.jobs where key = any($1)', [[`register:${badToken.id}`, `register:${unknown.id}`]]),
    [],
    'refusals are not retried',
  );

  // The token is fixed: the channel registers again and connects.
  const patched = await app.request('PATCH', `/api/v1/channels/${badToken.id}`, { token: owner.token, body: { config: { access_token: 'right-token' } } });
  t.like(patched.body, { status: 'pending', last_error: null });
  fake.failNext(1, { status: 503, code: 2, message: 'Service temporarily unavailable' });
  const worker = await startTestWorker(app);
  try {
    await waitFor(
      async () =>
        (await query(app, 'select attempts from graphile_worker.jobs where key = $1 and locked_at is null', [`register:${badToken.id}`]))[0]?.attempts === 1,
      20_000,
      'first attempt failed',
    );
    t.is((await inbox.channelOf(badToken.id)).status, 'pending', 'Graph unavailable: still pending, to be retried');
    await query(app, 'update graphile_worker._private_jobs set run_at = now() where key = $1', [`register:${badToken.id}`]);
    await waitFor(async () => (await inbox.channelOf(badToken.id)).status === 'connected', 20_000, 'connected after the retry');
  } finally {
    await worker.stop();
  }
  t.pass();
});

test.serial("WhatsApp: GET handshake answers the challenge for the channel's verify_token, 403 otherwise", async (t) => {
  const handshake = (params: Record<string, string>) => fetch(`${webhook('whatsapp')}?${new URLSearchParams(params)}`);
  const ok = await handshake({ 'hub.mode': 'subscribe', 'hub.verify_token': WA.verifyToken, 'hub.challenge': '1158201444' });
  t.is(ok.status, 200);
  t.is(await ok.text(), '1158201444');
  t.regex(ok.headers.get('content-type') ?? '', /^text\/plain/);
  t.is(ok.headers.get('x-content-type-options'), 'nosniff');
  const refusals: Record<string, string>[] = [
    { 'hub.mode': 'subscribe', 'hub.verify_token': 'not-the-token', 'hub.challenge': '1' },
    { 'hub.mode': 'unsubscribe', 'hub.verify_token': WA.verifyToken, 'hub.challenge': '1' },
    { 'hub.mode': 'subscribe', 'hub.challenge': '1' },
    // Only letters and digits are echoed: no markup, no text of someone else's choosing.
    { 'hub.mode': 'subscribe', 'hub.verify_token': WA.verifyToken, 'hub.challenge': '<script>alert(1)</script>' },
    { 'hub.mode': 'subscribe', 'hub.verify_token': WA.verifyToken, 'hub.challenge': 'pay now at evil.example' },
    { 'hub.mode': 'subscribe', 'hub.verify_token': WA.verifyToken, 'hub.challenge': '' },
    { 'hub.mode': 'subscribe', 'hub.verify_token': WA.verifyToken, 'hub.challenge': '1'.repeat(129) },
  ];
  for (const params of refusals) {
    const refused = await handshake(params);
    t.is(refused.status, 403, JSON.stringify(params));
  }
});

test.serial(
  'WhatsApp inbound: the 200 comes after the event and its job are stored; the worker puts customer, conversation and message in the inbox',
  async (t) => {
    const payload = whatsappTextPayload({
      phoneNumberId: WA.phoneNumberId,
      from: '16505551234',
      id: 'wamid.FIRST',
      text: 'Does it come in another color?',
      name: 'Ada Lovelace',
    });
    const res = await postMetaWebhook(webhook('whatsapp'), payload, WA.appSecret);
    t.is(res.status, 200);
    t.deepEqual(await res.json(), { received: 1 });

    // No worker is running: what exists now existed when the 200 was sent.
    const events = await eventsByKey(waChannelId, 'wamid.FIRST');
    t.is(events.length, 1);
    t.like(events[0], { kind: 'message', processed_at: null });
    t.is((await inbox.inboundJobs([events[0].id])).length, 1, 'its process_inbound job was enqueued with it');

    const conversationId = await untilWorked(async () => (await conversationsWith('whatsapp', 'Does it come in another color?'))[0]?.id, 'the conversation');
    const customers = await app.request('GET', '/api/v1/customers', { token: owner.token, query: { q: '+16505551234' } });
    t.is(customers.body.length, 1);
    t.like(customers.body[0], { name: 'Ada Lovelace', phone: '+16505551234' });
    const conversation = (await app.request('GET', `/api/v1/conversations/${conversationId}`, { token: owner.token })).body;
    t.like(conversation, { status: 'open', channel_type: 'whatsapp', channel_id: waChannelId, customer_id: customers.body[0].uuid });
    t.deepEqual(
      conversation.messages.map((m: any) => [m.sender_type, m.content, m.external_id, m.delivery_status]),
      [['customer', 'Does it come in another color?', 'wamid.FIRST', null]],
    );
    t.deepEqual(await inbox.inboundJobs([events[0].id]), [], 'the job completed');
    const live = app.events.filter((e) => e.payload.conversation_id === conversationId).map((e) => e.name);
    t.deepEqual(live, ['conversation_created', 'message_created', 'conversation_updated'], 'dashboards hear of it');
  },
);

test.serial('WhatsApp: the same webhook delivered five times makes exactly one message', async (t) => {
  const payload = whatsappTextPayload({ phoneNumberId: WA.phoneNumberId, from: '16505550005', id: 'wamid.REPEATED', text: 'Hello, five times?' });
  const answers = [];
  for (let i = 0; i < 5; i += 1) {
    const res = await postMetaWebhook(webhook('whatsapp'), payload, WA.appSecret);
    answers.push([res.status, await res.json()]);
  }
  t.deepEqual(answers, [[200, { received: 1 }], ...Array(4).fill([200, { received: 0 }])]);
  const events = await eventsByKey(waChannelId, 'wamid.REPEATED');
  t.is(events.length, 1);
  t.is((await inbox.inboundJobs([events[0].id])).length, 1);
  await untilWorked(async () => (await eventsByKey(waChannelId, 'wamid.REPEATED'))[0].processed_at, 'processed');
  const conversations = await conversationsWith('whatsapp', 'Hello, five times?');
  t.is(conversations.length, 1);
  t.deepEqual(
    (await inbox.messagesOf(conversations[0].id)).map((m) => m.content),
    ['Hello, five times?'],
  );
});

test.serial('WhatsApp: a bad or missing signature is 401 and stores nothing; an unknown number is acknowledged and dropped', async (t) => {
  const eventsBefore = await inbox.countEvents();
  const jobsBefore = await inbox.countInboundJobs();
  const payload = whatsappTextPayload({ phoneNumberId: WA.phoneNumberId, from: '16505550006', id: 'wamid.FORGED', text: 'forged' });
  for (const secret of ['another-secret', undefined]) {
    const res = await postMetaWebhook(webhook('whatsapp'), payload, secret);
    t.is(res.status, 401, `secret ${secret}`);
    t.deepEqual(await res.json(), { detail: 'Invalid webhook signature' });
  }
  // Signed right, but the body changed on the way.
  const signed = await fetch(webhook('whatsapp'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signedMetaWebhook(payload, WA.appSecret).headers['x-hub-signature-256']! },
    body: JSON.stringify(payload).replace('forged', 'f0rged'),
  });
  t.is(signed.status, 401);
  const stranger = await postMetaWebhook(
    webhook('whatsapp'),
    whatsappTextPayload({ phoneNumberId: '999000999', from: '1', id: 'wamid.STRANGER', text: 'hi' }),
    'whatever',
  );
  t.is(stranger.status, 200);
  t.deepEqual(await stranger.json(), { received: 0 });
  t.is(await inbox.countEvents(), eventsBefore, 'no inbound_events row');
  t.is(await inbox.countInboundJobs(), jobsBefore, 'no job');
});

test.serial("WhatsApp: an agent reply reaches exactly that wa_id from the channel's number with its token; sent with the wamid", async (t) => {
  const conversationId = await whatsappCustomerWrites('16505550010', 'Is the blue one in stock?');
  const before = fake.whatsappSent.length;
  const message = await inbox.reply(conversationId, 'Yes, we have it in blue.');
  t.like(message, { sender_type: 'agent', delivery_status: 'queued', external_id: null });
  const delivered = await untilDelivery(conversationId, message.id, 'sent');
  const sent = fake.whatsappSent.slice(before);
  t.is(sent.length, 1);
  t.like(sent[0], { phoneNumberId: WA.phoneNumberId, to: '16505550010', type: 'text', body: { text: { body: 'Yes, we have it in blue.' } } });
  const request = fake.requests.find((r) => r.product === 'whatsapp' && r.json?.text?.body === 'Yes, we have it in blue.')!;
  t.is(request.headers.authorization, `Bearer ${WA.token}`);
  t.is(request.path, `/graph/v23.0/${WA.phoneNumberId}/messages`);
  t.like(delivered, { delivery_status: 'sent', external_id: sent[0].id, error: null });
  t.true(app.events.some((e) => e.name === 'message_updated' && e.payload.message_id === message.id && e.payload.delivery_status === 'sent'));
});

test.serial('WhatsApp: several messages in one webhook reach the inbox in the order the customer wrote them', async (t) => {
  const texts = ['Hi', 'I ordered the blue one', 'but got the green one', 'order #1042', 'can you help?'];
  const payload = whatsappTextPayload({ phoneNumberId: WA.phoneNumberId, from: '16505550020', id: 'wamid.BATCH0', text: texts[0], name: 'Batch Customer' });
  const value = payload.entry[0].changes[0].value as unknown as { messages: Record<string, unknown>[] };
  value.messages = texts.map((text, i) => ({
    from: '16505550020',
    id: `wamid.BATCH${i}`,
    timestamp: String(1767225600 + i),
    type: 'text',
    text: { body: text },
  }));
  const res = await postMetaWebhook(webhook('whatsapp'), payload, WA.appSecret);
  t.deepEqual(await res.json(), { received: 5 });
  const conversationId = await untilWorked(async () => {
    const [conversation] = await conversationsWith('whatsapp', 'can you help?');
    return conversation && (await inbox.messagesOf(conversation.id)).length === 5 ? conversation.id : null;
  }, 'all five in the inbox');
  t.deepEqual(
    (await inbox.messagesOf(conversationId)).map((m) => m.content),
    texts,
  );
  t.is((await conversationsWith('whatsapp', 'Hi')).filter((c) => c.customer?.name === 'Batch Customer').length, 1, 'one conversation');
});

test.serial('WhatsApp: Graph answers 500, then 200: delivered once, after a retry', async (t) => {
  const conversationId = await whatsappCustomerWrites('16505550011', 'Anyone?');
  const text = 'Sorry for the wait!';
  const message = await inbox.reply(conversationId, text);
  fake.failNext(1, { status: 500, code: 1, message: 'An unknown error has occurred.' });
  const { failed, queued, delivered } = await deliveredAfterRetry(conversationId, message.id);
  t.regex(failed.last_error, /An unknown error has occurred/);
  t.is(queued, 'queued', 'a transient failure leaves it queued');
  const sent = fake.whatsappSent.filter((m) => m.body.text?.body === text);
  t.is(sent.length, 1, 'delivered once');
  t.like(delivered, { external_id: sent[0].id, error: null });
  t.is(await inbox.deliveryJob(message.id), undefined);
});

test.serial("WhatsApp: Graph answers 401 (expired token): failed with Meta's reason, not retried", async (t) => {
  const conversationId = await whatsappCustomerWrites('16505550012', 'Hi there');
  const text = 'This one will not arrive.';
  const message = await inbox.reply(conversationId, text);
  const reason = 'Error validating access token: Session has expired on Friday, 09-Jan-26 10:00:00 PST.';
  fake.failNext(1, { status: 401, code: 190, subcode: 463, message: reason });
  const failed = await untilDelivery(conversationId, message.id, 'failed');
  t.like(failed, { error: reason, external_id: null });
  t.is(await inbox.deliveryJob(message.id), undefined, 'no job left to retry');
  t.is(fake.whatsappSent.filter((m) => m.body.text?.body === text).length, 0);
});

test.serial('WhatsApp receipts: sent → delivered → read move forward, a late one never moves back; failed sets the reason', async (t) => {
  const conversationId = await whatsappCustomerWrites('16505550013', 'Track my parcel please');
  const message = await inbox.reply(conversationId, 'It is on its way.');
  const { external_id: wamid } = await untilDelivery(conversationId, message.id, 'sent');
  const status = async () => (await inbox.messageById(conversationId, message.id)).delivery_status;

  await receipt(wamid, '16505550013', 'sent');
  t.is(await status(), 'sent');
  await receipt(wamid, '16505550013', 'delivered');
  t.is(await status(), 'delivered');
  // Meta retries webhooks and does not order them: a `sent` arriving now is stale.
  const late = await postMetaWebhook(
    webhook('whatsapp'),
    whatsappStatusPayload({ phoneNumberId: WA.phoneNumberId, id: wamid, status: 'sent', recipientId: '16505550013' }),
    WA.appSecret,
  );
  t.deepEqual(await late.json(), { received: 0 }, 'the same receipt again is a repeat');
  await receipt(wamid, '16505550013', 'read');
  t.is(await status(), 'read');
  await receipt(wamid, '16505550013', 'failed', { code: 131026, title: 'Message undeliverable' });
  t.like(await inbox.messageById(conversationId, message.id), { delivery_status: 'read', error: null }, 'a failure after read changes nothing');

  // A message delivered then reported sent late (a `sent` receipt Meta retried) stays delivered.
  const second = await inbox.reply(conversationId, 'Tracking number: 1Z999.');
  const { external_id: wamid2 } = await untilDelivery(conversationId, second.id, 'sent');
  await receipt(wamid2, '16505550013', 'delivered');
  await receipt(wamid2, '16505550013', 'sent');
  t.is((await inbox.messageById(conversationId, second.id)).delivery_status, 'delivered');

  // A failure receipt for a sent message: failed with Meta's reason.
  const third = await inbox.reply(conversationId, 'Anything else?');
  const { external_id: wamid3 } = await untilDelivery(conversationId, third.id, 'sent');
  await receipt(wamid3, '16505550013', 'failed', { code: 131026, title: 'Message undeliverable', details: 'Unable to deliver the message to this user.' });
  t.like(await inbox.messageById(conversationId, third.id), {
    delivery_status: 'failed',
    error: 'Message undeliverable: Unable to deliver the message to this user.',
    external_id: wamid3,
  });
});

test.serial('WhatsApp: a customer message on a resolved conversation reopens it; on a closed one it starts a new conversation', async (t) => {
  const first = await whatsappCustomerWrites('16505550014', 'Question one', 'Radia Perlman');
  t.is((await app.request('PUT', `/api/v1/conversations/${first}/resolve`, { token: owner.token })).status, 200);
  const again = await whatsappCustomerWrites('16505550014', 'Question two', 'Radia Perlman');
  t.is(again, first);
  const reopened = (await app.request('GET', `/api/v1/conversations/${first}`, { token: owner.token })).body;
  t.like(reopened, { status: 'open', resolved_at: null });
  t.deepEqual(
    reopened.messages.map((m: any) => m.content),
    ['Question one', 'Question two'],
  );

  t.is((await app.request('PUT', `/api/v1/conversations/${first}/close`, { token: owner.token })).status, 200);
  const fresh = await whatsappCustomerWrites('16505550014', 'Question three', 'Radia Perlman');
  t.not(fresh, first);
  const conversation = (await app.request('GET', `/api/v1/conversations/${fresh}`, { token: owner.token })).body;
  t.like(conversation, { status: 'open', customer_id: reopened.customer_id });
  t.deepEqual(
    conversation.messages.map((m: any) => m.content),
    ['Question three'],
  );
  t.is((await app.request('GET', `/api/v1/conversations/${first}`, { token: owner.token })).body.status, 'closed');
});

test.serial('WhatsApp: a channel without an app secret accepts unsigned webhooks', async (t) => {
  fake.addWhatsAppNumber('200300400500', 'other-token');
  const created = await createChannel('whatsapp', { phone_number_id: '200300400500', access_token: 'other-token' });
  t.regex(created.config._meta_setup_instructions.verify_token, /\S{16,}/, 'a verify token is generated');
  t.is(created.warnings.length, 1, 'the channel says it is insecure');
  t.regex(created.warnings[0], /app_secret/);
  t.deepEqual((await inbox.channelOf(waChannelId)).warnings, [], 'a signed channel has no warning');
  const res = await postMetaWebhook(
    webhook('whatsapp'),
    whatsappTextPayload({ phoneNumberId: '200300400500', from: '4915112345678', id: 'wamid.UNSIGNED', text: 'No secret here' }),
    undefined,
  );
  t.is(res.status, 200);
  t.deepEqual(await res.json(), { received: 1 });
  const conversationId = await untilWorked(async () => (await conversationsWith('whatsapp', 'No secret here'))[0]?.id, 'in the inbox');
  t.is((await app.request('GET', `/api/v1/conversations/${conversationId}`, { token: owner.token })).body.channel_id, created.id);
});

test.serial(
  "WhatsApp: with META_REQUIRE_SIGNATURE an unsigned channel's posts are refused with 401 and nothing is stored; signed channels still work",
  async (t) => {
    const config = app.deps.config as { META_REQUIRE_SIGNATURE: boolean };
    config.META_REQUIRE_SIGNATURE = true;
    try {
      const events = await inbox.countEvents();
      const unsigned = await postMetaWebhook(
        webhook('whatsapp'),
        whatsappTextPayload({ phoneNumberId: '200300400500', from: '4915112345678', id: 'wamid.UNSIGNED2', text: 'Forged' }),
        undefined,
      );
      t.is(unsigned.status, 401);
      t.regex(((await unsigned.json()) as { detail: string }).detail, /app_secret/);
      // A made-up signature changes nothing: there is no secret to check it against.
      const guessed = await postMetaWebhook(
        webhook('whatsapp'),
        whatsappTextPayload({ phoneNumberId: '200300400500', from: '4915112345678', id: 'wamid.UNSIGNED3', text: 'Forged' }),
        'any-secret',
      );
      t.is(guessed.status, 401);
      t.is(await inbox.countEvents(), events);
      const signed = await postMetaWebhook(
        webhook('whatsapp'),
        whatsappTextPayload({ phoneNumberId: WA.phoneNumberId, from: '4915112345679', id: 'wamid.SIGNED-REQ', text: 'Signed is fine' }),
        WA.appSecret,
      );
      t.is(signed.status, 200);
      t.is(await inbox.countEvents(), events + 1);
    } finally {
      config.META_REQUIRE_SIGNATURE = false;
    }
  },
);

// Instagram

test.serial('Instagram: the channel is created with a generated verify_token and connected by the worker; the GET handshake uses it', async (t) => {
  const created = await createChannel('instagram', { access_token: IG.token, instagram_business_account_id: IG.accountId, app_secret: IG.appSecret });
  igChannel = { id: created.id, verifyToken: created.config._meta_setup_instructions.verify_token };
  t.like(created.config._meta_setup_instructions, { callback_url: `${PUBLIC_URL}/api/v1/webhooks/instagram` });
  t.truthy(igChannel.verifyToken);
  await untilWorked(async () => (await inbox.channelOf(igChannel.id)).status === 'connected', 'connected');
  t.like(await inbox.channelOf(igChannel.id), { status: 'connected', last_error: null });
  const check = fake.requests.find((r) => r.method === 'GET' && r.path === `/instagram/v23.0/${IG.accountId}`)!;
  t.is(check.headers.authorization, `Bearer ${IG.token}`);
  t.like((await query(app, 'select state from channels where id = $1', [igChannel.id]))[0].state, { username: 'acme.support' });

  const handshake = (type: string, token: string) =>
    fetch(`${webhook(type as 'instagram')}?${new URLSearchParams({ 'hub.mode': 'subscribe', 'hub.verify_token': token, 'hub.challenge': '987654' })}`);
  const ok = await handshake('instagram', igChannel.verifyToken);
  t.is(ok.status, 200);
  t.is(await ok.text(), '987654');
  t.is((await handshake('instagram', 'wrong')).status, 403);
  t.is((await handshake('instagram', WA.verifyToken)).status, 403, "a WhatsApp channel's token does not verify Instagram");
  t.is((await handshake('whatsapp', igChannel.verifyToken)).status, 403);
});

test.serial("Instagram: a bad access token: status error with Graph's reason", async (t) => {
  fake.addInstagramAccount('17841400000000001', 'ig-right-token');
  const created = await createChannel('instagram', { access_token: 'ig-revoked', instagram_business_account_id: '17841400000000001' });
  await untilWorked(async () => (await inbox.channelOf(created.id)).status !== 'pending', 'registered');
  t.like(await inbox.channelOf(created.id), { status: 'error', last_error: 'Invalid OAuth access token - Cannot parse access token' });
});

test.serial('Instagram inbound: stored with its job before the 200, then in the inbox; five repeats make one message', async (t) => {
  const payload = instagramMessagePayload({
    accountId: IG.accountId,
    senderId: '1254459154682919',
    mid: 'aWdfZAG1faXRlbToxFIRST',
    text: 'Do you ship to Canada?',
  });
  const first = await postMetaWebhook(webhook('instagram'), payload, IG.appSecret);
  t.is(first.status, 200);
  t.deepEqual(await first.json(), { received: 1 });
  const events = await eventsByKey(igChannel.id, 'aWdfZAG1faXRlbToxFIRST');
  t.is(events.length, 1, 'the event was stored before the 200');
  t.is((await inbox.inboundJobs([events[0].id])).length, 1, 'with its job');
  // Meta's retries may overlap: four more at once.
  const repeats = await Promise.all(
    Array.from({ length: 4 }, async () => {
      const res = await postMetaWebhook(webhook('instagram'), payload, IG.appSecret);
      return [res.status, await res.json()];
    }),
  );
  t.deepEqual(repeats, Array(4).fill([200, { received: 0 }]));
  t.is((await eventsByKey(igChannel.id, 'aWdfZAG1faXRlbToxFIRST')).length, 1);

  const conversationId = await untilWorked(async () => (await conversationsWith('instagram', 'Do you ship to Canada?'))[0]?.id, 'in the inbox');
  const conversation = (await app.request('GET', `/api/v1/conversations/${conversationId}`, { token: owner.token })).body;
  t.like(conversation, { status: 'open', channel_type: 'instagram', channel_id: igChannel.id });
  t.truthy(conversation.customer);
  t.deepEqual(
    conversation.messages.map((m: any) => [m.sender_type, m.content, m.external_id]),
    [['customer', 'Do you ship to Canada?', 'aWdfZAG1faXRlbToxFIRST']],
  );
  const customers = await app.request('GET', '/api/v1/customers', { token: owner.token });
  t.true(
    customers.body.some((c: any) => c.uuid === conversation.customer_id),
    'the customer is listed',
  );
  t.is((await conversationsWith('instagram', 'Do you ship to Canada?')).length, 1);
});

test.serial("Instagram: a new customer is named from Graph's User Profile API (name, else username); no consent leaves them unnamed", async (t) => {
  fake.addInstagramUser('5550000101', IG.token, { name: 'Ines Ortega', username: 'ines.o' });
  fake.addInstagramUser('5550000102', IG.token, { name: null, username: 'marco_p' });
  const customerNamed = async (igsid: string) =>
    (await query(app, 'select name from customers where channel_id = $1 and platform_user_id = $2', [igChannel.id, igsid]))[0]?.name as string | undefined;
  const mark = app.events.length;
  await instagramCustomerWrites('5550000101', 'Do you have this in red?');
  await instagramCustomerWrites('5550000102', 'Is the sale still on?');
  await instagramCustomerWrites('5550000103', 'Hello from someone Graph will not name');
  await untilWorked(async () => ((await customerNamed('5550000101')) === 'Ines Ortega' && (await customerNamed('5550000102')) === 'marco_p') || null, 'named');
  const asked = fake.requests.filter((r) => r.method === 'GET' && r.path === '/instagram/v23.0/5550000101');
  t.is(asked.length, 1, 'asked once');
  t.is(asked[0]!.headers.authorization, `Bearer ${IG.token}`);
  t.is(asked[0]!.query.get('fields'), 'name,username');
  const [ines] = await query(app, `select id from customers where channel_id = $1 and platform_user_id = '5550000101'`, [igChannel.id]);
  t.true(
    app.events
      .slice(mark)
      .some((e) => e.name === 'customer_updated' && e.payload.customer_id === ines.id && (e.payload as any).customer.name === 'Ines Ortega'),
  );
  // Graph refused (no consent): unnamed, and the job not retried.
  await untilWorked(async () => fake.requests.some((r) => r.path === '/instagram/v23.0/5550000103') || null, 'asked about the third');
  t.is(await customerNamed('5550000103'), '');
  t.deepEqual(await query(app, `select 1 from graphile_worker.jobs where task_identifier = 'fetch_customer_name'`), []);

  // A later message of a named customer's open conversation asks nothing.
  await instagramCustomerWrites('5550000101', 'Size M please');
  t.is(fake.requests.filter((r) => r.path === '/instagram/v23.0/5550000101').length, 1);

  // A name a member gave wins over one the platform gives later.
  fake.addInstagramUser('5550000103', IG.token, { name: 'Platform Name' });
  const [third] = await query(app, `select id, number from customers where channel_id = $1 and platform_user_id = '5550000103'`, [igChannel.id]);
  const edited = await app.request('PATCH', `/api/v1/customers/${third.number}`, { token: owner.token, body: { name: 'Named By Agent' } });
  t.is(edited.status, 200, edited.text);
  t.is(await fetchCustomerName(app.deps, third.id), 'skipped');
  t.is(await customerNamed('5550000103'), 'Named By Agent');
});

test.serial('Instagram: a bad or missing signature is 401 and stores nothing', async (t) => {
  const eventsBefore = await inbox.countEvents();
  const jobsBefore = await inbox.countInboundJobs();
  const payload = instagramMessagePayload({ accountId: IG.accountId, senderId: '1254459154682919', mid: 'aWdfFORGED', text: 'forged' });
  for (const secret of [WA.appSecret, undefined]) {
    const res = await postMetaWebhook(webhook('instagram'), payload, secret);
    t.is(res.status, 401);
  }
  t.is(await inbox.countEvents(), eventsBefore);
  t.is(await inbox.countInboundJobs(), jobsBefore);
});

test.serial('Instagram: an agent reply reaches exactly that IGSID from the account with its token; sent with the message id', async (t) => {
  const conversationId = await instagramCustomerWrites('5550000001', 'What sizes do you have?');
  const before = fake.instagramSent.length;
  const message = await inbox.reply(conversationId, 'From XS to XXL.');
  const delivered = await untilDelivery(conversationId, message.id, 'sent');
  const sent = fake.instagramSent.slice(before);
  t.is(sent.length, 1);
  t.like(sent[0], { accountId: IG.accountId, recipientId: '5550000001', message: { text: 'From XS to XXL.' } });
  const request = fake.requests.find((r) => r.product === 'instagram' && r.json?.message?.text === 'From XS to XXL.')!;
  t.is(request.headers.authorization, `Bearer ${IG.token}`);
  t.is(request.path, `/instagram/v23.0/${IG.accountId}/messages`);
  t.like(delivered, { delivery_status: 'sent', external_id: sent[0].id, error: null });
});

test.serial('Instagram: Graph answers 503, then 200: delivered once, after a retry', async (t) => {
  const conversationId = await instagramCustomerWrites('5550000002', 'Hello?');
  const text = 'Here now, sorry!';
  const message = await inbox.reply(conversationId, text);
  fake.failNext(1, { status: 503, code: 2, message: 'Service temporarily unavailable' });
  const { failed, queued, delivered } = await deliveredAfterRetry(conversationId, message.id);
  t.regex(failed.last_error, /Service temporarily unavailable/);
  t.is(queued, 'queued');
  const sent = fake.instagramSent.filter((m) => m.message.text === text);
  t.is(sent.length, 1, 'delivered once');
  t.like(delivered, { external_id: sent[0].id });
});

test.serial("Instagram: Graph answers 401: failed with Meta's reason, not retried", async (t) => {
  const conversationId = await instagramCustomerWrites('5550000003', 'Hi');
  const text = 'Lost in transit.';
  const message = await inbox.reply(conversationId, text);
  fake.failNext(1, { status: 401, code: 190, message: 'Error validating access token: The user has not authorized application 1234.' });
  const failed = await untilDelivery(conversationId, message.id, 'failed');
  t.like(failed, { error: 'Error validating access token: The user has not authorized application 1234.', external_id: null });
  t.is(await inbox.deliveryJob(message.id), undefined);
  t.is(fake.instagramSent.filter((m) => m.message.text === text).length, 0);
});

test.serial('Instagram: a resolved conversation reopens; a closed one gives way to a new conversation', async (t) => {
  const first = await instagramCustomerWrites('5550000004', 'First DM');
  await app.request('PUT', `/api/v1/conversations/${first}/resolve`, { token: owner.token });
  t.is(await instagramCustomerWrites('5550000004', 'Second DM'), first);
  t.is((await app.request('GET', `/api/v1/conversations/${first}`, { token: owner.token })).body.status, 'open');
  await app.request('PUT', `/api/v1/conversations/${first}/close`, { token: owner.token });
  const fresh = await instagramCustomerWrites('5550000004', 'Third DM');
  t.not(fresh, first);
  t.deepEqual(
    (await inbox.messagesOf(fresh)).map((m) => m.content),
    ['Third DM'],
  );
});
