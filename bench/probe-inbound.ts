/**
 * Probe: a burst of signed WhatsApp webhooks on ONE channel, across many customers (20
 * connections), stored while no worker runs; then the real worker, as `npm start` runs it
 * (default concurrency, poll interval 1 s), drains them. Prints the acknowledgement latency,
 * the drain's rate, and whether each customer's messages kept their order.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/probe-inbound.ts [messages=1000] [customers=50]
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate } from '../core/migrate.ts';
import { startWorker } from '../workers/main.ts';
import { startTestApp } from '../test/helpers/app.ts';
import { createWorkspace } from '../test/helpers/fixtures.ts';
import { postMetaWebhook, whatsappTextPayload } from '../test/fakes/meta.ts';

const total = Number(process.argv[2] ?? 1000);
const customers = Number(process.argv[3] ?? 50);
const connections = 20;
const adminUrl = process.env.DATABASE_URL;
if (!adminUrl) throw new Error('DATABASE_URL is required');

const template = `parley_probe_${randomBytes(3).toString('hex')}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`create database "${template}"`);
const templateUrl = new URL(adminUrl);
templateUrl.pathname = `/${template}`;
await migrate(templateUrl.toString());
process.env.PARLEY_TEST_ADMIN_URL = adminUrl;
process.env.PARLEY_TEST_TEMPLATE = template;

const app = await startTestApp();
try {
  const owner = await createWorkspace(app, { plan: 'Pro' });
  const phoneNumberId = '1065403522' + randomBytes(2).readUInt16BE();
  const appSecret = 'probe-secret';
  const res = await app.request('POST', '/api/v1/channels/', { token: owner.token, body: { type: 'whatsapp', config: { phone_number_id: phoneNumberId, access_token: 'tok', app_secret: appSecret } } });
  if (res.status !== 200) throw new Error(`channel: ${res.status} ${res.text}`);
  const channelId = res.body.id as string;
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      for (let i = next++; i < total; i = next++) {
        const from = String(15550000000 + (i % customers));
        const payload = whatsappTextPayload({ phoneNumberId, from, id: `wamid.P${i}`, text: `c${i % customers} #${Math.floor(i / customers)}` });
        const t0 = performance.now();
        const r = await postMetaWebhook(`${app.url}/api/v1/webhooks/whatsapp`, payload, appSecret);
        await r.arrayBuffer();
        if (r.status !== 200) throw new Error(`webhook ${r.status}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const acked = performance.now() - started;
  const worker = await startWorker(app.deps, { connectionString: app.databaseUrl, only: ['process_inbound'] });
  const drainStarted = performance.now();
  for (;;) {
    const [{ n }] = await app.sql(`select count(*)::int as n from messages where channel_id = $1`, [channelId]);
    if (n >= total) break;
    if (performance.now() - drainStarted > 600_000) throw new Error(`only ${n} after 600 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const drained = performance.now() - drainStarted;
  await worker.stop();

  // Each customer's messages, as the inbox orders them, must be #0, #1, #2, …
  const rows = await app.sql(`select content from messages where channel_id = $1 order by conversation_id, created_at, id`, [channelId]);
  const seen = new Map<string, number>();
  let outOfOrder = 0;
  for (const { content } of rows) {
    const [who, seq] = content.split(' #');
    if (Number(seq) !== (seen.get(who) ?? -1) + 1) outOfOrder++;
    seen.set(who, Number(seq));
  }
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))].toFixed(1);
  console.log(JSON.stringify({
    messages: total,
    customers,
    ack_req_per_s: Math.round(total / (acked / 1000)),
    drain_s: +(drained / 1000).toFixed(2),
    drain_msg_per_s: Math.round(total / (drained / 1000)),
    ack_p50_ms: pct(50),
    ack_p99_ms: pct(99),
    out_of_order: outOfOrder,
  }));
} finally {
  await app.close();
  await admin.query(`drop database if exists "${template}" with (force)`);
  await admin.end();
}
