/**
 * The job catalogue (core/jobs.ts): every registered task is an entry and reads the entry's
 * payload schema; enqueue() gives each job the entry's key, queue and attempts, and refuses a
 * payload that does not fit (at type-check time, and at run time should a cast get through).
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { sql } from '../core/adapters/postgres/db.ts';
import { addJob, enqueue, jobCatalogue, type JobName } from '../core/jobs.ts';
import { allTasks } from '../workers/tasks/index.ts';
import { crontab } from '../workers/crontab.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

const jobRow = z.object({
  task_identifier: z.string(),
  key: z.string().nullable(),
  queue_name: z.string().nullable(),
  max_attempts: z.number(),
  payload: z.unknown(),
});

const job = (id: string) =>
  app.deps.db.one(sql.type(jobRow)`
    select j.task_identifier, j.key, j.queue_name, j.max_attempts, p.payload
    from graphile_worker.jobs j join graphile_worker._private_jobs p on p.id = j.id
    where j.id = ${id}`);

test('every registered task is in the catalogue and parses with its schema; every entry is registered', (t) => {
  const names = Object.keys(jobCatalogue).sort();
  t.deepEqual(allTasks.map((task) => task.name).sort(), names);
  for (const task of allTasks) t.is(task.payload, jobCatalogue[task.name as JobName].payload, task.name);
  for (const item of crontab) t.true(names.includes(item.task), item.task);
});

test.serial('enqueue: the key, queue, attempts and payload come from the catalogue', async (t) => {
  const [message, channel, conversation, event] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  t.like(await job(await enqueue(app.deps.db, 'deliver_message', { message_id: message })), {
    task_identifier: 'deliver_message',
    key: `message:${message}`,
    queue_name: null,
    max_attempts: 25,
    payload: { message_id: message },
  });
  t.like(await job(await enqueue(app.deps.db, 'deliver_message', { conversation_id: conversation })), {
    key: `deliver:${conversation}`,
    payload: { conversation_id: conversation },
  });
  t.like(await job(await enqueue(app.deps.db, 'poll_channel', { channel_id: channel })), {
    key: `poll:${channel}`,
    queue_name: `poll:${channel}`,
    max_attempts: 1,
  });
  t.like(await job(await enqueue(app.deps.db, 'ai_reply', { message_id: message }, { conversationId: conversation })), {
    key: `ai:${conversation}`,
    max_attempts: 3,
  });
  t.like(await job(await enqueue(app.deps.db, 'process_inbound', { channel_id: channel })), {
    key: `inbound:${channel}`,
    queue_name: null,
    payload: { channel_id: channel },
  });
  t.like(await job(await enqueue(app.deps.db, 'process_inbound', { event_id: event })), { key: `inbound-event:${event}`, payload: { event_id: event } });
  t.like(await job(await enqueue(app.deps.db, 'index_article', { article_id: 7 })), { key: 'article:7', max_attempts: 8 });
});

test.serial('enqueue refuses a payload its task would drop, and adds no job', async (t) => {
  const count = () =>
    app.deps.db.oneFirst(
      sql.type(z.object({ n: z.number() }))`select count(*)::int as n from graphile_worker.jobs where task_identifier in ('deliver_message', 'send_email')`,
    );
  const before = await count();
  await t.throwsAsync(enqueue(app.deps.db, 'deliver_message', { message_id: 'not-a-uuid' }));
  // @ts-expect-error: deliver_message takes {conversation_id} or {message_id}, not an article id
  await t.throwsAsync(enqueue(app.deps.db, 'deliver_message', { article_id: 1 }));
  // @ts-expect-error: send_email needs a subject
  await t.throwsAsync(enqueue(app.deps.db, 'send_email', { to: 'a@example.com', text: 'hi' }));
  // @ts-expect-error: a catalogue task is never added untyped
  void (() => addJob(app.deps.db, 'deliver_message', {}));
  t.is(await count(), before);
});
