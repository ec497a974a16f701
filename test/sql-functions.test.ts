/**
 * Parley's SQL functions called directly, as the TypeScript calls them (sql/schema.sql lists
 * them): the inbound batch with the JSON keys of connectors/messages.ts, the monthly counter,
 * the delivery drain's start. The graphile-worker helpers and the drains' arming are in
 * test/graphile-internals.test.ts.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { InboundMessage } from '../connectors/messages.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace } from './helpers/fixtures.ts';
import { jobCatalogue } from '../core/jobs.ts';
import { deliveryLocks } from '../core/commands/delivery-drain.ts';
import { inboundLocks } from '../core/commands/inbound.ts';
import { lockAsWorker, waitFor } from './helpers/worker.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

async function channel(businessId: string, type: 'telegram' | 'email'): Promise<string> {
  const [row] = await app.sql(`insert into channels (business_id, type, is_active) values ($1, $2, true) returning id`, [businessId, type]);
  return row.id;
}

const message = (externalId: string, from: string, text: string, extra: Partial<InboundMessage> = {}): InboundMessage => ({
  kind: 'message',
  externalId,
  from: { platformUserId: from, name: `Name of ${from}`, email: `${from}@example.com` },
  text,
  attachments: [],
  sentAt: new Date().toISOString(),
  ...extra,
});

type Applied = { idx: number; applied_message_id: string; applied_conversation_id: string; opened_conversation: boolean };

const apply = async (businessId: string, channelId: string, type: string, messages: object[]): Promise<Applied[]> =>
  app.sql(`select * from inbound_apply_messages($1, $2, $3, $4::jsonb)`, [businessId, channelId, type, JSON.stringify(messages)]);

test('inbound_apply_messages: a batch opens one conversation per customer, in order; a redelivered id is stored once', async (t) => {
  const ws = await createWorkspace(app);
  const ch = await channel(ws.businessId, 'telegram');
  const applied = await apply(ws.businessId, ch, 'telegram', [message('m1', 'ann', 'hello'), message('m2', 'bob', 'hi'), message('m3', 'ann', 'again')]);
  t.deepEqual(
    applied.map((a) => [a.idx, a.opened_conversation]),
    [
      [0, true],
      [1, true],
      [2, false],
    ],
  );
  t.is(applied[0]!.applied_conversation_id, applied[2]!.applied_conversation_id);
  t.not(applied[0]!.applied_conversation_id, applied[1]!.applied_conversation_id);
  const [customer] = await app.sql(`select name, email, platform_user_id, business_id from customers where channel_id = $1 and platform_user_id = 'ann'`, [ch]);
  t.deepEqual(customer, { name: 'Name of ann', email: 'ann@example.com', platform_user_id: 'ann', business_id: ws.businessId });
  const again = await apply(ws.businessId, ch, 'telegram', [message('m1', 'ann', 'hello')]);
  t.deepEqual(again, [], 'a redelivery adds nothing');
  const [{ n }] = await app.sql(`select count(*)::int as n from messages where channel_id = $1`, [ch]);
  t.is(n, 3);
});

test("inbound_apply_messages: references thread only into the same customer's conversation", async (t) => {
  const ws = await createWorkspace(app);
  const ch = await channel(ws.businessId, 'email');
  const [first] = await apply(ws.businessId, ch, 'email', [message('<a@x>', 'ann', 'question', { references: [], subject: 'Help' })]);
  const [reply] = await apply(ws.businessId, ch, 'email', [message('<b@x>', 'ann', 'more', { references: ['<a@x>'] })]);
  t.is(reply!.applied_conversation_id, first!.applied_conversation_id);
  t.false(reply!.opened_conversation);
  const [forged] = await apply(ws.businessId, ch, 'email', [message('<c@x>', 'mallory', 'forged', { references: ['<a@x>'] })]);
  t.true(forged!.opened_conversation, "another sender quoting ann's Message-ID opens their own conversation");
  const [{ subject }] = await app.sql(`select subject from conversations where id = $1`, [first!.applied_conversation_id]);
  t.is(subject, 'Help');
});

test("reserve_monthly_message: counts up to the plan's monthly limit exactly, then refuses", async (t) => {
  const ws = await createWorkspace(app);
  const [{ max }] = await app.sql(`select max_messages_per_month as max from plans where name = 'Free'`);
  let reserved = 0;
  for (let i = 0; i < max + 3; i++) {
    const [row] = await app.sql(`select * from reserve_monthly_message($1)`, [ws.businessId]);
    t.is(row.plan_name, 'Free');
    t.is(row.plan_max, max);
    if (row.reserved) reserved += 1;
  }
  t.is(reserved, max);
  const [{ total }] = await app.sql(`select sum(count)::int as total from message_counters where business_id = $1`, [ws.businessId]);
  t.is(total, max);
});

test('delivery_drain_enter: the drain gives up its key and takes DRAIN; a second drain finds DRAIN taken and comes back in a second; leaving removes it', async (t) => {
  const conversationId = randomUUID();
  const key = `deliver:${conversationId}`;
  await app.sql(`select delivery_arm_drain($1)`, [conversationId]);
  const [job] = await app.sql(`select id::text from graphile_worker.jobs where key = $1`, [key]);
  t.truthy(job);
  // Each drain on a connection of its own, as a worker's drain holds one.
  const first = new pg.Client({ connectionString: app.databaseUrl });
  const second = new pg.Client({ connectionString: app.databaseUrl });
  await Promise.all([first.connect(), second.connect()]);
  try {
    const enter = async (client: pg.Client, jobId: string, conversation: string) =>
      (await client.query('select delivery_drain_enter($1::bigint, $2) as entered', [jobId, conversation])).rows[0].entered as boolean;
    t.true(await enter(first, job.id, randomUUID()), "another conversation's drain enters");
    t.is((await app.sql(`select key from graphile_worker.jobs where id = $1::bigint`, [job.id]))[0].key, key, "another conversation's id changes nothing");
    t.true(await enter(first, job.id, conversationId));
    t.is((await app.sql(`select key from graphile_worker.jobs where id = $1::bigint`, [job.id]))[0].key, null, 'the running drain gave up its key');
    await app.sql(`select delivery_arm_drain($1)`, [conversationId]);
    const [next] = await app.sql(`select id::text from graphile_worker.jobs where key = $1`, [key]);
    t.truthy(next, 'the next reply armed a new drain');
    t.false(await enter(second, next.id, conversationId), 'DRAIN is taken');
    const [back] = await app.sql(`select run_at > now() + interval '500 milliseconds' as later from graphile_worker.jobs where key = $1`, [key]);
    t.true(back.later, 'it comes back in a second');
    t.true((await first.query('select delivery_drain_leave($1) as left', [conversationId])).rows[0].left, 'nothing queued: the first drain leaves');
    t.deepEqual(await app.sql(`select id from graphile_worker.jobs where key = $1`, [key]), [], 'leaving, it removed the waiting drain');
    await app.sql(`select delivery_arm_drain($1)`, [conversationId]);
    const [again] = await app.sql(`select id::text, run_at <= now() as due from graphile_worker.jobs where key = $1`, [key]);
    t.true(again.due, 'the next reply armed a drain due now');
    t.true(await enter(second, again.id, conversationId), 'DRAIN is free again');
  } finally {
    await Promise.all([first.end(), second.end()]);
  }
});

/** The two drains' SQL, as their TypeScript calls it (inbound.ts inboundLocks, delivery-drain.ts deliveryLocks). */
const drains = [
  { what: 'a reply', arm: 'delivery_arm_drain', enter: 'delivery_drain_enter', keyPrefix: 'deliver:', locks: deliveryLocks },
  { what: 'an event', arm: 'inbound_arm_drain', enter: 'inbound_drain_enter', keyPrefix: 'inbound:', locks: inboundLocks },
] as const;

