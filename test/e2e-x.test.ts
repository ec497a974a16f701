/**
 * X direct messages end to end, through the real HTTP server and the real worker against a fake
 * X API: registration learns the account's user id (the routing key of the shared webhook), the
 * CRC challenge is answered, a signed DM event becomes a customer, a conversation and a
 * message, and an agent reply goes out as a DM to the sender.
 */
import test from 'ava';
import { createHmac } from 'node:crypto';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { inboxOf, type Inbox } from './helpers/inbox.ts';
import { query, waitFor, workerPerTest } from './helpers/worker.ts';
import { problem, signXWebhook, startFakeX, type FakeX } from './fakes/x.ts';
import { makePng } from './helpers/png.ts';

const credentials = {
  api_key: 'e2e-consumer-key',
  api_secret: 'e2e-consumer-secret',
  access_token: '1000000000000000077-e2e',
  access_token_secret: 'e2e-token-secret',
};
const account = { id: '1000000000000000077', name: 'Acme Support', username: 'acmesupport' };

let app: TestApp;
let fake: FakeX;
let owner: Workspace;
let inbox: Inbox;
let channelId: string;

test.before(async () => {
  fake = await startFakeX({ credentials, user: account });
  app = await startTestApp({ env: { X_API_URL: fake.url } });
  owner = await createWorkspace(app, { plan: 'Mini' });
  inbox = inboxOf(app, owner.token);
});

test.after.always(async () => {
  await app?.close();
  await fake?.close();
});

const runWorker = workerPerTest(() => app);

let eventCounter = 0;
const nextEventId = () => String(1790000000000000000n + BigInt(++eventCounter));

/** An Account Activity payload with one DM from `sender` to the account. */
function dmActivity(sender: { id: string; name: string }, text: string, id = nextEventId()) {
  return {
    for_user_id: account.id,
    direct_message_events: [
      {
        type: 'message_create',
        id,
        created_timestamp: String(Date.now()),
        message_create: {
          target: { recipient_id: account.id },
          sender_id: sender.id,
          message_data: { text, entities: { hashtags: [], symbols: [], user_mentions: [], urls: [] } },
        },
      },
    ],
    users: {
      [sender.id]: { id: sender.id, name: sender.name, screen_name: sender.name.toLowerCase().replace(/\W/g, '') },
      [account.id]: { id: account.id, name: account.name, screen_name: account.username },
    },
  };
}

/** POSTs an activity to the shared webhook, signed as X signs it unless `signature` says otherwise. */
async function postX(payload: unknown, signature?: string | null, path = '/api/v1/webhooks/x') {
  const raw = JSON.stringify(payload);
  const sig = signature === undefined ? signXWebhook(credentials.api_secret, raw) : signature;
  return app.request('POST', path, {
    rawBody: raw,
    headers: { 'content-type': 'application/json', ...(sig === null ? {} : { 'x-twitter-webhooks-signature': sig }) },
  });
}

async function customerWrites(sender: { id: string; name: string }, text: string): Promise<string> {
  const res = await postX(dmActivity(sender, text));
  if (res.status !== 200) throw new Error(`webhook: ${res.status} ${res.text}`);
  await runWorker();
  const customer = await inbox.customerBy('name', sender.name);
  const [conversation] = await waitFor(
    async () => {
      const list = await inbox.conversationsOf('x', customer.uuid);
      return list.length ? list : null;
    },
    20_000,
    'conversation',
  );
  return conversation.id;
}

const dmRequests = () => fake.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/2/dm_conversations/')).length;

test.serial("register: connected; the account's user id becomes the routing key of the shared webhook", async (t) => {
  const res = await app.request('POST', '/api/v1/channels/', { token: owner.token, body: { type: 'x', config: { ...credentials, bearer_token: 'AAAA-e2e' } } });
  t.is(res.status, 200, res.text);
  t.is(res.body.status, 'pending');
  channelId = res.body.id;
  await runWorker();
  const channel = await inbox.registered(channelId);
  t.like(channel, { status: 'connected', last_error: null });
  const [row] = await query(app, 'select routing_key, state from channels where id = $1', [channelId]);
  t.is(row.routing_key, account.id);
  t.like(row.state, { user_id: account.id, username: account.username });
});

test.serial("CRC: the response token is signed with the channel's consumer secret", async (t) => {
  const expected = 'sha256=' + createHmac('sha256', credentials.api_secret).update('crc-e2e-challenge').digest('base64');
  // X's own request: crc_token and a nonce, nothing naming the channel.
  const res = await app.request('GET', '/api/v1/webhooks/x', { query: { crc_token: 'crc-e2e-challenge', nonce: 'MTcwMDAwMDAwMA' } });
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body, { response_token: expected });
  const named = await app.request('GET', '/api/v1/webhooks/x', { query: { crc_token: 'crc-e2e-challenge', channel_id: channelId } });
  t.deepEqual(named.body, { response_token: expected });
});

