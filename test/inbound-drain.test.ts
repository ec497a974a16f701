/**
 * The inbound drain (process_inbound {channel_id}): a channel's stored events become messages in
 * arrival order, per customer, under bursts across many customers; an event stored while a drain
 * runs is processed; a redelivery stays one message; a failing event is handed to a job of its
 * own and the rest of the channel goes on; a drain that finds another running does not wait for
 * it, and comes back (removed when the other leaves, as the other took its events; on its own when the other died).
 */
import test from 'ava';
import pg from 'pg';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { query, startTestWorker, waitFor } from './helpers/worker.ts';
import { postMetaWebhook, whatsappTextPayload } from './fakes/meta.ts';
import { applyMessages, processInboundEvent, storeInboundEvents } from '../core/commands/inbound.ts';
import { sql } from '../core/adapters/postgres/db.ts';
import { drainInbound } from '../core/commands/inbound-drain.ts';
import type { InboundMessage } from '../connectors/types.ts';

const APP_SECRET = 'drain-app-secret';

let app: TestApp;
let owner: Workspace;

test.before(async () => {
  app = await startTestApp();
  owner = await createWorkspace(app, { plan: 'Pro' });
});

test.after.always(async () => {
  await app?.close();
});

let numbers = 0;

/** A new WhatsApp channel (its own phone number id) of the workspace. */
async function whatsappChannel(): Promise<{ id: string; phoneNumberId: string }> {
  numbers += 1;
  const phoneNumberId = `10654035224${numbers}`;
  const res = await app.request('POST', '/api/v1/channels/', {
    token: owner.token,
    body: { type: 'whatsapp', config: { phone_number_id: phoneNumberId, access_token: 'EAAG-token', app_secret: APP_SECRET } },
  });
  if (res.status !== 200) throw new Error(`channel: ${res.status} ${res.text}`);
  return { id: res.body.id, phoneNumberId };
}

async function customerWrites(phoneNumberId: string, from: string, id: string, text: string) {
  const res = await postMetaWebhook(`${app.url}/api/v1/webhooks/whatsapp`, whatsappTextPayload({ phoneNumberId, from, id, text }), APP_SECRET);
  if (res.status !== 200) throw new Error(`webhook: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Each conversation's customer messages of the channel, as the inbox orders them. */
async function threads(channelId: string): Promise<Map<string, string[]>> {
  const rows = await query(
    app,
    `
    select cu.platform_user_id as who, m.content from messages m
    join conversations c on c.id = m.conversation_id join customers cu on cu.id = c.customer_id
    where m.channel_id = $1 order by c.id, m.created_at, m.id`,
    [channelId],
  );
  const byCustomer = new Map<string, string[]>();
  for (const row of rows) byCustomer.set(row.who, [...(byCustomer.get(row.who) ?? []), row.content]);
  return byCustomer;
}

const countMessages = async (channelId: string) =>
  (await query(app, 'select count(*)::int as n from messages where channel_id = $1', [channelId]))[0].n as number;

test.serial(
  "a burst across 30 customers on one channel, stored before and while the worker runs: every customer's messages in the order they were sent, one conversation each",
  async (t) => {
    const channel = await whatsappChannel();
    const customers = 30;
    // Each customer writes one message after another (as a phone does); the customers write at once.
    const burst = (from: number, to: number) =>
      Promise.all(
        Array.from({ length: customers }, async (_, c) => {
          for (let i = from; i < to; i += 1) await customerWrites(channel.phoneNumberId, `1555000${1000 + c}`, `wamid.B${c}.${i}`, `c${c} #${i}`);
        }),
      );
    // Stored with no worker: one drain batch then holds several messages of each customer.
    await burst(0, 4);
    const worker = await startTestWorker(app, { only: ['process_inbound'] });
    try {
      await burst(4, 8);
      await waitFor(async () => (await countMessages(channel.id)) === customers * 8, 30_000, 'every message');
    } finally {
      await worker.stop();
    }
    const byCustomer = await threads(channel.id);
    t.is(byCustomer.size, 30);
    for (const [who, contents] of byCustomer) {
      const c = Number(who) - 15550001000;
      t.deepEqual(
        contents,
        Array.from({ length: 8 }, (_, i) => `c${c} #${i}`),
        `customer ${who}`,
      );
    }
    const [{ n }] = await query(app, 'select count(*)::int as n from conversations where channel_id = $1', [channel.id]);
    t.is(n, 30, 'one conversation per customer');
    const [pending] = await query(app, 'select count(*)::int as n from inbound_events where channel_id = $1 and processed_at is null', [channel.id]);
    t.is(pending.n, 0);
  },
);

