/**
 * Replies reach the customer in the order they were stored (issue 16), through the
 * conversation's delivery drain (core/commands/delivery-drain.ts): quick replies against a
 * platform whose answer time varies, a transient failure that holds back only its own
 * conversation, a permanent one that lets the next reply go, and two workers draining two
 * conversations at the same time; a drain that finds another running comes back later, and the
 * running drain removes it as it leaves, so the next reply never waits for that time. (A worker
 * killed mid-drain: test/e2e-crash.test.ts.)
 */
import test from 'ava';
import type { RecordedRequest } from './fakes/http-fake.ts';
import { customerTexts, whatsappConversation, type WhatsAppConversation } from './helpers/whatsapp-conversation.ts';
import { query, startTestWorker, waitFor } from './helpers/worker.ts';
import { drainDeliveries, MAX_RETRY_AFTER_SECONDS } from '../core/commands/delivery-drain.ts';

let setup: WhatsAppConversation;
test.before(async () => {
  setup = await whatsappConversation();
});
test.after.always(() => setup?.close());

/** A conversation of a new WhatsApp customer, on the setup's channel unless another number is given (the inbound drain stores it). */
async function customerWrites(phone: string, phoneNumberId = '1066'): Promise<string> {
  const { app } = setup;
  await customerTexts(app, { phoneNumberId, from: phone, id: `wamid.${phone}`, text: 'Hi there' });
  const worker = await startTestWorker(app, { only: ['process_inbound'] });
  try {
    const [row] = await waitFor(async () => {
      const rows = await query(app, `select c.id from conversations c join customers cu on cu.id = c.customer_id where cu.platform_user_id = $1`, [phone]);
      return rows.length ? rows : null;
    });
    return row.id;
  } finally {
    await worker.stop();
  }
}

const textsTo = (phone: string) => setup.fake.whatsappSent.filter((m) => m.to === phone).map((m) => m.body.text?.body as string);
const toPhone = (phone: string) => (request: RecordedRequest) => request.json?.to === phone;
const statusOf = async (id: string) => (await query(setup.app, 'select delivery_status, delivery_attempts, error from messages where id = $1', [id]))[0];

test.serial('30 quick replies to one customer, the platform answering in 0–40 ms: all arrive, once each, in the order they were sent', async (t) => {
  const { app, fake, inbox, conversationId, customerPhone } = setup;
  fake.setLatency(() => Math.floor(Math.random() * 41));
  const before = textsTo(customerPhone).length;
  // Each reply is answered 200 before the next is typed, while the worker already delivers.
  const worker = await startTestWorker(app, { only: ['deliver_message'], concurrency: 5 });
  const texts = Array.from({ length: 30 }, (_, i) => `Quick reply ${i + 1}`);
  try {
    for (const text of texts) await inbox.reply(conversationId, text);
    await waitFor(async () => textsTo(customerPhone).length - before >= 30 || null, 60_000, '30 replies at the platform');
    await waitFor(
      async () =>
        (await query(app, `select count(*)::int as n from messages where conversation_id = $1 and delivery_status = 'queued'`, [conversationId]))[0].n === 0 ||
        null,
    );
  } finally {
    await worker.stop();
    fake.setLatency(0);
  }
  t.deepEqual(textsTo(customerPhone).slice(before), texts);
});

