/**
 * Probe: signed WhatsApp webhooks offered at a fixed rate (open loop) to a real `parley web` (or
 * `start`), each a new message on one channel, and in the same run the same load against a bare
 * `node:http` server answering 200. Prints achieved rate, p50 and p99 of both.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/probe-webhook.ts [web|start] [rate=500] [seconds=8]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { migrate } from '../core/migrate.ts';
import { signedMetaWebhook, whatsappTextPayload } from '../test/fakes/meta.ts';
import { runLoad, type LoadRequest } from './probe-load.ts';

const mode = process.argv[2] ?? 'web';
const rate = Number(process.argv[3] ?? 500);
const seconds = Number(process.argv[4] ?? 8);
const root = path.resolve(import.meta.dirname, '..');
const adminUrl = process.env.DATABASE_URL;
if (!adminUrl) throw new Error('DATABASE_URL is required');

async function api(base: string, method: string, p: string, body?: unknown, token?: string): Promise<any> {
  const res = await fetch(base + p, { method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: body ? JSON.stringify(body) : undefined });
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
  return res.json();
}

const dbName = `parley_probe_${randomBytes(3).toString('hex')}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`create database "${dbName}"`);
const dbUrl = new URL(adminUrl);
dbUrl.pathname = `/${dbName}`;
await migrate(dbUrl.toString());
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'parley-probe-'));
let parley: ChildProcess | undefined;
try {
  const port = 20000 + Math.floor(Math.random() * 20000);
  parley = spawn(process.execPath, ['--max-semi-space-size=8', path.join(root, 'bin/parley.ts'), mode], { // as the Procfile starts it
    env: { ...process.env, DATABASE_URL: dbUrl.toString(), PORT: String(port), DATA_DIR: dataDir, BCRYPT_ROUNDS: '4', PUBLIC_URL: 'https://parley.example' },
    stdio: 'ignore',
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (await fetch(`${base}/healthz`).then((r) => r.ok, () => false)) break;
    if (i > 300) throw new Error('parley never answered');
    await new Promise((r) => setTimeout(r, 100));
  }
  const { access_token: token } = await api(base, 'POST', '/api/v1/auth/register', { email: `p-${randomBytes(4).toString('hex')}@example.com`, full_name: 'Probe', password: 'password123' });
  const business = await api(base, 'POST', '/api/v1/business', { name: 'Probe Co' }, token);
  const db = new pg.Client({ connectionString: dbUrl.toString() });
  await db.connect();
  await db.query(`update businesses set plan = 'Pro' where id = $1`, [business.id]);
  await db.end();
  const phoneNumberId = '106540352242922';
  const appSecret = 'probe-app-secret';
  await api(base, 'POST', '/api/v1/channels/', { type: 'whatsapp', config: { phone_number_id: phoneNumberId, access_token: 'EAAG-token', app_secret: appSecret } }, token);

  const requests: LoadRequest[] = [];
  for (let i = 0; i < rate * (seconds + 3); i++) {
    const payload = whatsappTextPayload({ phoneNumberId, from: String(15550000000 + (i % 50)), id: `wamid.W${i}`, text: `message ${i}` });
    const signed = signedMetaWebhook(payload, appSecret, `https://parley.example/api/v1/webhooks/whatsapp`);
    requests.push({ url: `${base}/api/v1/webhooks/whatsapp`, method: 'POST', headers: signed.headers as Record<string, string>, body: signed.rawBody.toString('utf8') });
  }
  const warm = requests.splice(0, rate * 2);
  await runLoad(warm, 200, 2, rate);
  const acks = await runLoad(requests, 200, seconds, rate);

  const bare = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":1}'));
  });
  await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
  const bareUrl = `http://127.0.0.1:${(bare.address() as { port: number }).port}/`;
  const bareLoad = await runLoad(requests.map((r) => ({ ...r, url: bareUrl })), 200, seconds, rate);
  bare.close();
  console.log(JSON.stringify({ mode, offered: rate, parley: acks, bare_node_http: bareLoad, p50_ratio: +(acks.p50_ms / bareLoad.p50_ms).toFixed(1) }));
} finally {
  if (parley && parley.exitCode === null) {
    const exited = new Promise((r) => parley!.once('exit', r));
    parley.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    parley.kill('SIGKILL');
  }
  await admin.query(`drop database if exists "${dbName}" with (force)`);
  await admin.end();
  rmSync(dataDir, { recursive: true, force: true });
}
