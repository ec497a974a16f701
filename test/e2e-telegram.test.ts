/**
 * Telegram end to end, through the real HTTP server and the real worker against the fake Bot
 * API: a channel created through the API is registered by the worker (webhook with an https
 * PUBLIC_URL, long polling otherwise), a customer's update becomes a customer, a conversation
 * and a message in the inbox, and an agent's reply reaches the chat.
 *
 * Tests run serially: some check what exists right after a webhook's 200 with no worker
 * running, and the fake's scripted failures apply to whichever request comes next.
 */
import test from 'ava';
import { enqueue } from '../core/jobs.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { inboxOf, type Inbox } from './helpers/inbox.ts';
import { query, startTestWorker, waitFor } from './helpers/worker.ts';
import { postTelegramWebhook, startFakeTelegram, telegramTextUpdate, type FakeTelegram } from './fakes/telegram.ts';

const PUBLIC_URL = 'https://parley.example';

let fake: FakeTelegram;
let app: TestApp;
let owner: Workspace;
let inbox: Inbox;
/** The channel most tests share: registered in webhook mode. */
let shared: { id: string; token: string; secret: string; webhookPath: string };

test.before(async () => {
  fake = await startFakeTelegram();
  app = await startTestApp({ env: { TELEGRAM_API_URL: fake.url, PUBLIC_URL } });
  owner = await createWorkspace(app, { plan: 'Pro' });
  inbox = inboxOf(app, owner.token);
  const token = fake.addBot({ username: 'acme_support_bot' });
  const id = await createTelegramChannel(app, owner, token);
  await untilWorked(app, async () => (await channelRow(app, id)).status === 'connected', 'the shared channel connected');
  const row = await channelRow(app, id);
  shared = { id, token, secret: row.state.webhook_secret, webhookPath: new URL(fake.bot(token)!.webhook!.url).pathname };
});

test.after.always(async () => {
  await app?.close();
  await fake?.close();
});

// Helpers

async function createTelegramChannel(target: TestApp, workspace: Workspace, botToken: string): Promise<string> {
  const res = await target.request('POST', '/api/v1/channels/', { token: workspace.token, body: { type: 'telegram', config: { bot_token: botToken } } });
  if (res.status !== 200) throw new Error(`create channel: ${res.status} ${res.text}`);
  return res.body.id;
}

async function channelRow(target: TestApp, id: string) {
  const [row] = await query(target, 'select status, last_error, state from channels where id = $1', [id]);
  return row;
}

/** Runs the real worker (every task) until `check` holds, then stops it. */
async function untilWorked<T>(target: TestApp, check: () => Promise<T | null | undefined | false>, what: string): Promise<T> {
  const worker = await startTestWorker(target);
  try {
    return await waitFor(check, 20_000, what);
  } finally {
    await worker.stop();
  }
}

const postUpdate = (update: unknown, secret: string | undefined, path = shared.webhookPath) => postTelegramWebhook(`${app.url}${path}`, update, secret);

async function inboundEvents(target: TestApp, channelId: string) {
  return query(target, 'select id, kind, dedupe_key, processed_at from inbound_events where channel_id = $1 order by received_at', [channelId]);
}

/** The Telegram conversations of a customer (found by name through the API), newest first. */
async function conversationsNamed(of: Inbox, customerName: string) {
  return (await of.conversations('telegram', { limit: 200 })).filter((c) => c.customer?.name === customerName);
}

let updateId = 9000;
/**
 * In a private chat Telegram numbers the customer's and the bot's messages in one sequence; the
 * fake numbers only the bot's (from 1), so customers' ids here start far above to stay distinct.
 */
let customerMessageId = 1000;

