/**
 * A `parley worker` runs as many jobs at once as WORKER_CONCURRENCY says, drains included: each
 * drain holds a database connection for its whole run, so the process's pool is sized from the
 * concurrency (core/boot.ts poolSizeFor). With the fixed pool of 10 it had before, the drains
 * beyond ten waited for a connection and failed after DB_TIMEOUT, whatever the setting.
 */
import test from 'ava';
import type { ChildProcess } from 'node:child_process';
import { poolSizeFor } from '../core/boot.ts';
import { spawnParley, stopProcess } from './helpers/processes.ts';
import { customerTexts, whatsappConversation, type WhatsAppConversation } from './helpers/whatsapp-conversation.ts';
import { query, startTestWorker, waitFor } from './helpers/worker.ts';

const CONVERSATIONS = 15;

let setup: WhatsAppConversation | undefined;
test.after.always(() => setup?.close());

test('the pool: a worker gets one connection per job it runs at once and five more; web ten; one process serving both, the two', (t) => {
  t.is(poolSizeFor({ web: false, worker: true }, { WORKER_CONCURRENCY: 50 }), 55);
  t.is(poolSizeFor({ web: false, worker: true }, { WORKER_CONCURRENCY: 2 }), 10, 'never below a web process');
  t.is(poolSizeFor({ web: true, worker: false }, { WORKER_CONCURRENCY: 50 }), 10);
  t.is(poolSizeFor({ web: true, worker: true }, { WORKER_CONCURRENCY: 5 }), 20);
});

test(`a worker at WORKER_CONCURRENCY=${CONVERSATIONS} has ${CONVERSATIONS} conversations' replies in flight at once`, async (t) => {
  t.timeout(90_000);
  setup = await whatsappConversation();
  const { app, fake, inbox } = setup;
  for (let i = 1; i < CONVERSATIONS; i++) {
    await customerTexts(app, { phoneNumberId: '1066', from: `1555000${String(2000 + i)}`, id: `wamid.pool${i}`, text: 'Hello?' });
  }
  const inbound = await startTestWorker(app, { only: ['process_inbound'] });
  const conversations = await waitFor(async () => {
    const rows = await query(app, `select id from conversations where channel_type = 'whatsapp'`);
    return rows.length === CONVERSATIONS ? rows : null;
  });
  await inbound.stop();
  for (const { id } of conversations) await inbox.reply(id, 'On it');

  // The platform holds every send until the test lets go, counting those in flight.
  let inFlight = 0;
  let most = 0;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  fake.setLatency(() => {
    inFlight += 1;
    most = Math.max(most, inFlight);
    return held.then(() => {
      inFlight -= 1;
    });
  });
  const worker: ChildProcess = spawnParley(app, ['worker'], {
    META_GRAPH_URL: fake.graphUrl,
    WORKER_TASKS: 'deliver_message',
    WORKER_CONCURRENCY: String(CONVERSATIONS),
  });
  try {
    await waitFor(async () => most === CONVERSATIONS, 30_000, `${CONVERSATIONS} sends in flight (most so far: ${most})`).catch(() => undefined);
    t.is(most, CONVERSATIONS, 'every conversation has its send in flight at once');
    release();
    await waitFor(
      async () => {
        const [row] = await query(app, `select count(*)::int as n from messages where sender_type = 'agent' and delivery_status = 'sent'`);
        return row.n === CONVERSATIONS;
      },
      30_000,
      'every reply sent',
    );
  } finally {
    release();
    await stopProcess(worker, 'SIGTERM');
  }
});
