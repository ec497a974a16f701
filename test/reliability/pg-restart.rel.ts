/**
 * PostgreSQL restarted twice under load, under a real all-in-one process (`parley start`, the
 * shape of the issue: API and workers in one process) on an embedded PostgreSQL of this test's
 * own. While it is down requests answer 503, never 500; afterwards the same process, never
 * restarted, answers again and its job runner delivers every accepted reply.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { ChildProcess } from 'node:child_process';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../core/adapters/postgres/embedded-postgres.ts';
import { migrate } from '../../core/adapters/postgres/migrate.ts';
import { closedPort } from '../helpers/ports.ts';
import { spawnParleyWith, stopProcess } from '../helpers/processes.ts';
import { waitFor } from '../helpers/worker.ts';
import { startFakeMeta, whatsappTextPayload, type FakeMeta } from '../fakes/meta.ts';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'parley-rel-pg-'));
let pgPort: number;
let database: EmbeddedDatabase;
let fake: FakeMeta;
let parley: ChildProcess;
let base: string;

const startDatabase = async () => (database = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'db'), port: pgPort }));

async function sql(text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

async function api(method: string, route: string, body?: unknown, token?: string) {
  const res = await fetch(base + route, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).catch(() => null);
  return res ? { status: res.status, body: (await res.json().catch(() => null)) as any } : { status: 0, body: null };
}

test.before(async () => {
  pgPort = await closedPort();
  await startDatabase();
  await migrate(database.url);
  fake = await startFakeMeta();
  fake.addWhatsAppNumber('1066', 'wa-token');
  const port = await closedPort();
  base = `http://127.0.0.1:${port}`;
  parley = spawnParleyWith(['start'], {
    DATABASE_URL: database.url,
    DATA_DIR: path.join(dataDir, 'app'),
    PORT: String(port),
    META_GRAPH_URL: fake.graphUrl,
    DB_TIMEOUT: '2',
    WORKER_LIVENESS_TIMEOUT: '3',
    BCRYPT_ROUNDS: '4',
  });
  await waitFor(async () => (await api('GET', '/healthz')).status === 200, 60_000, 'parley start listening');
});

test.after.always(async () => {
  if (parley) await stopProcess(parley, 'SIGKILL');
  await database?.stop();
  await fake?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('PostgreSQL restarted twice under load: 503 meanwhile, then the same process serves and delivers every accepted reply', async (t) => {
  const email = `owner-${randomBytes(4).toString('hex')}@example.com`;
  const { body: registered } = await api('POST', '/api/v1/auth/register', { email, full_name: 'Owner', password: 'password123' });
  const token = registered.access_token as string;
  const business = await api('POST', '/api/v1/business', { name: 'Restart Co' }, token);
  await sql(`update businesses set plan = 'Pro' where id = $1`, [business.body.id]);
  t.is((await api('POST', '/api/v1/channels/', { type: 'whatsapp', config: { phone_number_id: '1066', access_token: 'wa-token' } }, token)).status, 200);
  const hook = await fetch(`${base}/api/v1/webhooks/whatsapp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(whatsappTextPayload({ phoneNumberId: '1066', from: '15550001111', id: 'wamid.restart', text: 'Hi' })),
  });
  t.is(hook.status, 200);
  const [conversation] = await waitFor(
    async () => {
      const list = (await api('GET', '/api/v1/conversations/', undefined, token)).body;
      return Array.isArray(list) && list.length ? list : null;
    },
    30_000,
    'the conversation',
  );

  fake.setLatency(20);
  let sending = true;
  const accepted: string[] = [];
  const statuses = new Map<number, number>();
  let counter = 0;
  const sender = async () => {
    while (sending) {
      const text = `Through the restart ${++counter}`;
      const res = await api('POST', `/api/v1/conversations/${conversation.id}/messages`, { content: text }, token);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status === 200) accepted.push(text);
      else await new Promise((r) => setTimeout(r, 100));
    }
  };
  const senders = [sender(), sender()];
  for (let restart = 0; restart < 2; restart++) {
    await waitFor(async () => accepted.length >= 20 * (restart + 1), 60_000, 'replies accepted before the restart');
    await database.stop();
    await new Promise((r) => setTimeout(r, 1500));
    await startDatabase();
  }
  await waitFor(async () => accepted.length >= 60, 60_000, 'replies accepted after the restarts');
  sending = false;
  await Promise.all(senders);
  t.log(`answers: ${JSON.stringify(Object.fromEntries(statuses))}`);
  t.deepEqual(
    [...statuses.keys()].filter((s) => s !== 200 && s !== 503).sort(),
    [],
    'only 200 and 503 (0: connection refused never happens: the API stays up)',
  );
  t.true((statuses.get(503) ?? 0) > 0, 'the outage was seen');

  await waitFor(
    async () => {
      const delivered = new Set(fake.whatsappSent.map((m) => m.body.text?.body));
      return accepted.every((text) => delivered.has(text));
    },
    120_000,
    'every accepted reply delivered',
  );
  const [{ n }] = await sql(`select count(*)::int as n from messages where content = any($1) and delivery_status = 'sent'`, [accepted]);
  t.is(n, accepted.length, 'and marked sent');
  t.is(parley.exitCode, null, 'the same process, never restarted');
});