/** A customer writes in; the worker runs until the message is in the inbox. Returns the conversation id. */
async function customerWrites(options: { chatId: number; text: string; firstName: string; messageId?: number }): Promise<string> {
  updateId += 1;
  customerMessageId += 1;
  const res = await postUpdate(telegramTextUpdate({ messageId: customerMessageId, ...options, updateId }), shared.secret);
  const body = (await res.json()) as { received?: number };
  if (res.status !== 200 || body.received !== 1) throw new Error(`webhook: ${res.status} ${JSON.stringify(body)}`);
  return untilWorked(
    app,
    async () => {
      for (const conversation of await conversationsNamed(inbox, options.firstName)) {
        const messages = await inbox.messagesOf(conversation.id);
        if (messages.some((m) => m.content === options.text)) return conversation.id as string;
      }
      return null;
    },
    `"${options.text}" in the inbox`,
  );
}

const sendMessageCalls = (token: string, text: string) =>
  fake.requests.filter((r) => r.token === token && r.apiMethod === 'sendMessage' && r.json?.text === text);

// Registration

test.serial("webhook mode: the worker sets the channel's webhook URL and secret with Telegram; status connected", async (t) => {
  const token = fake.addBot({ username: 'registration_bot' });
  const id = await createTelegramChannel(app, owner, token);
  const listed = () => inbox.channelOf(id);
  t.like(await listed(), { status: 'pending', last_error: null });

  await untilWorked(app, async () => (await channelRow(app, id)).status === 'connected', 'connected');
  t.like(await listed(), { status: 'connected', last_error: null, config: { bot_token: token } });
  const row = await channelRow(app, id);
  const webhook = fake.bot(token)!.webhook!;
  t.is(webhook.url, `${PUBLIC_URL}/api/v1/webhooks/telegram/${id}`);
  t.regex(webhook.secret_token!, /^[A-Za-z0-9_-]{16,256}$/);
  t.is(row.state.webhook_secret, webhook.secret_token, 'the channel keeps the secret Telegram will echo');
  t.is(row.state.mode, 'webhook');
  t.deepEqual(webhook.allowed_updates, ['message']);
  const calls = fake.requests.filter((r) => r.token === token).map((r) => r.apiMethod);
  t.deepEqual(calls, ['getMe', 'setWebhook']);
});

test.serial("a bad bot token: status error with Telegram's reason in last_error", async (t) => {
  const id = await createTelegramChannel(app, owner, '123456:revoked-token');
  await untilWorked(app, async () => (await channelRow(app, id)).status !== 'pending', 'registration finished');
  const res = await app.request('GET', '/api/v1/channels/', { token: owner.token });
  t.like(
    res.body.find((c: any) => c.id === id),
    { status: 'error', last_error: 'Unauthorized' },
  );
  const [job] = await query(app, 'select id from graphile_worker.jobs where key = $1', [`register:${id}`]);
  t.is(job, undefined, 'a refusal is not retried');
});

test.serial("squatting: a stranger's channel naming the bot with a made-up token fails, and does not keep the owner from connecting it", async (t) => {
  const stranger = await createWorkspace(app, { plan: 'Pro' });
  const realToken = fake.addBot({ username: 'squatted_bot' });
  const botId = realToken.split(':')[0];
  // Bot ids are public (t.me links, the bot's own messages): the stranger names it with a made-up token first.
  const squat = await createTelegramChannel(app, stranger, `${botId}:made-up-token`);
  const own = await createTelegramChannel(app, owner, realToken);
  await untilWorked(
    app,
    async () => {
      const [a, b] = [await channelRow(app, squat), await channelRow(app, own)];
      return a.status !== 'pending' && b.status !== 'pending';
    },
    'both registrations finished',
  );
  t.like(await channelRow(app, own), { status: 'connected', last_error: null });
  // Its own registration was refused, or the owner's proof came first: either way it says why.
  const refused = await channelRow(app, squat);
  t.is(refused.status, 'error');
  t.regex(refused.last_error, /^(Unauthorized|Another business connected this Telegram account with credentials the platform accepted for it)/);
  const [held] = await query(app, 'select routing_proven from channels where id = $1', [own]);
  t.true(held.routing_proven);
  // Now the bot is the owner's: naming it again is refused at once.
  const again = await app.request('POST', '/api/v1/channels/', {
    token: stranger.token,
    body: { type: 'telegram', config: { bot_token: `${botId}:another-guess` } },
  });
  t.deepEqual([again.status, again.body], [400, { detail: 'This Telegram bot is already connected to a channel' }]);
});

