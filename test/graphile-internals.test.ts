/**
 * What Parley relies on in graphile-worker beyond its documented API (core/adapters/
 * graphile-internals.ts and migration 0085), checked against the installed version: an upgrade
 * that changes a column, a function or a behaviour fails here first. Also pins the facts the
 * drains' SQL spells like the TypeScript (task names, job keys, advisory lock classes).
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { z } from 'zod';
import { sql } from '../core/adapters/postgres/db.ts';
import {
  assertGraphileWorkerVersion,
  existingJobIds,
  handBackJob,
  installedGraphileWorkerVersion,
  makeLastAttempt,
} from '../core/adapters/graphile-internals.ts';
import { listFailedJobs } from '../core/admin/jobs-admin.ts';
import { addJob, jobCatalogue } from '../core/jobs.ts';
import { inboundLocks } from '../core/commands/inbound.ts';
import { deliveryLocks } from '../core/commands/delivery-drain.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { lockAsWorker } from './helpers/worker.ts';
import { createWorkspace } from './helpers/fixtures.ts';
import { recordEvents, settingsChanged, type DomainEventInput } from '../core/events/domain.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

const jobRow = z.object({
  id: z.coerce.string(),
  task: z.string(),
  key: z.string().nullable(),
  attempts: z.number(),
  max_attempts: z.number(),
  locked_by: z.string().nullable(),
});

const job = (id: string) =>
  app.deps.db.maybeOne(sql.type(jobRow)`
    select id, task_identifier as task, key, attempts, max_attempts, locked_by from graphile_worker.jobs where id = ${id}::bigint`);

/** The jobs with these keys, by task name: task, key and payload as the SQL wrote them. */
const jobsByKey = (...keys: string[]) =>
  app.deps.db.any(sql.type(z.object({ task: z.string(), key: z.string(), payload: z.unknown() }))`
    select k.identifier as task, key, payload from graphile_worker._private_jobs j
    join graphile_worker._private_tasks k on k.id = j.task_id
    where key = any(${sql.array(keys, 'text')}) order by k.identifier`);

test('the installed graphile-worker is the version the internals were written for; another is refused clearly', (t) => {
  t.notThrows(() => assertGraphileWorkerVersion());
  t.regex(installedGraphileWorkerVersion(), /^0\.18\./);
  for (const version of ['0.19.0', '1.0.0', '0.17.4']) {
    const error = t.throws(() => assertGraphileWorkerVersion(version));
    t.regex(error!.message, new RegExp(`graphile-worker ${version.replaceAll('.', '\\.')} is installed.*graphile-internals\\.ts`));
  }
});

test('the private columns and public functions relied on exist with their types', async (t) => {
  const columns = await app.deps.db.anyFirst(sql.type(z.object({ c: z.string() }))`
    select c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) as c
    from pg_attribute a join pg_class c on c.oid = a.attrelid
    where c.relnamespace = 'graphile_worker'::regnamespace and a.attnum > 0 and not a.attisdropped
      and (c.relname, a.attname) in (
        ('_private_jobs', 'id'), ('_private_jobs', 'key'), ('_private_jobs', 'locked_at'), ('_private_jobs', 'locked_by'),
        ('_private_jobs', 'attempts'), ('_private_jobs', 'max_attempts'), ('_private_jobs', 'job_queue_id'), ('_private_jobs', 'payload'),
        ('_private_jobs', 'run_at'),
        ('_private_job_queues', 'id'), ('_private_job_queues', 'locked_by'), ('_private_job_queues', 'locked_at'))
    order by 1`);
  t.deepEqual(columns, [
    '_private_job_queues.id integer',
    '_private_job_queues.locked_at timestamp with time zone',
    '_private_job_queues.locked_by text',
    '_private_jobs.attempts smallint',
    '_private_jobs.id bigint',
    '_private_jobs.job_queue_id integer',
    '_private_jobs.key text',
    '_private_jobs.locked_at timestamp with time zone',
    '_private_jobs.locked_by text',
    '_private_jobs.max_attempts smallint',
    '_private_jobs.payload json',
    '_private_jobs.run_at timestamp with time zone',
  ]);
  const functions = await app.deps.db.anyFirst(sql.type(z.object({ f: z.string() }))`
    select p.proname as f from pg_proc p
    where p.pronamespace = 'graphile_worker'::regnamespace
      and p.proname in ('add_job', 'remove_job', 'permanently_fail_jobs', 'reschedule_jobs', 'force_unlock_workers', 'complete_jobs')
    group by p.proname order by 1`);
  t.deepEqual(functions, ['add_job', 'complete_jobs', 'force_unlock_workers', 'permanently_fail_jobs', 'remove_job', 'reschedule_jobs']);
});