test.serial('a transient failure holds back the replies after it in its conversation, and nothing else; the retry sends them in order', async (t) => {
  const { app, fake, inbox } = setup;
  const [held, other] = ['15550002001', '15550002002'];
  const heldConversation = await customerWrites(held);
  const otherConversation = await customerWrites(other);
  fake.failNext(1, { status: 500 }, (request) => toPhone(held)(request) && request.json?.text?.body === 'held 2');
  const heldReplies: { id: string }[] = [];
  for (const text of ['held 1', 'held 2', 'held 3']) heldReplies.push(await inbox.reply(heldConversation, text));
  for (const text of ['other 1', 'other 2', 'other 3']) await inbox.reply(otherConversation, text);

  const worker = await startTestWorker(app, { only: ['deliver_message'] });
  try {
    await waitFor(async () => textsTo(other).length === 3 || null, 20_000, 'the other conversation delivered');
    const waiting = await waitFor(
      async () => {
        const job = await inbox.deliveryJob(heldReplies[1]!.id);
        return job?.attempts === 1 && job.locked_at === null ? job : null;
      },
      20_000,
      'the failed attempt recorded',
    );
    t.truthy(waiting.last_error, 'the reason of the failed attempt is on the reply');
    t.deepEqual(textsTo(other), ['other 1', 'other 2', 'other 3'], 'the other conversation was not held back');
    t.deepEqual(textsTo(held), ['held 1'], 'the reply after the failed one waits for it');
    t.like(await statusOf(heldReplies[2]!.id), { delivery_status: 'queued', delivery_attempts: 0 });

    await inbox.retryNow(heldReplies[1]!.id);
    await waitFor(async () => textsTo(held).length === 3 || null, 20_000, 'the held conversation delivered after the retry');
  } finally {
    await worker.stop();
  }
  t.deepEqual(textsTo(held), ['held 1', 'held 2', 'held 3']);
  for (const reply of heldReplies) t.like(await statusOf(reply.id), { delivery_status: 'sent', error: null });
});

test.serial("a 429 with Retry-After holds its channel's other conversations until then, and no other channel", async (t) => {
  const { app, fake, inbox, owner } = setup;
  fake.addWhatsAppNumber('2077', 'wa-token-2077');
  const otherChannel = await app.request('POST', '/api/v1/channels/', {
    token: owner.token,
    body: { type: 'whatsapp', config: { phone_number_id: '2077', access_token: 'wa-token-2077' } },
  });
  t.is(otherChannel.status, 200);
  const [limited, sameChannel, elsewhere] = ['15550003001', '15550003002', '15550003003'];
  const limitedConversation = await customerWrites(limited);
  const sameChannelConversation = await customerWrites(sameChannel);
  const elsewhereConversation = await customerWrites(elsewhere, '2077');
  // When each send reached the platform (the refused one included).
  const reached: { to: string; at: number }[] = [];
  fake.setLatency((request) => {
    reached.push({ to: request.json?.to as string, at: Date.now() });
    return 0;
  });
  const retryAfter = 4;
  fake.failNext(1, { status: 429, code: 4, message: '(#4) Application request limit reached', retryAfter }, toPhone(limited));
  const worker = await startTestWorker(app, { only: ['deliver_message'] });
  try {
    const eventsBefore = app.events.length;
    await inbox.reply(limitedConversation, 'limited');
    const refusedAt = (await waitFor(async () => reached.find((r) => r.to === limited), 20_000, 'the 429')).at;
    await inbox.reply(sameChannelConversation, 'same channel');
    await inbox.reply(elsewhereConversation, 'another channel');
    // The channels say so meanwhile (Settings → Channels shows it).
    const held = await waitFor(async () => {
      const channels = (await app.request('GET', '/api/v1/channels', { token: owner.token })).body as { id: string; send_held_until: string | null }[];
      return channels.some((c) => c.send_held_until) ? channels : null;
    });
    const limitedChannel = (await query(app, 'select channel_id from conversations where id = $1', [limitedConversation]))[0].channel_id;
    t.deepEqual(
      held.filter((c) => c.send_held_until).map((c) => c.id),
      [limitedChannel],
      'the limited channel only',
    );
    t.true(
      app.events.slice(eventsBefore).some((e) => e.name === 'channel_updated' && e.payload.channel_id === limitedChannel),
      'dashboards hear of it (Settings → Channels reloads)',
    );
    await waitFor(async () => textsTo(elsewhere).length === 1 || null, 20_000, 'the other channel delivered');
    await waitFor(async () => (textsTo(limited).length === 1 && textsTo(sameChannel).length === 1) || null, 30_000, 'the held channel delivered');
    const holdEnds = refusedAt + retryAfter * 1000;
    const first = (phone: string) => reached.find((r) => r.to === phone)!.at;
    // The platform's clock and the database's are this machine's: a little slack either way.
    t.true(first(elsewhere) < holdEnds - 500, 'the other channel was not held');
    t.true(first(sameChannel) >= holdEnds - 250, "the channel's other conversation waited for the Retry-After");
    t.is(reached.filter((r) => r.to === sameChannel).length, 1, 'and did not meet the limit itself');
    t.true(reached.filter((r) => r.to === limited).at(-1)!.at >= holdEnds - 250, 'the limited reply went again once the hold ended');
    const after = (await app.request('GET', '/api/v1/channels', { token: owner.token })).body as { send_held_until: string | null }[];
    t.true(
      after.every((c) => c.send_held_until === null),
      'an ended hold reads as none',
    );
  } finally {
    await worker.stop();
    fake.setLatency(0);
  }
});