test.serial('an event stored while the drain runs is processed by that drain: its last look waits for the storing transaction', async (t) => {
  const channel = await whatsappChannel();
  await customerWrites(channel.phoneNumberId, '15550002001', 'wamid.D1', 'first');
  const late: InboundMessage = {
    kind: 'message',
    routingKey: channel.phoneNumberId,
    externalId: 'wamid.D2',
    from: { platformUserId: '15550002001' },
    text: 'second',
    attachments: [],
    sentAt: new Date().toISOString(),
  };
  let commit!: () => void;
  const committed = new Promise<void>((resolve) => (commit = resolve));
  let stored!: () => void;
  const storing = new Promise<void>((resolve) => (stored = resolve));
  // The second message's transaction stays open while the drain works.
  const store = app.deps.db.transaction(async (tx) => {
    await storeInboundEvents(tx, { id: channel.id, business_id: owner.businessId, type: 'whatsapp' }, [late], null);
    stored();
    await committed;
  });
  await storing;
  const drain = drainInbound(app.deps.db, channel.id, () => {});
  await waitFor(async () => (await countMessages(channel.id)) === 1, 10_000, 'the first message');
  commit();
  await store;
  const result = await drain;
  t.deepEqual(result, { processed: 2, failed: 0 });
  t.deepEqual((await threads(channel.id)).get('15550002001'), ['first', 'second']);
});

test.serial('a redelivery is one message: repeated while pending, after processing, and an event applied twice', async (t) => {
  const channel = await whatsappChannel();
  const answers = [];
  for (let i = 0; i < 3; i += 1) answers.push(await customerWrites(channel.phoneNumberId, '15550003001', 'wamid.R1', 'only once'));
  t.deepEqual(answers, [{ received: 1 }, { received: 0 }, { received: 0 }]);
  const [{ n: jobs }] = await query(app, `select count(*)::int as n from graphile_worker.jobs where key = $1`, [`inbound:${channel.id}`]);
  t.is(jobs, 1, 'one drain job for the channel');
  t.deepEqual(await drainInbound(app.deps.db, channel.id, () => {}), { processed: 1, failed: 0 });
  t.deepEqual(await customerWrites(channel.phoneNumberId, '15550003001', 'wamid.R1', 'only once'), { received: 0 });
  // The same event applied again (as a retried job would): still one message.
  const [event] = await query(app, `select id from inbound_events where channel_id = $1`, [channel.id]);
  await query(app, 'update inbound_events set processed_at = null where id = $1', [event.id]);
  t.deepEqual(await drainInbound(app.deps.db, channel.id, () => {}), { processed: 1, failed: 0 });
  t.deepEqual((await threads(channel.id)).get('15550003001'), ['only once']);
});