// Inbound

test.serial('inbound: the 200 comes after the event and its job are stored; the worker puts customer, conversation and message in the inbox', async (t) => {
  const update = telegramTextUpdate({
    updateId: 5001,
    chatId: 424242,
    messageId: 1,
    text: 'Hi, where is my order #1042?',
    firstName: 'Ada',
    lastName: 'Lovelace',
  });
  const res = await postUpdate(update, shared.secret);
  t.is(res.status, 200);
  t.deepEqual(await res.json(), { received: 1 });

  // No worker is running: what exists now existed when the 200 was sent.
  const events = (await inboundEvents(app, shared.id)).filter((e) => e.dedupe_key === '424242:1');
  t.is(events.length, 1);
  t.like(events[0], { kind: 'message', processed_at: null });
  const jobs = await inbox.inboundJobs([events[0].id]);
  t.is(jobs.length, 1, 'its process_inbound job was enqueued with it');

  const conversationId = await untilWorked(app, async () => (await conversationsNamed(inbox, 'Ada Lovelace'))[0]?.id, 'the conversation');
  const customers = await app.request('GET', '/api/v1/customers', { token: owner.token, query: { q: 'Ada Lovelace' } });
  t.is(customers.status, 200);
  t.is(customers.body.length, 1);
  const [conversation] = await conversationsNamed(inbox, 'Ada Lovelace');
  t.like(conversation, { status: 'open', channel_type: 'telegram', channel_id: shared.id, customer_id: customers.body[0].uuid });
  const messages = await inbox.messagesOf(conversationId);
  t.is(messages.length, 1);
  t.like(messages[0], { sender_type: 'customer', sender_id: null, content: 'Hi, where is my order #1042?', delivery_status: null, external_id: '424242:1' });
  t.is((await inboundEvents(app, shared.id)).find((e) => e.id === events[0].id)!.processed_at !== null, true);
  t.deepEqual(await inbox.inboundJobs([events[0].id]), [], 'the job completed');
  const live = app.events.filter((e) => e.payload.conversation_id === conversationId).map((e) => e.name);
  t.deepEqual(live, ['conversation_created', 'message_created', 'conversation_updated'], 'dashboards hear of it');
});

test.serial("inbound: NUL and a lone surrogate in a customer's text are stored as U+FFFD, not refused (Telegram would redeliver forever)", async (t) => {
  const update = telegramTextUpdate({ updateId: 5003, chatId: 616161, messageId: 3, text: 'nul \u0000 and \ud800 here', firstName: 'Unicode \u0000' });
  const res = await postUpdate(update, shared.secret);
  t.is(res.status, 200);
  t.deepEqual(await res.json(), { received: 1 });
  const conversationId = await untilWorked(app, async () => (await conversationsNamed(inbox, 'Unicode \ufffd'))[0]?.id, 'the conversation');
  const messages = await inbox.messagesOf(conversationId);
  t.deepEqual(
    messages.map((m) => m.content),
    ['nul \ufffd and \ufffd here'],
  );
});

test.serial('the same update delivered five times makes exactly one message', async (t) => {
  const update = telegramTextUpdate({ updateId: 5002, chatId: 515151, messageId: 7, text: 'Is anybody there?', firstName: 'Grace' });
  const answers = [];
  for (let i = 0; i < 5; i += 1) {
    const res = await postUpdate(update, shared.secret);
    answers.push([res.status, await res.json()]);
  }
  t.deepEqual(answers, [[200, { received: 1 }], ...Array(4).fill([200, { received: 0 }])]);
  const events = (await inboundEvents(app, shared.id)).filter((e) => e.dedupe_key === '515151:7');
  t.is(events.length, 1);
  t.is((await inbox.inboundJobs([events[0].id])).length, 1);

  const conversationId = await untilWorked(app, async () => (await conversationsNamed(inbox, 'Grace'))[0]?.id, 'the conversation');
  const messages = await inbox.messagesOf(conversationId);
  t.deepEqual(
    messages.map((m) => m.content),
    ['Is anybody there?'],
  );
  t.is((await conversationsNamed(inbox, 'Grace')).length, 1);
});