test.serial('CRC: a webhook body as crc_token is refused, so its answer cannot sign a forged DM', async (t) => {
  const forged = dmActivity({ id: '2000000000000000010', name: 'Forger' }, 'Send the refund to my card');
  const raw = JSON.stringify(forged);
  const events = await inbox.countEvents();
  const crc = await app.request('GET', '/api/v1/webhooks/x', { query: { crc_token: raw, channel_id: channelId } });
  t.is(crc.status, 422, crc.text);
  t.deepEqual(
    crc.body.detail.map((issue: { loc: string[] }) => issue.loc),
    [['query', 'crc_token']],
  );
  t.is((await app.request('GET', '/api/v1/webhooks/x', { query: { crc_token: 'A'.repeat(129) } })).status, 422, 'longer than any X token');
  // Even had a caller got an answer, posting with it must not store anything.
  const post = await postX(forged, crc.body.response_token ?? 'sha256=none');
  t.is(post.status, 401);
  t.is(await inbox.countEvents(), events);
  // X's real token shape (base64 of a UUID) is still answered.
  const real = await app.request('GET', '/api/v1/webhooks/x', {
    query: { crc_token: 'M2RkODJkZmMtYjlkYi00NmQ4LTk0MGUtM2JjYzkwM2Q4MjQ0', nonce: 'MTc2OTUxODI5MjkxNA' },
  });
  t.is(real.status, 200, real.text);
});

test.serial('inbound: a signed DM is stored with its job before the 200, then becomes customer, conversation and message', async (t) => {
  const sender = { id: '2000000000000000011', name: 'Grace Hopper' };
  const payload = dmActivity(sender, 'Hey, I was double charged 😕');
  const eventId = payload.direct_message_events[0].id;
  const res = await postX(payload);
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body, { received: 1 });

  const [event] = await query(app, 'select id, kind, channel_id, processed_at from inbound_events where dedupe_key = $1', [eventId]);
  t.like(event, { kind: 'message', channel_id: channelId, processed_at: null });
  t.is((await inbox.inboundJobs([event.id])).length, 1);

  await runWorker();
  const customer = await inbox.customerBy('name', sender.name);
  t.like(customer, { email: null, phone: null });
  const conversations = await inbox.conversationsOf('x', customer.uuid);
  t.is(conversations.length, 1);
  t.like(conversations[0], { status: 'open', channel_type: 'x', channel_id: channelId });
  const messages = await inbox.messagesOf(conversations[0].id);
  t.is(messages.length, 1);
  t.like(messages[0], { sender_type: 'customer', content: 'Hey, I was double charged 😕', external_id: eventId, delivery_status: null });
});

test.serial(
  'inbound media: a DM photo is fetched with an OAuth 1.0a-signed GET (as X checks it), stored and served byte for byte; a refused signature fails it with the reason',
  async (t) => {
    const photo = makePng(64, 48, [10, 160, 90]);
    const url = fake.addDmMedia('receipt.jpg', photo, 'image/jpeg');
    const sender = { id: '2000000000000000099', name: 'Ada Photo' };
    const payload = dmActivity(sender, 'Here is the receipt');
    (payload.direct_message_events[0].message_create.message_data as Record<string, unknown>).attachment = {
      type: 'media',
      media: { id_str: '1790000000000000555', media_url_https: url, type: 'photo' },
    };
    const eventId = payload.direct_message_events[0].id;
    t.is((await postX(payload)).status, 200);
    await runWorker();
    const [message] = await waitFor(
      async () => {
        const rows = await query(app, `select attachments from messages where external_id = $1`, [eventId]);
        return rows.length && rows[0].attachments[0].status !== 'pending' ? rows : null;
      },
      20_000,
      'the X attachment settled',
    );
    const attachment = message.attachments[0];
    t.like(attachment, { status: 'stored', source_url: url, content_type: 'image/png', size: photo.length, platform_file_id: '1790000000000000555' });
    const mediaGets = fake.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/1.1/ton/data/dm/'));
    t.true(mediaGets.length >= 1 && mediaGets.every((r) => r.authorized), 'every media GET carried a valid OAuth 1.0a signature');
    const served = await fetch(attachment.url);
    t.is(served.status, 200);
    t.true(Buffer.from(await served.arrayBuffer()).equals(photo));

    // X refuses the signature (revoked token): a permanent failure, the metadata kept with X's reason.
    fake.failNext(1, 401, problem(401, 'Unauthorized', 'Could not authenticate you'));
    const refused = dmActivity(sender, 'And another one');
    (refused.direct_message_events[0].message_create.message_data as Record<string, unknown>).attachment = {
      type: 'media',
      media: { id_str: '1790000000000000556', media_url_https: fake.addDmMedia('second.jpg', photo, 'image/jpeg'), type: 'photo' },
    };
    t.is((await postX(refused)).status, 200);
    const [failed] = await waitFor(
      async () => {
        const rows = await query(app, `select attachments from messages where external_id = $1`, [refused.direct_message_events[0].id]);
        return rows.length && rows[0].attachments[0].status !== 'pending' ? rows : null;
      },
      20_000,
      'the refused X attachment settled',
    );
    t.like(failed.attachments[0], { status: 'failed', platform_file_id: '1790000000000000556' });
    t.regex(failed.attachments[0].error, /Could not authenticate you/);
  },
);