test.serial('a Retry-After beyond a day holds the reply and its channel for a day, not for good', async (t) => {
  const { app, fake, inbox } = setup;
  fake.addWhatsAppNumber('3088', 'wa-token-3088');
  const channel = await app.request('POST', '/api/v1/channels/', {
    token: setup.owner.token,
    body: { type: 'whatsapp', config: { phone_number_id: '3088', access_token: 'wa-token-3088' } },
  });
  t.is(channel.status, 200);
  const phone = '15550003004';
  const conversation = await customerWrites(phone, '3088');
  fake.failNext(1, { status: 429, code: 4, message: '(#4) Application request limit reached', retryAfter: 10 ** 12 }, toPhone(phone));
  const reply = await inbox.reply(conversation, 'much later');
  const worker = await startTestWorker(app, { only: ['deliver_message'] });
  try {
    const [held] = await waitFor(async () => {
      const rows = await query(
        app,
        `select extract(epoch from m.next_delivery_at - now())::float8 as message_s, extract(epoch from c.send_held_until - now())::float8 as channel_s
         from messages m join channels c on c.id = $2 where m.id = $1 and m.next_delivery_at is not null`,
        [reply.id, channel.body.id],
      );
      return rows.length ? rows : null;
    });
    for (const seconds of [held.message_s, held.channel_s])
      t.true(seconds > MAX_RETRY_AFTER_SECONDS - 60 && seconds <= MAX_RETRY_AFTER_SECONDS + 1, String(seconds));
    t.like(await statusOf(reply.id), { delivery_status: 'queued', delivery_attempts: 0 });
  } finally {
    await worker.stop();
  }
});

test.serial("a permanent refusal fails that reply with the platform's reason and lets the next one go", async (t) => {
  const { app, fake, inbox } = setup;
  const phone = '15550002003';
  const conversation = await customerWrites(phone);
  fake.failNext(1, { status: 400, code: 131047, message: '(#131047) Re-engagement message' }, (request) => request.json?.text?.body === 'refused');
  const refused = await inbox.reply(conversation, 'refused');
  const next = await inbox.reply(conversation, 'goes anyway');
  const worker = await startTestWorker(app, { only: ['deliver_message'] });
  try {
    await inbox.messageSettled(conversation, next.id, ['sent']);
  } finally {
    await worker.stop();
  }
  const failed = await statusOf(refused.id);
  t.is(failed.delivery_status, 'failed');
  t.regex(failed.error, /131047/);
  t.deepEqual(textsTo(phone), ['goes anyway']);
  t.is(await inbox.releasedDeliveryJob(refused.id), undefined, 'a refusal is not retried');
});

