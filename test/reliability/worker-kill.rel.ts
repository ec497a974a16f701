/**
 * A worker process killed with SIGKILL during a burst of 1,000 agent replies, then started
 * again: every reply reaches the customer, in the order the replies were stored (a lost or
 * overtaken reply fails the test). Delivery is at least
 * once: a reply whose send reached the platform just before the kill, but whose result was
 * not yet written, is sent again by the next worker. So duplicates at the fake platform are
 * counted and reported, and may not exceed the jobs that were running at the kill.
 */
import test from 'ava';
import { query, waitFor } from '../helpers/worker.ts';
import { spawnParley, stopProcess } from '../helpers/processes.ts';
import { whatsappConversation, type WhatsAppConversation } from '../helpers/whatsapp-conversation.ts';

const REPLIES = 1000;
const CONCURRENCY = 5;

let setup: WhatsAppConversation;
test.before(async () => {
  setup = await whatsappConversation();
});
test.after.always(() => setup?.close());

const startWorkerProcess = () =>
  spawnParley(setup.app, ['worker'], {
    META_GRAPH_URL: setup.fake.graphUrl,
    WORKER_TASKS: 'deliver_message',
    WORKER_CONCURRENCY: String(CONCURRENCY),
    WORKER_LIVENESS_TIMEOUT: '2',
  });

test('SIGKILL of the worker mid-burst of 1,000 replies: none lost after the restart; duplicates counted', async (t) => {
  const { app, fake, inbox, conversationId, customerPhone } = setup;
  fake.setLatency(10);
  const texts = Array.from({ length: REPLIES }, (_, i) => `Burst reply ${i + 1}`);
  const ids: string[] = [];
  for (let i = 0; i < texts.length; i += 20) {
    ids.push(...(await Promise.all(texts.slice(i, i + 20).map(async (text) => (await inbox.reply(conversationId, text)).id))));
  }
  const sentBefore = fake.whatsappSent.length;

  const first = startWorkerProcess();
  await waitFor(async () => fake.whatsappSent.length - sentBefore >= 300, 120_000, '300 replies sent');
  await stopProcess(first, 'SIGKILL');
  const sentAtKill = fake.whatsappSent.length - sentBefore;
  // The dead worker's jobs keep its lock until liveness releases them: these were in flight
  // (one conversation: its one drain).
  const [{ n: inFlight }] = await query(
    app,
    `select count(*)::int as n from graphile_worker.jobs where task_identifier = 'deliver_message' and locked_at is not null`,
  );
  t.true(sentAtKill < REPLIES, `the kill landed mid-burst (${sentAtKill} of ${REPLIES} sent)`);

  const second = startWorkerProcess();
  try {
    await waitFor(
      async () => {
        const [row] = await query(app, `select count(*)::int as n from messages where id = any($1) and delivery_status = 'sent' and external_id is not null`, [
          ids,
        ]);
        return row.n === REPLIES;
      },
      150_000,
      `all ${REPLIES} replies sent`,
    );
  } finally {
    await stopProcess(second, 'SIGTERM');
  }

  const received = fake.whatsappSent
    .slice(sentBefore)
    .filter((m) => m.to === customerPhone)
    .map((m) => m.body.text?.body as string);
  const lost = texts.filter((text) => !received.includes(text));
  t.deepEqual(lost, [], 'no reply lost');
  const stored = await query(app, `select content from messages where id = any($1) order by created_at, id`, [ids]);
  t.deepEqual(
    [...new Set(received)],
    stored.map((m) => m.content),
    'every reply reached the customer in the order it was stored (a resent one only after its first copy)',
  );
  const duplicates = received.length - new Set(received).size;
  t.log(`sent before the kill: ${sentAtKill}; jobs in flight at the kill: ${inFlight}; duplicates at the platform: ${duplicates} of ${REPLIES}`);
  t.true(duplicates <= inFlight, `duplicates (${duplicates}) are at most the jobs in flight at the kill (${inFlight})`);
  const [{ n: left }] = await query(app, `select count(*)::int as n from graphile_worker.jobs where task_identifier = 'deliver_message'`);
  t.is(left, 0, 'no delivery job left behind');
});