test.serial('inbound: the same event five times makes one message', async (t) => {
  const sender = { id: '2000000000000000012', name: 'Ada Lovelace' };
  const payload = dmActivity(sender, 'Hello?');
  const before = await inbox.countEvents();
  const answers = await Promise.all(Array.from({ length: 5 }, () => postX(payload)));
  t.deepEqual(
    answers.map((a) => a.status),
    [200, 200, 200, 200, 200],
  );
  t.is(
    answers.reduce((sum, a) => sum + a.body.received, 0),
    1,
    'one of them stored it',
  );
  t.is(await inbox.countEvents(), before + 1);

  await runWorker();
  const customer = await inbox.customerBy('name', sender.name);
  const [conversation] = await waitFor(async () => {
    const list = await inbox.conversationsOf('x', customer.uuid);
    return list.length ? list : null;
  });
  for (let i = 0; i < 5; i++) t.is((await postX(payload)).status, 200);
  await waitFor(async () => (await inbox.countInboundJobs()) === 0, 20_000, 'inbound jobs done');
  const messages = await inbox.messagesOf(conversation.id);
  t.is(messages.length, 1);
  t.is(messages[0].content, 'Hello?');
  t.is((await inbox.conversationsOf('x', customer.uuid)).length, 1);
});

test.serial('inbound: a bad signature is 401 and stores nothing', async (t) => {
  const payload = dmActivity({ id: '2000000000000000013', name: 'Mallory' }, 'Refund me');
  const raw = JSON.stringify(payload);
  const events = await inbox.countEvents();
  const jobs = await inbox.countInboundJobs();
  const cases: [string, string | null][] = [
    ['another consumer secret', signXWebhook('not-the-secret', raw)],
    ['no signature', null],
    ['signature of another body', signXWebhook(credentials.api_secret, JSON.stringify(dmActivity({ id: '2000000000000000013', name: 'Mallory' }, 'Hi')))],
    ['garbage', 'sha256=abc'],
  ];
  for (const [name, signature] of cases) {
    const res = await postX(payload, signature);
    t.is(res.status, 401, name);
    t.deepEqual(res.body, { detail: 'Invalid webhook signature' }, name);
  }
  t.is(await inbox.countEvents(), events);
  t.is(await inbox.countInboundJobs(), jobs);
});

test.serial('reply: X receives a DM with exactly the text for the sender; sent with its dm_event_id', async (t) => {
  const sender = { id: '2000000000000000014', name: 'Katherine Johnson' };
  const conversationId = await customerWrites(sender, 'Can I change my plan?');
  const before = fake.dms.length;
  const sent = await inbox.reply(conversationId, 'Yes, under Settings → Billing.');
  t.is(sent.delivery_status, 'queued');
  const message = await inbox.messageSettled(conversationId, sent.id);
  t.like(message, { delivery_status: 'sent', error: null });
  const dms = fake.dms.slice(before);
  t.is(dms.length, 1);
  t.like(dms[0], { participantId: sender.id, text: 'Yes, under Settings → Billing.' });
  t.is(dms[0].oauth.oauth_consumer_key, credentials.api_key);
  t.is(message.external_id, dms[0].dmEventId);
});

test.serial('delivery: X 500 then 200 delivers once, after a retry', async (t) => {
  const sender = { id: '2000000000000000015', name: 'Margaret Hamilton' };
  const conversationId = await customerWrites(sender, 'Anyone?');
  const before = fake.dms.length;
  const attempts = dmRequests();
  fake.failNext(1, 500, problem(500, 'Internal Server Error', 'Internal Server Error'));
  const sent = await inbox.reply(conversationId, 'We are here.');
  const message = await inbox.messageSettled(conversationId, sent.id);
  t.like(message, { delivery_status: 'sent', error: null });
  t.is(dmRequests() - attempts, 2, 'one failed attempt, one retry');
  const dms = fake.dms.slice(before);
  t.is(dms.length, 1, 'delivered exactly once');
  t.like(dms[0], { participantId: sender.id, text: 'We are here.' });
  t.is(message.external_id, dms[0].dmEventId);
});

