/**
 * Probe: agent replies (POST /api/v1/conversations/{id}/messages) against a real `parley web`
 * (or `start`) process, 20 connections, over one business (5 conversations) then 20, and in the same run the baseline: Koa + one `pg` INSERT
 * on the same database. Prints throughput, latency, the server's peak RSS and the ratios.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/probe-reply.ts [web|start] [seconds=10]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { migrate } from '../core/migrate.ts';
import { runLoad, type LoadResult } from './probe-load.ts';

const mode = process.argv[2] ?? 'web';
const seconds = Number(process.argv[3] ?? 10);
const connections = 20;
const root = path.resolve(import.meta.dirname, '..');
const adminUrl = process.env.DATABASE_URL;
if (!adminUrl) throw new Error('DATABASE_URL is required');

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

async function until(url: string) {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} never answered`);
}

const peakRss = (child: ChildProcess) => Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024);

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
const children: ChildProcess[] = [];
try {
  const port = await freePort();
  const parley = spawn(process.execPath, ['--max-semi-space-size=8', path.join(root, 'bin/parley.ts'), mode], { // as the Procfile starts it
    env: { ...process.env, DATABASE_URL: dbUrl.toString(), PORT: String(port), DATA_DIR: dataDir, BCRYPT_ROUNDS: '4' },
    stdio: 'ignore',
  });
  children.push(parley);
  const base = `http://127.0.0.1:${port}`;
  await until(`${base}/healthz`);
  const db = new pg.Client({ connectionString: dbUrl.toString() });
  await db.connect();
  // Like the bench's reply row: 20 businesses (Pro) of 5 conversations each.
  const businesses: { token: string; conversations: string[] }[] = [];
  for (let b = 0; b < 20; b++) {
    const email = `probe-${randomBytes(4).toString('hex')}@example.com`;
    const { access_token: token } = await api(base, 'POST', '/api/v1/auth/register', { email, full_name: 'Probe', password: 'password123' });
    const business = await api(base, 'POST', '/api/v1/business', { name: 'Probe Co' }, token);
    await db.query(`update businesses set plan = 'Pro' where id = $1`, [business.id]);
    const conversations = [];
    for (let c = 0; c < 5; c++) conversations.push((await api(base, 'POST', '/api/v1/conversations/', { business_id: business.id }, token)).id);
    businesses.push({ token, conversations });
  }
  await db.end();
  const replies = (list: typeof businesses) =>
    list.flatMap(({ token, conversations }) =>
      conversations.map((id) => ({
        url: `${base}/api/v1/conversations/${id}/messages`,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ content: 'Thanks, looking into it' }),
      })),
    );
  const reply = replies(businesses.slice(0, 1));
  await runLoad(reply, connections, 2); // warm-up
  const one: LoadResult = await runLoad(reply, connections, seconds);
  const many: LoadResult = await runLoad(replies(businesses), connections, seconds);
  const parleyRss = peakRss(parley);
  parley.kill('SIGTERM');

  const basePort = await freePort();
  const baseline = spawn(process.execPath, [path.join(root, 'bench/probe-koa-insert.ts')], {
    env: { ...process.env, DATABASE_URL: dbUrl.toString(), PORT: String(basePort) },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  children.push(baseline);
  await new Promise((r) => baseline.once('message', r));
  const insert = { url: `http://127.0.0.1:${basePort}/`, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' };
  await runLoad(insert, connections, 2);
  const koa: LoadResult = await runLoad(insert, connections, seconds);
  const koaRss = peakRss(baseline);
  console.log(JSON.stringify({
    mode,
    one_business: one,
    twenty_businesses: many,
    parley_peak_rss_mib: parleyRss,
    koa_insert: koa,
    koa_peak_rss_mib: koaRss,
    ratio_one: +(one.per_second / koa.per_second).toFixed(2),
    ratio_twenty: +(many.per_second / koa.per_second).toFixed(2),
  }));
} finally {
  for (const child of children) child.kill('SIGKILL');
  await new Promise((r) => setTimeout(r, 300));
  await admin.query(`drop database if exists "${dbName}" with (force)`);
  await admin.end();
  rmSync(dataDir, { recursive: true, force: true });
}