test('graphile_job_waiting sees an unlocked job by key; with p_unattempted, not a retry waiting for its backoff', async (t) => {
  const key = `internals:${randomUUID()}`;
  const waiting = (unattempted: boolean) =>
    app.deps.db.oneFirst(sql.type(z.object({ w: z.boolean() }))`select graphile_job_waiting(${key}, ${unattempted}) as w`);
  t.false(await waiting(false));
  const id = await addJob(app.deps.db, 'internals_probe', {}, { jobKey: key });
  t.true(await waiting(false));
  t.true(await waiting(true));
  await lockAsWorker(app, id, 'probe-worker');
  t.false(await waiting(false), 'a running job is not waiting');
  await app.deps.db.query(sql.unsafe`update graphile_worker._private_jobs set locked_by = null, locked_at = null where id = ${id}::bigint`);
  t.true(await waiting(false));
  t.false(await waiting(true), 'tried once: a retry, not a fresh job');
});

test('add_job replacing a running keyed job uses up its attempts; releasing the key first avoids it', async (t) => {
  // The behaviour delivery_drain_enter (graphile_job_release_key) exists for.
  const key = `internals:${randomUUID()}`;
  const first = await addJob(app.deps.db, 'internals_probe', { n: 1 }, { jobKey: key });
  await lockAsWorker(app, first, 'probe-worker');
  await addJob(app.deps.db, 'internals_probe', { n: 2 }, { jobKey: key });
  const replaced = await job(first);
  t.is(replaced?.key, null);
  t.is(replaced?.attempts, replaced?.max_attempts, 'graphile-worker 0.18 marks a replaced running job as on its last attempt');

  const key2 = `internals:${randomUUID()}`;
  const running = await addJob(app.deps.db, 'internals_probe', { n: 1 }, { jobKey: key2 });
  await lockAsWorker(app, running, 'probe-worker');
  await app.deps.db.query(sql.unsafe`select graphile_job_release_key(${running}::bigint, ${key2})`);
  const next = await addJob(app.deps.db, 'internals_probe', { n: 2 }, { jobKey: key2 });
  t.not(next, running);
  const kept = await job(running);
  t.is(kept?.key, null);
  t.is(kept?.attempts, 1, 'its attempts untouched');
  t.is((await job(next))?.key, key2);
});

test("handBackJob unlocks a job its worker holds and gives the attempt back; another worker's job is left alone", async (t) => {
  const id = await addJob(app.deps.db, 'internals_probe', {});
  await lockAsWorker(app, id, 'probe-worker');
  await handBackJob(app.deps.db, id, 'someone-else');
  t.is((await job(id))?.locked_by, 'probe-worker');
  await handBackJob(app.deps.db, id, 'probe-worker');
  const back = await job(id);
  t.is(back?.locked_by, null);
  t.is(back?.attempts, 0);
  // existingJobIds takes a pg client, as WorkerUtils.withPgClient gives one.
  const client = new pg.Client({ connectionString: app.databaseUrl });
  await client.connect();
  try {
    t.deepEqual([...(await existingJobIds(client, [id, '999999999']))], [id]);
  } finally {
    await client.end();
  }
});

test('makeLastAttempt: the failure that follows leaves the job failed for good, listed by parley jobs failed', async (t) => {
  const id = await addJob(app.deps.db, 'internals_probe', {});
  await lockAsWorker(app, id, 'probe-worker');
  await makeLastAttempt(app.deps.db, id, 'probe-worker');
  // graphile-worker's failJobs, as it records a thrown error:
  await app.deps.db.query(sql.unsafe`
    update graphile_worker._private_jobs set last_error = 'boom', locked_by = null, locked_at = null,
      run_at = greatest(now(), run_at) + exp(least(attempts, 10)) * interval '1 second'
    where id = ${id}::bigint and locked_by = 'probe-worker'`);
  const failed = await listFailedJobs(app.deps.db, { task: 'internals_probe' });
  t.true(failed.some((j) => j.id === id && j.last_error === 'boom'));
});