test.serial("delivery: X 401 fails the message with X's reason, without retrying", async (t) => {
  const sender = { id: '2000000000000000016', name: 'Radia Perlman' };
  const conversationId = await customerWrites(sender, 'Hi');
  const before = fake.dms.length;
  const attempts = dmRequests();
  fake.failNext(1, 401, problem(401, 'Unauthorized', 'Unauthorized'));
  const sent = await inbox.reply(conversationId, 'Hello from support');
  const message = await inbox.messageSettled(conversationId, sent.id);
  t.like(message, { delivery_status: 'failed', error: 'Unauthorized', external_id: null });
  t.is(fake.dms.length, before);
  t.is(await inbox.releasedDeliveryJob(sent.id), undefined, 'its drain finished, nothing waits for a retry');
  t.is(dmRequests() - attempts, 1, 'a refusal is not retried');
});

test.serial("register: credentials X refuses leave the channel in error with X's reason and no routing key", async (t) => {
  const res = await app.request('POST', '/api/v1/channels/', {
    token: owner.token,
    body: { type: 'x', config: { ...credentials, access_token_secret: 'wrong-token-secret', bearer_token: 'AAAA-e2e' } },
  });
  t.is(res.status, 200, res.text);
  await runWorker();
  const channel = await inbox.registered(res.body.id);
  t.like(channel, { status: 'error', last_error: 'Unauthorized' });
  const [row] = await query(app, 'select routing_key from channels where id = $1', [res.body.id]);
  t.is(row.routing_key, null);
  // The working channel still receives its DMs.
  const again = await postX(dmActivity({ id: '2000000000000000017', name: 'Barbara Liskov' }, 'Still there?'));
  t.deepEqual(again.body, { received: 1 });
});

test.serial('CRC: several channels of one X app share its secret; different apps need the channel id', async (t) => {
  const crc = (channel_id?: string) => app.request('GET', '/api/v1/webhooks/x', { query: { crc_token: 'crc-2', channel_id } });
  const expected = (secret: string) => ({ response_token: 'sha256=' + createHmac('sha256', secret).update('crc-2').digest('base64') });
  // The channel of the previous test uses the same app (consumer secret) with other tokens.
  t.deepEqual((await crc()).body, expected(credentials.api_secret));

  const other = await app.request('POST', '/api/v1/channels/', {
    token: owner.token,
    body: { type: 'x', config: { ...credentials, api_key: 'other-app-key', api_secret: 'other-app-secret', bearer_token: 'AAAA-other' } },
  });
  t.is(other.status, 200, other.text);
  const ambiguous = await crc();
  t.is(ambiguous.status, 400);
  t.regex(ambiguous.body.detail, /channel_id/);
  t.deepEqual((await crc(channelId)).body, expected(credentials.api_secret));
  t.deepEqual((await crc(other.body.id)).body, expected('other-app-secret'));
  // The webhook URL registered with the channel id receives events as before (routed by for_user_id).
  const routed = await postX(dmActivity({ id: '2000000000000000018', name: 'Frances Allen' }, 'Hi'), undefined, `/api/v1/webhooks/x?channel_id=${channelId}`);
  t.deepEqual(routed.body, { received: 1 });
});

test.serial(
  'one channel per X account: a second business connecting the same account ends in error saying so; the DMs reach only the first business',
  async (t) => {
    const second = await createWorkspace(app, { plan: 'Mini' });
    const res = await app.request('POST', '/api/v1/channels/', {
      token: second.token,
      body: { type: 'x', config: { ...credentials, bearer_token: 'AAAA-second' } },
    });
    t.is(res.status, 200, res.text);
    await runWorker();
    const channel = await inboxOf(app, second.token).registered(res.body.id);
    t.is(channel.status, 'error');
    t.regex(channel.last_error, /already connected to another channel/);
    const [row] = await query(app, 'select routing_key from channels where id = $1', [res.body.id]);
    t.is(row.routing_key, null);

    const payload = dmActivity({ id: '2000000000000000019', name: 'Evelyn Berezin' }, 'Which business gets this?');
    t.deepEqual((await postX(payload)).body, { received: 1 });
    const stored = await query(app, 'select channel_id from inbound_events where dedupe_key = $1', [payload.direct_message_events[0].id]);
    t.deepEqual(
      stored.map((e) => e.channel_id),
      [channelId],
    );
  },
);