/** A drain job armed for `id` and taken by a worker (locked, first attempt), as graphile-worker's getJobs leaves it. */
async function takenDrainJob(drain: (typeof drains)[number], id: string): Promise<string> {
  await app.sql(`select ${drain.arm}($1)`, [id]);
  const [job] = await app.sql(`select id::text from graphile_worker._private_jobs where key = $1`, [`${drain.keyPrefix}${id}`]);
  await lockAsWorker(app, job.id, 'probe');
  return job.id;
}

for (const drain of drains) {
  test(`${drain.enter}: ${drain.what} stored while the drain runs arms a new job and leaves the running one's attempts alone`, async (t) => {
    const id = randomUUID();
    const jobId = await takenDrainJob(drain, id);
    const client = new pg.Client({ connectionString: app.databaseUrl });
    await client.connect();
    try {
      t.true((await client.query(`select ${drain.enter}($1::bigint, $2) as entered`, [jobId, id])).rows[0].entered);
      await app.sql(`select ${drain.arm}($1)`, [id]);
      const [running] = await app.sql(`select key, attempts from graphile_worker.jobs where id = $1::bigint`, [jobId]);
      t.deepEqual(running, { key: null, attempts: 1 }, 'not replaced: a failure of this run is retried');
      const armed = await app.sql(`select id::text from graphile_worker.jobs where key = $1 and locked_at is null`, [`${drain.keyPrefix}${id}`]);
      t.is(armed.length, 1, 'the store armed the next drain');
    } finally {
      await client.end();
    }
  });

  test(`${drain.enter} beside ${drain.what} arming the drain: neither waits for the other (no deadlock)`, async (t) => {
    // A drain job a worker has taken enters while another drain holds DRAIN and a store's
    // transaction holds STORE shared (the arm's first step). The entering drain waits for STORE
    // exclusive; the store then arms, which replaces the taken job by its key. Were the entering
    // drain holding that job's row meanwhile (giving its key up before STORE), each would wait
    // for the other until PostgreSQL's deadlock check killed one a second later (migration 0123).
    const id = randomUUID();
    const lockKey = (cls: number) => `${cls}, hashtext('${id}')`;
    const jobId = await takenDrainJob(drain, id);
    const [running, store, entering] = [0, 1, 2].map(() => new pg.Client({ connectionString: app.databaseUrl }));
    await Promise.all([running.connect(), store.connect(), entering.connect()]);
    try {
      await running.query(`select pg_advisory_lock(${lockKey(drain.locks.drain)})`);
      await store.query('begin');
      await store.query(`select pg_advisory_xact_lock_shared(${lockKey(drain.locks.store)})`);
      const enteringPid = (await entering.query('select pg_backend_pid() as pid')).rows[0].pid as number;
      const entered = entering.query(`select ${drain.enter}($1::bigint, $2) as entered`, [jobId, id]);
      await waitFor(
        async () => (await app.sql(`select wait_event_type = 'Lock' as waiting from pg_stat_activity where pid = $1`, [enteringPid]))[0].waiting,
        10_000,
        'the entering drain to wait for STORE',
      );
      await store.query(`select ${drain.arm}($1)`, [id]);
      await store.query('commit');
      t.false((await entered).rows[0].entered, 'DRAIN is held: it comes back');
      const waiting = await app.sql(`select id::text from graphile_worker.jobs where key = $1 and locked_at is null`, [`${drain.keyPrefix}${id}`]);
      t.is(waiting.length, 1, 'one drain waits under the key');
      const [taken] = await app.sql(`select key from graphile_worker.jobs where id = $1::bigint`, [jobId]);
      t.is(taken.key, null, 'the taken job no longer holds the key');
    } finally {
      await Promise.all([running.end(), store.end(), entering.end()]);
    }
  });
}
