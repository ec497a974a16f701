/**
 * Nothing accepted is lost: a worker process killed with SIGKILL in the middle of a burst of
 * 200 agent replies to one customer, then restarted, delivers every reply in order (delivery is
 * at least once: the reply whose send finished just before the kill may go out twice). And a
 * reply that failed for good is listed by `parley jobs failed`, brought back by `parley jobs
 * retry` and delivered once the platform recovers.
 */
import test from 'ava';
import type { TestApp } from './helpers/app.ts';
import type { Inbox } from './helpers/inbox.ts';
import { query, startTestWorker, waitFor } from './helpers/worker.ts';
import { runParley, spawnParley, stopProcess } from './helpers/processes.ts';
import { whatsappConversation, type WhatsAppConversation } from './helpers/whatsapp-conversation.ts';
import type { FakeMeta } from './fakes/meta.ts';
import { MAX_DELIVERY_ATTEMPTS } from '../core/commands/delivery-drain.ts';

const CONCURRENCY = 5;

let setup: WhatsAppConversation;
let app: TestApp;
let fake: FakeMeta;
let inbox: Inbox;
let conversationId: string;

const startWorkerProcess = () =>
  spawnParley(app, ['worker'], {
    META_GRAPH_URL: fake.graphUrl,
    WORKER_TASKS: 'deliver_message',
    WORKER_CONCURRENCY: String(CONCURRENCY),
    WORKER_LIVENESS_TIMEOUT: '2',
  });
const run = (args: string[]) => runParley(app, args, { META_GRAPH_URL: fake.graphUrl });

const reply = async (text: string): Promise<string> => (await inbox.reply(conversationId, text)).id;

test.before(async () => {
  setup = await whatsappConversation();
  ({ app, fake, inbox, conversationId } = setup);
});

test.after.always(() => setup?.close());

test.serial('a worker killed with SIGKILL mid-burst loses no reply: the restarted worker delivers all 200', async (t) => {
  t.timeout(120_000);
  fake.setLatency(25);
  const texts = Array.from({ length: 200 }, (_, i) => `Reply number ${i + 1}`);
  const ids: string[] = [];
  for (const text of texts) ids.push(await reply(text));
  const sentBefore = fake.whatsappSent.length;

  const first = startWorkerProcess();
  await waitFor(async () => fake.whatsappSent.length - sentBefore >= 40, 60_000, '40 replies sent');
  await stopProcess(first, 'SIGKILL');
  const sentAtKill = fake.whatsappSent.length - sentBefore;
  t.true(sentAtKill < 200, `the kill landed mid-burst (${sentAtKill} of 200 sent)`);
  const lockedAtKill = await query(
    app,
    `select count(*)::int as n from graphile_worker.jobs where task_identifier = 'deliver_message' and locked_at is not null`,
  );
  t.log(`sent at kill: ${sentAtKill}; jobs left locked by the dead worker: ${lockedAtKill[0].n}`);

  const second = startWorkerProcess();
  try {
    await waitFor(
      async () => {
        const [row] = await query(app, `select count(*)::int as n from messages where id = any($1) and delivery_status = 'sent' and external_id is not null`, [
          ids,
        ]);
        return row.n === 200;
      },
      90_000,
      'all 200 replies sent',
    );
  } finally {
    await stopProcess(second, 'SIGTERM');
  }

  const received = fake.whatsappSent
    .slice(sentBefore)
    .filter((m) => m.to === '15550001111')
    .map((m) => m.body.text?.body as string);
  t.deepEqual([...new Set(received)], texts, 'every reply reached the customer, in the order it was written');
  const duplicates = received.length - new Set(received).size;
  t.true(duplicates <= 1, `at most the reply in flight at the kill went out twice (${duplicates})`);
  const left = await query(app, `select count(*)::int as n from graphile_worker.jobs where task_identifier = 'deliver_message'`);
  t.is(left[0].n, 0, 'no delivery job left behind');
});

test.serial('parley jobs retry brings back a reply that failed for good, and it is delivered once the platform recovers', async (t) => {
  t.timeout(60_000);
  fake.setLatency(0);
  fake.failNext(1, { status: 503 });
  const id = await reply('Sorry for the wait');
  // Its last attempt, so the first platform failure fails it for good.
  await query(app, `update messages set delivery_attempts = $2 - 1 where id = $1`, [id, MAX_DELIVERY_ATTEMPTS]);
  const worker = await startTestWorker(app, { only: ['deliver_message'] });
  try {
    const failed = await waitFor(async () => {
      const [row] = await query(app, 'select delivery_status, error from messages where id = $1', [id]);
      return row.delivery_status === 'failed' ? row : null;
    });
    t.truthy(failed.error, "the platform's reason is visible on the message");
    const [job] = await query(app, `select id, attempts, max_attempts, last_error from graphile_worker.jobs where key = $1`, [`message:${id}`]);
    t.is(job.attempts, job.max_attempts, 'a permanently failed job stands for the reply');
    t.regex(job.last_error, /failed after 25 attempts/);

    const listed = await run(['jobs', 'failed']);
    t.is(listed.code, 0);
    t.regex(listed.stdout, new RegExp(`\\b${job.id}\\b`));
    t.regex(listed.stdout, /deliver_message/);

    const retried = await run(['jobs', 'retry', String(job.id)]);
    t.is(retried.code, 0, retried.stdout);
    const sent = await waitFor(async () => {
      const [row] = await query(app, 'select delivery_status, external_id, error from messages where id = $1', [id]);
      return row.delivery_status === 'sent' ? row : null;
    });
    t.truthy(sent.external_id);
    t.is(sent.error, null);
    t.is(fake.whatsappSent.filter((m) => m.body.text?.body === 'Sorry for the wait').length, 1, 'delivered exactly once');
  } finally {
    await worker.stop();
  }
});
