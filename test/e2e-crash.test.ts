/**
 * Nothing accepted is lost: a worker process killed with SIGKILL in the middle of a burst of
 * 200 agent replies, then restarted, delivers every reply (delivery is at least once: a reply
 * whose send finished just before the kill may go out twice, never more than the jobs that
 * were running). And a reply whose job failed for good is brought back by `parley jobs retry`
 * and delivered once the platform recovers.
 */
import test from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { inboxOf, type Inbox } from './helpers/inbox.ts';
import { query, startTestWorker, waitFor } from './helpers/worker.ts';
import { startFakeMeta, whatsappTextPayload, type FakeMeta } from './fakes/meta.ts';

const root = path.resolve(import.meta.dirname, '..');
const CONCURRENCY = 5;

let app: TestApp;
let fake: FakeMeta;
let owner: Workspace;
let inbox: Inbox;
let conversationId: string;

function parley(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [path.join(root, 'bin', 'parley.ts'), ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: app.databaseUrl,
      // The same data directory as the API, so the worker reads the same generated encryption key.
      DATA_DIR: app.deps.config.dataDir,
      JWT_SECRET: randomBytes(32).toString('hex'),
      META_GRAPH_URL: fake.graphUrl,
      LOG_LEVEL: 'silent',
      ...env,
    },
  });
}

function run(args: string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = parley(args);
    let stdout = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

const startWorkerProcess = () => parley(['worker'], { WORKER_TASKS: 'deliver_message', WORKER_CONCURRENCY: String(CONCURRENCY), WORKER_LIVENESS_TIMEOUT: '2' });

async function stopProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

const reply = async (text: string): Promise<string> => (await inbox.reply(conversationId, text)).id;

test.before(async () => {
  fake = await startFakeMeta();
  fake.addWhatsAppNumber('1066', 'wa-token');
  app = await startTestApp({ env: { META_GRAPH_URL: fake.graphUrl } });
  owner = await createWorkspace(app, { plan: 'Pro' });
  inbox = inboxOf(app, owner.token);
  const channel = await app.request('POST', '/api/v1/channels/', {
    token: owner.token,
    body: { type: 'whatsapp', config: { phone_number_id: '1066', access_token: 'wa-token' } },
  });
  if (channel.status !== 200) throw new Error(channel.text);
  // A customer writes in; an in-process worker turns it into a conversation.
  const inbound = await fetch(`${app.url}/api/v1/webhooks/whatsapp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(whatsappTextPayload({ phoneNumberId: '1066', from: '15550001111', id: 'wamid.first', text: 'Hello?' })),
  });
  if (inbound.status !== 200) throw new Error(await inbound.text());
  const worker = await startTestWorker(app, { only: ['process_inbound', 'register_channel'] });
  const [conversation] = await waitFor(async () => {
    const rows = await query(app, 'select id from conversations where channel_type = $1', ['whatsapp']);
    return rows.length ? rows : null;
  });
  await worker.stop();
  conversationId = conversation.id;
});

test.after.always(async () => {
  await app?.close();
  await fake?.close();
});

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
  const lockedAtKill = await query(app, `select count(*)::int as n from graphile_worker.jobs where task_identifier = 'deliver_message' and locked_at is not null`);
  t.log(`sent at kill: ${sentAtKill}; jobs left locked by the dead worker: ${lockedAtKill[0].n}`);

  const second = startWorkerProcess();
  try {
    await waitFor(async () => {
      const [row] = await query(app, `select count(*)::int as n from messages where id = any($1) and delivery_status = 'sent' and external_id is not null`, [ids]);
      return row.n === 200;
    }, 90_000, 'all 200 replies sent');
  } finally {
    await stopProcess(second, 'SIGTERM');
  }

  const received = fake.whatsappSent.slice(sentBefore).filter((m) => m.to === '15550001111').map((m) => m.body.text?.body as string);
  for (const text of texts) t.true(received.includes(text), `"${text}" reached the customer`);
  const duplicates = received.length - new Set(received).size;
  t.true(duplicates <= CONCURRENCY, `at most the jobs in flight at the kill went out twice (${duplicates})`);
  const left = await query(app, `select count(*)::int as n from graphile_worker.jobs where task_identifier = 'deliver_message'`);
  t.is(left[0].n, 0, 'no delivery job left behind');
});

test.serial('parley jobs retry brings back a reply whose job failed for good, and it is delivered once the platform recovers', async (t) => {
  t.timeout(60_000);
  fake.setLatency(0);
  fake.failNext(1, { status: 503 });
  const id = await reply('Sorry for the wait');
  // One attempt only, so the first platform failure fails the job for good.
  await query(app, `update graphile_worker._private_jobs set max_attempts = 1 where key = $1`, [`message:${id}`]);
  const worker = await startTestWorker(app, { only: ['deliver_message'] });
  try {
    const failed = await waitFor(async () => {
      const [row] = await query(app, 'select delivery_status, error from messages where id = $1', [id]);
      return row.delivery_status === 'failed' ? row : null;
    });
    t.truthy(failed.error, 'the platform\'s reason is visible on the message');
    const [job] = await query(app, `select id, attempts, max_attempts from graphile_worker.jobs where key = $1`, [`message:${id}`]);
    t.is(job.attempts, job.max_attempts, 'the job is permanently failed');

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
