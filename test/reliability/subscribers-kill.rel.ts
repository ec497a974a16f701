/**
 * The event pipeline under a SIGKILL (issue "Events drive the desk"): 240 domain events (each
 * recorded by its own transaction, as commands do), a worker process running their subscribers
 * killed mid-way and started again. Every effect exactly once: one audit entry per settings
 * change, one webhook dispatch reference per message event, none lost, none doubled.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createWorkspace, type Workspace } from '../helpers/fixtures.ts';
import { query, waitFor } from '../helpers/worker.ts';
import { spawnParley, stopProcess } from '../helpers/processes.ts';
import { recordEvents, settingsChanged, type DomainEventInput } from '../../core/events/domain.ts';

const SETTINGS = 120;
const MESSAGES = 120;

let app: TestApp;
let ws: Workspace;
test.before(async () => {
  app = await startTestApp();
  ws = await createWorkspace(app, { plan: 'Pro' });
});
test.after.always(() => app?.close());

const startWorkerProcess = () => {
  const child = spawnParley(app, ['worker'], { WORKER_TASKS: 'handle_events', WORKER_CONCURRENCY: '5', WORKER_LIVENESS_TIMEOUT: '2', LOG_LEVEL: 'error' });
  child.stdout?.pipe(process.stderr);
  child.stderr?.pipe(process.stderr);
  return child;
};

test('SIGKILL of the worker while subscribers run: every audit entry and webhook dispatch exactly once', async (t) => {
  await app.sql(
    `insert into webhook_endpoints (business_id, url, events, secret_encrypted) values ($1, 'https://hooks.example/rel', '{message.created}', 'x')`,
    [ws.businessId],
  );
  const [conversation] = await app.sql(`insert into conversations (business_id, channel_type) values ($1, 'webchat') returning id`, [ws.businessId]);
  const events: DomainEventInput[] = [];
  for (let i = 0; i < SETTINGS; i++) events.push(settingsChanged(ws.businessId, 'csat', { n: i }, { n: i + 1 }));
  for (let i = 0; i < MESSAGES; i++)
    events.push({ type: 'message.created', businessId: ws.businessId, conversationId: conversation.id, data: { message_id: randomUUID() } });
  // Each in its own transaction (so its own handle_events job), ten at a time. Settings changes are about no
  // conversation: one queue (the business's), handled one after the other; the messages' in the conversation's.
  for (let i = 0; i < events.length; i += 10) {
    await Promise.all(events.slice(i, i + 10).map((e) => app.deps.db.transaction((tx) => recordEvents(tx, [e]))));
  }
  const audited = async () =>
    (await query(app, `select count(*)::int as n from audit_log where business_id = $1 and action = 'settings.updated'`, [ws.businessId]))[0].n;

  const first = startWorkerProcess();
  await waitFor(async () => (await audited()) >= 20, 90_000, 'some subscribers ran');
  await stopProcess(first, 'SIGKILL');
  const [{ n: handledAtKill }] = await query(app, `select count(*)::int as n from domain_events where business_id = $1 and handled_at is not null`, [
    ws.businessId,
  ]);
  t.true(handledAtKill < events.length, `the kill landed mid-way (${handledAtKill} of ${events.length} handled)`);

  const second = startWorkerProcess();
  try {
    await waitFor(
      async () => (await query(app, `select count(*)::int as n from domain_events where business_id = $1 and handled_at is null`, [ws.businessId]))[0].n === 0,
      150_000,
      'every event handled',
    );
    await waitFor(
      async () => (await query(app, `select count(*)::int as n from graphile_worker.jobs where task_identifier = 'handle_events'`))[0].n === 0,
      60_000,
      'no handle_events job left',
    );
  } finally {
    await stopProcess(second, 'SIGTERM');
  }

  const entries = await query(app, `select details->'after'->>'n' as n from audit_log where business_id = $1 and action = 'settings.updated'`, [ws.businessId]);
  t.is(entries.length, SETTINGS, 'one audit entry per settings change');
  t.is(new Set(entries.map((e) => e.n)).size, SETTINGS, 'none doubled');
  const refs = (
    await query(
      app,
      `select p.payload from graphile_worker._private_jobs p join graphile_worker._private_tasks k on k.id = p.task_id where k.identifier = 'dispatch_webhooks'`,
    )
  ).flatMap((j) => j.payload.events.map((e: { id: string }) => e.id));
  t.is(refs.length, MESSAGES, 'one webhook dispatch reference per message event');
  t.is(new Set(refs).size, MESSAGES, 'none doubled');
});