test.serial('a wrong or missing secret is 401 and stores nothing; an unknown channel is 404', async (t) => {
  const before = (await inboundEvents(app, shared.id)).length;
  const jobsBefore = (await query(app, `select count(*)::int as n from graphile_worker.jobs where task_identifier = 'process_inbound'`))[0].n;
  const update = telegramTextUpdate({ updateId: 5003, chatId: 616161, messageId: 1, text: 'forged', firstName: 'Mallory' });
  for (const secret of [`${shared.secret}x`, 'wrong', undefined]) {
    const res = await postUpdate(update, secret);
    t.is(res.status, 401, `secret ${secret}`);
    t.deepEqual(await res.json(), { detail: 'Invalid webhook signature' });
  }
  const unknown = await postUpdate(update, shared.secret, '/api/v1/webhooks/telegram/00000000-0000-4000-8000-000000000000');
  t.is(unknown.status, 404);
  t.is((await inboundEvents(app, shared.id)).length, before, 'no inbound_events row');
  const jobsAfter = (await query(app, `select count(*)::int as n from graphile_worker.jobs where task_identifier = 'process_inbound'`))[0].n;
  t.is(jobsAfter, jobsBefore, 'no job');
});

// Outbound

test.serial("an agent reply reaches exactly that chat with the bot's token; sent with Telegram's message id", async (t) => {
  const conversationId = await customerWrites({ chatId: 700001, text: 'Can I change my address?', firstName: 'Katherine' });
  const sentBefore = fake.sent.length;
  const message = await inbox.reply(conversationId, 'Yes: tell me the new one.');
  t.like(message, { sender_type: 'agent', sender_id: owner.userId, delivery_status: 'queued', external_id: null });

  const delivered = await untilWorked(
    app,
    async () => {
      const m = await inbox.messageById(conversationId, message.id);
      return m?.delivery_status === 'sent' ? m : null;
    },
    'sent',
  );
  const sent = fake.sent.slice(sentBefore);
  t.deepEqual(
    sent.map((m) => [m.token, m.method, m.chat_id, m.text]),
    [[shared.token, 'sendMessage', '700001', 'Yes: tell me the new one.']],
  );
  t.like(delivered, { delivery_status: 'sent', external_id: `700001:${sent[0].message_id}`, error: null });
  t.true(app.events.some((e) => e.name === 'message_updated' && e.payload.message_id === message.id && e.payload.delivery_status === 'sent'));
});

test.serial('Telegram answers 500, then 200: delivered once, after a retry', async (t) => {
  const conversationId = await customerWrites({ chatId: 700002, text: 'Hello?', firstName: 'Hedy' });
  const text = 'Sorry, we are looking into it.';
  const message = await inbox.reply(conversationId, text);
  fake.failNext(1, { status: 500 });

  const worker = await startTestWorker(app);
  try {
    const failed = await waitFor(
      async () => {
        const job = await inbox.deliveryJob(message.id);
        return job?.attempts === 1 && job.locked_at === null ? job : null;
      },
      20_000,
      'the first attempt failed',
    );
    t.truthy(failed.last_error);
    t.is((await inbox.messageById(conversationId, message.id)).delivery_status, 'queued', 'a transient failure leaves it queued');
    // graphile-worker would wait exp(1) ≈ 2.7 s before the retry: bring the retry forward.
    await inbox.retryNow(message.id);
    const delivered = await waitFor(
      async () => {
        const m = await inbox.messageById(conversationId, message.id);
        return m?.delivery_status === 'sent' ? m : null;
      },
      20_000,
      'sent after the retry',
    );
    t.regex(delivered.external_id, /^700002:\d+$/);
    t.is(delivered.error, null);
  } finally {
    await worker.stop();
  }
  t.is(sendMessageCalls(shared.token, text).length, 1, 'one message reached the chat');
  t.is(await inbox.deliveryJob(message.id), undefined);
});