test.serial("a failing event is handed to a job of its own; the channel's other events go on; fixed, the job brings it in", async (t) => {
  const channel = await whatsappChannel();
  await customerWrites(channel.phoneNumberId, '15550004001', 'wamid.F1', 'before');
  // A stored event the worker cannot apply (no sender), between two good ones.
  const [bad] = await query(
    app,
    `
    insert into inbound_events (business_id, channel_id, kind, dedupe_key, event)
    values ($1, $2, 'message', 'wamid.BAD', '{"kind":"message","externalId":"wamid.BAD","text":"broken","attachments":[]}') returning id`,
    [owner.businessId, channel.id],
  );
  await customerWrites(channel.phoneNumberId, '15550004002', 'wamid.F2', 'after');
  const worker = await startTestWorker(app, { only: ['process_inbound'] });
  try {
    await waitFor(async () => (await countMessages(channel.id)) === 2, 20_000, 'the good messages');
    const [event] = await query(app, 'select processed_at, failed_at, last_error from inbound_events where id = $1', [bad.id]);
    t.is(event.processed_at, null);
    t.truthy(event.failed_at);
    t.regex(event.last_error, /"from"/, 'the reason names the missing sender');
    const retry = await waitFor(
      async () => {
        const [job] = await query(app, `select id, payload, attempts, last_error from graphile_worker._private_jobs where key = $1`, [
          `inbound-event:${bad.id}`,
        ]);
        return job?.attempts >= 1 ? job : null;
      },
      20_000,
      'the retry job tried',
    );
    t.deepEqual(retry.payload, { event_id: bad.id });
    // Repaired (e.g. a connector fix re-parsed it): the next retry stores it.
    await query(app, `update inbound_events set event = jsonb_set(event, '{from}', '{"platformUserId":"15550004003"}') where id = $1`, [bad.id]);
    await query(app, 'update graphile_worker._private_jobs set run_at = now() where id = $1', [retry.id]);
    await waitFor(async () => (await countMessages(channel.id)) === 3, 20_000, 'the repaired message');
  } finally {
    await worker.stop();
  }
  const byCustomer = await threads(channel.id);
  t.deepEqual([...byCustomer.values()].flat().sort(), ['after', 'before', 'broken']);
  const [done] = await query(app, 'select processed_at from inbound_events where id = $1', [bad.id]);
  t.truthy(done.processed_at);
});

test.serial(
  'a drain that finds another running returns at once and comes back later; leaving, the running drain removes the jobs left with nothing to do, and the next webhook arms a drain at once',
  async (t) => {
    const channel = await whatsappChannel();
    const key = `inbound:${channel.id}`;
    await customerWrites(channel.phoneNumberId, '15550008001', 'wamid.E1', 'one');
    // This test runs the drains itself.
    await query(app, 'delete from graphile_worker._private_jobs where key = $1', [key]);
    let inBatch!: () => void;
    const paused = new Promise<void>((resolve) => (inBatch = resolve));
    let resume!: () => void;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    let batches = 0;
    // The running drain stops after its first batch (publish is awaited), holding DRAIN.
    const running = drainInbound(app.deps.db, channel.id, async () => {
      batches += 1;
      if (batches === 1) {
        inBatch();
        await resumed;
      }
    });
    await paused;
    await customerWrites(channel.phoneNumberId, '15550008001', 'wamid.E2', 'two');
    const [armed] = await query(app, 'select id, locked_at from graphile_worker._private_jobs where key = $1', [key]);
    t.truthy(armed, 'the webhook armed a drain job beside the running drain');
    // A second drain (as a worker taking that job would run it) does not wait for the first.
    t.deepEqual(await drainInbound(app.deps.db, channel.id, () => {}), { processed: 0, failed: 0 });
    const [later] = await query(app, `select run_at > now() + interval '500 milliseconds' as later from graphile_worker._private_jobs where key = $1`, [key]);
    t.true(later.later, 'it comes back in a second');
    resume();
    t.deepEqual(await running, { processed: 2, failed: 0 }, 'the running drain took the event stored meanwhile');
    t.deepEqual(await query(app, 'select id from graphile_worker._private_jobs where key = $1', [key]), [], 'leaving, it removed the waiting drain');
    t.deepEqual((await threads(channel.id)).get('15550008001'), ['one', 'two']);
    await customerWrites(channel.phoneNumberId, '15550008001', 'wamid.E3', 'three');
    const [next] = await query(app, `select run_at <= now() as due from graphile_worker._private_jobs where key = $1`, [key]);
    t.true(next?.due, 'the next webhook armed a drain due now');
  },
);