test.serial('a platform id another message holds already: the reply is sent without it, never again, and the next one goes', async (t) => {
  const { app, fake, inbox } = setup;
  const phone = '15550002006';
  const conversation = await customerWrites(phone);
  const first = await inbox.reply(conversation, 'first');
  const worker = await startTestWorker(app, { only: ['deliver_message'] });
  try {
    await inbox.messageSettled(conversation, first.id, ['sent']);
  } finally {
    await worker.stop();
  }
  fake.repeatMessageIdOnce();
  const second = await inbox.reply(conversation, 'second, answered with the same id');
  const third = await inbox.reply(conversation, 'third');
  const again = await startTestWorker(app, { only: ['deliver_message'] });
  try {
    await inbox.messageSettled(conversation, third.id, ['sent']);
  } finally {
    await again.stop();
  }
  const rows = await query(app, 'select id, delivery_status, external_id from messages where id = any($1::uuid[]) order by created_at', [
    [first.id, second.id, third.id],
  ]);
  t.deepEqual(
    rows.map((r) => r.delivery_status),
    ['sent', 'sent', 'sent'],
  );
  t.truthy(rows[0].external_id);
  t.is(rows[1].external_id, null, 'the id taken by the first reply is not recorded twice');
  t.truthy(rows[2].external_id);
  t.deepEqual(textsTo(phone), ['first', 'second, answered with the same id', 'third'], 'each sent once, in order');
});

test.serial('two workers drain two conversations at the same time', async (t) => {
  const { app, fake, inbox } = setup;
  const [first, second] = ['15550002004', '15550002005'];
  const conversations = [await customerWrites(first), await customerWrites(second)];
  // The platform answers no send until both conversations' sends are in flight together
  // (or after 15 s, which fails the test: one worker would then be waiting for the other).
  let arrived = 0;
  let releaseBoth!: () => void;
  const both = new Promise<void>((resolve) => (releaseBoth = resolve));
  let together = false;
  fake.setLatency((request) => {
    if (!toPhone(first)(request) && !toPhone(second)(request)) return 0;
    arrived += 1;
    if (arrived === 2) {
      together = true;
      releaseBoth();
    }
    return Promise.race([both, new Promise((resolve) => setTimeout(resolve, 15_000))]);
  });
  await inbox.reply(conversations[0]!, 'to the first');
  await inbox.reply(conversations[1]!, 'to the second');
  // One slot each: any parallelism comes from having two workers.
  const workers = [
    await startTestWorker(app, { only: ['deliver_message'], concurrency: 1 }),
    await startTestWorker(app, { only: ['deliver_message'], concurrency: 1 }),
  ];
  try {
    await waitFor(async () => (textsTo(first).length === 1 && textsTo(second).length === 1) || null, 30_000, 'both delivered');
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    fake.setLatency(0);
  }
  t.true(together, 'both sends were at the platform at once');
});

test.serial('a drain that finds another running comes back later; leaving, the running drain removes it, so the next reply arms a drain at once', async (t) => {
  const { app, fake, inbox } = setup;
  const phone = '15550002026';
  const conversationId = await customerWrites(phone);
  const key = `deliver:${conversationId}`;
  const jobs = () => query(app, `select id, run_at > now() + interval '500 milliseconds' as later from graphile_worker._private_jobs where key = $1`, [key]);
  // The platform holds the first send until the test lets it go.
  let atPlatform!: () => void;
  const sending = new Promise<void>((resolve) => (atPlatform = resolve));
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  fake.setLatency((request) => {
    if (!toPhone(phone)(request) || request.json?.text?.body !== 'first') return 0;
    atPlatform();
    return answered;
  });
  try {
    await inbox.reply(conversationId, 'first');
    const [armed] = await jobs();
    // This test runs the drains itself, as a worker would run these jobs.
    const running = drainDeliveries(app.deps, conversationId, { id: armed.id });
    await sending;
    await inbox.reply(conversationId, 'second');
    const [second] = await jobs();
    t.truthy(second, 'the reply armed a drain beside the running one');
    t.deepEqual(await drainDeliveries(app.deps, conversationId, { id: second.id }), { sent: 0, failed: 0, waiting: true });
    const [later] = await jobs();
    t.true(later.later, 'the drain that found the other running comes back later');
    answer();
    t.deepEqual(await running, { sent: 2, failed: 0, waiting: false }, 'the running drain sent the reply stored meanwhile');
    t.deepEqual(await jobs(), [], 'leaving, it removed the waiting drain');
    t.deepEqual(textsTo(phone), ['first', 'second']);
    await inbox.reply(conversationId, 'third');
    const [next] = await jobs();
    t.false(next?.later ?? true, 'the next reply armed a drain due now');
  } finally {
    fake.setLatency(0);
  }
});