test.serial('Telegram answers 429 with retry_after: delivered once, no sooner than Telegram asked', async (t) => {
  const conversationId = await customerWrites({ chatId: 700006, text: 'Flood?', firstName: 'Mary' });
  const text = 'Slowly but surely.';
  const message = await inbox.reply(conversationId, text);
  fake.failNext(1, { status: 429, retryAfter: 1 });
  const worker = await startTestWorker(app);
  try {
    const rescheduled = await waitFor(
      async () => {
        const [job] = await query(
          app,
          `select m.delivery_attempts as attempts, exists (select 1 from graphile_worker.jobs j where j.key = 'deliver:' || m.conversation_id
                 and j.locked_at is null and j.run_at > now() + interval '500 milliseconds') as later
         from messages m where m.id = $1 and m.next_delivery_at > now() + interval '500 milliseconds'`,
          [message.id],
        );
        return job?.later ? job : null;
      },
      20_000,
      "the conversation's drain rescheduled to Telegram's time",
    );
    t.is(rescheduled.attempts, 0, 'a wait Telegram asked for, not a failed attempt');
    t.is((await inbox.messageById(conversationId, message.id)).delivery_status, 'queued');
    const delivered = await waitFor(
      async () => {
        const m = await inbox.messageById(conversationId, message.id);
        return m?.delivery_status === 'sent' ? m : null;
      },
      20_000,
      'sent',
    );
    t.regex(delivered.external_id, /^700006:\d+$/);
  } finally {
    await worker.stop();
  }
  t.is(sendMessageCalls(shared.token, text).length, 1);
});

test.serial("Telegram answers 401: failed with Telegram's reason, not retried", async (t) => {
  const conversationId = await customerWrites({ chatId: 700003, text: 'Hi', firstName: 'Barbara' });
  const text = 'This will not arrive.';
  const message = await inbox.reply(conversationId, text);
  fake.failNext(1, { status: 401 });
  const failed = await untilWorked(
    app,
    async () => {
      const m = await inbox.messageById(conversationId, message.id);
      return m?.delivery_status === 'failed' ? m : null;
    },
    'failed',
  );
  t.like(failed, { delivery_status: 'failed', error: 'Unauthorized', external_id: null });
  t.is(await inbox.deliveryJob(message.id), undefined, 'no job left to retry');
  t.is(sendMessageCalls(shared.token, text).length, 0);
});

test.serial('a reply whose Telegram id another message of the channel already holds is sent once, not again and again', async (t) => {
  // The customer's message 1 and the fake's numbering of the bot's first reply (also 1) give the same `chat:id`.
  const conversationId = await customerWrites({ chatId: 700005, messageId: 1, text: 'Numbered one', firstName: 'Annie' });
  const text = 'Our reply, also numbered one.';
  const message = await inbox.reply(conversationId, text);
  const done = await untilWorked(
    app,
    async () => {
      const m = await inbox.messageById(conversationId, message.id);
      return m?.delivery_status === 'sent' && !(await inbox.deliveryJob(message.id)) ? m : null;
    },
    'sent',
  );
  t.like(done, { delivery_status: 'sent', external_id: null, error: null });
  t.is(sendMessageCalls(shared.token, text).length, 1);
});

// Threading

test.serial('a customer message on a resolved conversation reopens it; on a closed one it starts a new conversation', async (t) => {
  const first = await customerWrites({ chatId: 700004, text: 'First question', firstName: 'Radia' });
  const resolved = await app.request('PUT', `/api/v1/conversations/${first}/resolve`, { token: owner.token });
  t.is(resolved.status, 200);

  const again = await customerWrites({ chatId: 700004, text: 'One more thing', firstName: 'Radia' });
  t.is(again, first, 'the same conversation');
  const reopened = await app.request('GET', `/api/v1/conversations/${first}`, { token: owner.token });
  t.like(reopened.body, { status: 'open', resolved_at: null });
  t.deepEqual(
    reopened.body.messages.map((m: any) => m.content),
    ['First question', 'One more thing'],
  );

  const closed = await app.request('PUT', `/api/v1/conversations/${first}/close`, { token: owner.token });
  t.is(closed.status, 200);
  const fresh = await customerWrites({ chatId: 700004, text: 'Back again', firstName: 'Radia' });
  t.not(fresh, first, 'a new conversation');
  const conversations = await conversationsNamed(inbox, 'Radia');
  t.deepEqual(
    conversations.map((c) => [c.id, c.status]),
    [
      [fresh, 'open'],
      [first, 'closed'],
    ],
  );
  t.is(conversations[0].customer.uuid, conversations[1].customer.uuid, 'the same customer');
  t.deepEqual(
    (await inbox.messagesOf(fresh)).map((m) => m.content),
    ['Back again'],
  );
});