test.serial("a drain whose process died holding the channel: the drain that found it taken comes back and takes the channel's events", async (t) => {
  const channel = await whatsappChannel();
  await customerWrites(channel.phoneNumberId, '15550009001', 'wamid.K1', 'stranded?');
  const key = `inbound:${channel.id}`;
  await query(app, 'delete from graphile_worker._private_jobs where key = $1', [key]);
  // A drain's connection holds DRAIN (entered, never left), then its process dies.
  const dying = new pg.Client({ connectionString: app.databaseUrl });
  await dying.connect();
  t.true((await dying.query('select inbound_drain_enter(null, $1) as entered', [channel.id])).rows[0].entered);
  t.deepEqual(await drainInbound(app.deps.db, channel.id, () => {}), { processed: 0, failed: 0 });
  await dying.end();
  const worker = await startTestWorker(app, { only: ['process_inbound'] });
  try {
    await waitFor(async () => (await countMessages(channel.id)) === 1, 20_000, 'the message');
  } finally {
    await worker.stop();
  }
  t.deepEqual((await threads(channel.id)).get('15550009001'), ['stranded?']);
});

test.serial('webhooks while a drain job waits reuse it (never rewritten); while it runs, a new job is armed beside it', async (t) => {
  const channel = await whatsappChannel();
  for (let i = 0; i < 5; i += 1) await customerWrites(channel.phoneNumberId, '15550005001', `wamid.A${i}`, `burst ${i}`);
  const jobs = () =>
    query(
      app,
      `select id, key, revision, locked_at from graphile_worker._private_jobs where (key = $1 or key is null) and payload->>'channel_id' = $2 order by id`,
      [`inbound:${channel.id}`, channel.id],
    );
  const [waiting, ...others] = await jobs();
  t.deepEqual(others, []);
  t.is(waiting.revision, 0, 'the waiting job was not updated by the later webhooks');
  // A worker takes it (as graphile-worker's get_job does): the next event needs a job of its own.
  await query(app, `update graphile_worker._private_jobs set locked_at = now(), locked_by = 'test' where id = $1`, [waiting.id]);
  await customerWrites(channel.phoneNumberId, '15550005001', 'wamid.A5', 'after the drain started');
  const after = await jobs();
  t.is(after.length, 2);
  t.like(after[0], { id: waiting.id, key: null }, 'the running job lost its key');
  t.like(after[1], { key: `inbound:${channel.id}`, locked_at: null });
  await query(app, 'delete from graphile_worker._private_jobs where id = $1', [waiting.id]);
  t.deepEqual(await drainInbound(app.deps.db, channel.id, () => {}), { processed: 6, failed: 0 });
});

test.serial('a changed app secret or a deleted channel applies to the next webhook at once (the channel lookup cache is cleared)', async (t) => {
  const channel = await whatsappChannel();
  t.deepEqual(await customerWrites(channel.phoneNumberId, '15550006001', 'wamid.C1', 'cached'), { received: 1 });
  const patch = await app.request('PATCH', `/api/v1/channels/${channel.id}`, { token: owner.token, body: { config: { app_secret: 'rotated-secret' } } });
  t.is(patch.status, 200, patch.text);
  const payload = whatsappTextPayload({ phoneNumberId: channel.phoneNumberId, from: '15550006001', id: 'wamid.C2', text: 'after rotation' });
  t.is((await postMetaWebhook(`${app.url}/api/v1/webhooks/whatsapp`, payload, APP_SECRET)).status, 401, 'the old secret is refused');
  t.is((await postMetaWebhook(`${app.url}/api/v1/webhooks/whatsapp`, payload, 'rotated-secret')).status, 200);
  t.is((await app.request('DELETE', `/api/v1/channels/${channel.id}`, { token: owner.token })).status, 200);
  const late = await postMetaWebhook(
    `${app.url}/api/v1/webhooks/whatsapp`,
    whatsappTextPayload({ phoneNumberId: channel.phoneNumberId, from: '15550006001', id: 'wamid.C3', text: 'gone' }),
    'rotated-secret',
  );
  t.deepEqual([late.status, await late.json()], [200, { received: 0 }]);
  // Even with a stale lookup (another API node's cache), a deleted channel stores nothing.
  const stale: InboundMessage = {
    kind: 'message',
    externalId: 'wamid.C4',
    from: { platformUserId: '15550006001' },
    text: 'stale',
    attachments: [],
    sentAt: new Date().toISOString(),
  };
  t.deepEqual(await storeInboundEvents(app.deps.db, { id: channel.id, business_id: owner.businessId, type: 'whatsapp' }, [stale], null), []);
});