test("the drains' SQL spells the TypeScript: task, job key and advisory lock class", async (t) => {
  const channelId = randomUUID();
  const conversationId = randomUUID();
  const locks = await app.deps.db.transaction(async (tx) => {
    await tx.query(sql.unsafe`select inbound_arm_drain(${channelId}::uuid), delivery_arm_drain(${conversationId}::uuid)`);
    return tx.any(sql.type(z.object({ classid: z.number(), objid: z.number() }))`
      select classid::int, objid::int from pg_locks where locktype = 'advisory' and pid = pg_backend_pid() order by classid`);
  });
  const hash = async (text: string) => app.deps.db.oneFirst(sql.type(z.object({ h: z.number() }))`select hashtext(${text}) as h`);
  t.deepEqual(locks, [
    { classid: inboundLocks.store, objid: await hash(channelId) },
    { classid: deliveryLocks.store, objid: await hash(conversationId) },
  ]);
  const jobs = await jobsByKey(
    jobCatalogue.process_inbound.jobKey!({ channel_id: channelId }, undefined),
    jobCatalogue.deliver_message.jobKey!({ conversation_id: conversationId }, undefined),
  );
  t.deepEqual(jobs, [
    { task: 'deliver_message', key: `deliver:${conversationId}`, payload: { conversation_id: conversationId } },
    { task: 'process_inbound', key: `inbound:${channelId}`, payload: { channel_id: channelId } },
  ]);
  t.true(jobCatalogue.deliver_message.payload.safeParse(jobs[0]!.payload).success);
  t.true(jobCatalogue.process_inbound.payload.safeParse(jobs[1]!.payload).success);
});

test('domain_events_record spells the TypeScript: handle_events, its payload, queue and attempts; unhandled types and uninterested subscribers arm nothing', async (t) => {
  const ws = await createWorkspace(app);
  const [conversation] = await app.sql(`insert into conversations (business_id, channel_type) values ($1, 'webchat') returning id`, [ws.businessId]);
  // CSAT on: its subscriber has something to do with a resolution (core/events/interests.ts).
  await app.sql(`insert into csat_settings (business_id, enabled, question) values ($1, true, 'How did we do?')`, [ws.businessId]);
  const events: DomainEventInput[] = [
    { type: 'conversation.resolved', businessId: ws.businessId, conversationId: conversation.id, data: {} },
    { type: 'conversation.snoozed', businessId: ws.businessId, conversationId: conversation.id, data: { until: new Date().toISOString() } },
    settingsChanged(ws.businessId, 'csat', { enabled: false }, { enabled: true }),
  ];
  await app.deps.db.transaction((tx) => recordEvents(tx, events));
  const rows = await app.sql(`select id, type, conversation_id, handled_at is not null as handled from domain_events where business_id = $1 order by seq`, [
    ws.businessId,
  ]);
  t.deepEqual(
    rows.map((r) => [r.type, r.handled]),
    [
      ['conversation.resolved', false],
      // No subscriber handles it: recorded for the history, handled at once.
      ['conversation.snoozed', true],
      ['settings.changed', false],
    ],
  );
  const jobs = await app.sql(
    `select k.identifier as task, j.payload, q.queue_name, j.max_attempts from graphile_worker._private_jobs j
     join graphile_worker._private_tasks k on k.id = j.task_id left join graphile_worker._private_job_queues q on q.id = j.job_queue_id
     where k.identifier = 'handle_events' order by j.id`,
  );
  // One job for the conversation's events, one for the business's.
  t.deepEqual(
    jobs.map((j) => j.payload.event_ids),
    [[rows[0].id], [rows[2].id]],
  );
  for (const j of jobs) {
    t.true(jobCatalogue.handle_events.payload.safeParse(j.payload).success);
    t.regex(j.queue_name, /^events:\d+$/);
    t.is(j.max_attempts, jobCatalogue.handle_events.maxAttempts);
  }
  // Another business, CSAT and auto-assignment off: no subscriber of a resolution has anything to do there.
  const quiet = await createWorkspace(app);
  const [other] = await app.sql(`insert into conversations (business_id, channel_type) values ($1, 'webchat') returning id`, [quiet.businessId]);
  await app.deps.db.transaction((tx) =>
    recordEvents(tx, [{ type: 'conversation.resolved', businessId: quiet.businessId, conversationId: other.id, data: {} }]),
  );
  t.deepEqual(await app.sql(`select handled_at is not null as handled from domain_events where business_id = $1`, [quiet.businessId]), [{ handled: true }]);
  t.is((await app.sql(`select count(*)::int as n from graphile_worker.jobs where task_identifier = 'handle_events'`))[0].n, jobs.length);
});