// Polling

test.serial('polling mode (http PUBLIC_URL): registration removes the webhook; poll_channels brings queued updates into the inbox once', async (t) => {
  const local = await startTestApp({ env: { TELEGRAM_API_URL: fake.url } });
  t.teardown(() => local.close());
  t.regex(local.deps.config.publicUrl, /^http:\/\//);
  const localOwner = await createWorkspace(local, { plan: 'Mini' });
  const localInbox = inboxOf(local, localOwner.token);
  const token = fake.addBot();
  const id = await createTelegramChannel(local, localOwner, token);
  await untilWorked(local, async () => (await channelRow(local, id)).status === 'connected', 'connected');
  t.like((await channelRow(local, id)).state, { mode: 'polling', offset: 0 });
  t.is(fake.bot(token)!.webhook, undefined);
  t.deepEqual(
    fake.requests.filter((r) => r.token === token).map((r) => r.apiMethod),
    ['getMe', 'deleteWebhook'],
  );

  fake.queueUpdate(token, telegramTextUpdate({ chatId: 880001, messageId: 1, text: 'Polled hello', firstName: 'Lin' }));
  const last = fake.queueUpdate(token, telegramTextUpdate({ chatId: 880001, messageId: 2, text: 'Polled again', firstName: 'Lin' }));

  const poll = async () => {
    await enqueue(local.deps.db, 'poll_channels', {});
    return untilWorked(
      local,
      async () => {
        const [row] = await query(
          local,
          `select count(*)::int as n from graphile_worker.jobs where task_identifier in ('poll_channels', 'poll_channel', 'process_inbound')`,
        );
        const state = (await channelRow(local, id)).state;
        return row.n === 0 && state.offset === last + 1;
      },
      'the poll processed',
    );
  };
  await poll();
  const conversations = await conversationsNamed(localInbox, 'Lin');
  t.is(conversations.length, 1);
  t.like(conversations[0], { channel_id: id, status: 'open' });
  const contents = async () => (await localInbox.messagesOf(conversations[0].id)).map((m) => [m.sender_type, m.content]);
  t.deepEqual(await contents(), [
    ['customer', 'Polled hello'],
    ['customer', 'Polled again'],
  ]);

  // The next poll asks past what it already stored: nothing new, nothing twice.
  await poll();
  t.deepEqual(await contents(), [
    ['customer', 'Polled hello'],
    ['customer', 'Polled again'],
  ]);
  // (A crontab tick may add polls of its own: each asks from 0 before the first fetch, from last + 1 after it.)
  const offsets = fake.requests.filter((r) => r.token === token && r.apiMethod === 'getUpdates').map((r) => r.json.offset);
  t.true(offsets.length >= 2);
  t.true(
    offsets.every((o, i) => o === (i === 0 || offsets[i - 1] === 0 ? o : last + 1) && (o === 0 || o === last + 1)),
    JSON.stringify(offsets),
  );
  t.is(offsets.at(-1), last + 1);

  // A reply goes out through the same bot.
  const res = await local.request('POST', `/api/v1/conversations/${conversations[0].id}/messages`, {
    token: localOwner.token,
    body: { content: 'Got it, Lin.' },
  });
  t.is(res.status, 200);
  await untilWorked(local, async () => fake.sent.some((m) => m.token === token && m.chat_id === '880001' && m.text === 'Got it, Lin.'), 'the reply');
});