test.serial(
  "threading by References is the connector's: a WhatsApp message that names another conversation's message still joins its customer's latest conversation",
  async (t) => {
    const channel = await whatsappChannel();
    const inbound = { id: channel.id, business_id: owner.businessId, type: 'whatsapp' };
    const message = (platformUserId: string, externalId: string, references?: string[]): InboundMessage => ({
      kind: 'message',
      externalId,
      from: { platformUserId },
      text: externalId,
      attachments: [],
      sentAt: new Date().toISOString(),
      ...(references ? { references } : {}),
    });
    await storeInboundEvents(app.deps.db, inbound, [message('15550007001', 'wamid.T1'), message('15550007002', 'wamid.T2')], null);
    t.deepEqual(await drainInbound(app.deps.db, channel.id, () => {}), { processed: 2, failed: 0 });
    // Only a threaded connector (e-mail) threads by references; here they are ignored.
    await storeInboundEvents(app.deps.db, inbound, [message('15550007001', 'wamid.T3', ['wamid.T2'])], null);
    t.deepEqual(await drainInbound(app.deps.db, channel.id, () => {}), { processed: 1, failed: 0 });
    const rows = await query(
      app,
      `
    select m.external_id, c.id as conversation, cu.platform_user_id as who from messages m
    join conversations c on c.id = m.conversation_id join customers cu on cu.id = c.customer_id
    where m.channel_id = $1 order by m.external_id`,
      [channel.id],
    );
    t.deepEqual(
      rows.map((r) => [r.external_id, r.who]),
      [
        ['wamid.T1', '15550007001'],
        ['wamid.T2', '15550007002'],
        ['wamid.T3', '15550007001'],
      ],
    );
    t.is(rows[2].conversation, rows[0].conversation, "the customer's own conversation, not the one the references name");
  },
);

test.serial(
  "an event processed on its own (a visitor's request, its retry job) while the channel's drain applies it: no deadlock, one message each",
  async (t) => {
    const channel = await whatsappChannel();
    const inbound = { id: channel.id, business_id: owner.businessId, type: 'whatsapp' };
    const message = (id: string, text: string): InboundMessage => ({
      kind: 'message',
      routingKey: channel.phoneNumberId,
      externalId: id,
      from: { platformUserId: '15550010001' },
      text,
      attachments: [],
      sentAt: new Date().toISOString(),
    });
    const batch = [message('wamid.F1', 'first'), message('wamid.F2', 'second')];
    const ids = await app.deps.db.transaction((tx) => storeInboundEvents(tx, inbound, batch, null));
    const waitingForSender = async () =>
      (await query(app, `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event = 'advisory'`))[0].n as number;
    let eventRowFree: boolean | undefined;

    // As the drain runs a batch: the messages applied (the sender's lock taken), then the events marked done.
    let applied!: () => void;
    const senderLocked = new Promise<void>((resolve) => (applied = resolve));
    const drain = app.deps.db.transaction(async (tx) => {
      await applyMessages(tx, inbound, batch);
      applied();
      await waitFor(async () => (await waitingForSender()) > 0, 10_000, 'the request waiting for the sender');
      // The waiting request holds no lock on the event's row, which the drain takes next.
      eventRowFree = await query(app, 'select id from inbound_events where id = $1 for update nowait', [ids[1]]).then(
        () => true,
        () => false,
      );
      await tx.query(sql.unsafe`update inbound_events set processed_at = now() where id = any(${sql.array(ids, 'uuid')})`);
    });
    // Meanwhile the second event is processed on its own: it waits for the drain, and neither waits for the other.
    await Promise.race([senderLocked, drain]);
    const alone = processInboundEvent(app.deps.db, ids[1]!);
    const [drained, processed] = await Promise.allSettled([drain, alone]);
    t.is(drained.status, 'fulfilled', drained.status === 'rejected' ? String(drained.reason) : '');
    t.true(eventRowFree, 'the request took the sender lock before the event row (the other order deadlocks with the drain)');
    t.deepEqual(processed, { status: 'fulfilled', value: [] }, 'it found the event processed by the drain');
    t.deepEqual((await threads(channel.id)).get('15550010001'), ['first', 'second']);
  },
);
