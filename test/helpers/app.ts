/**
 * A real Parley API on 127.0.0.1 with its own fresh database, for one test file:
 *
 *   const app = await startTestApp({ env: { GOOGLE_CLIENT_ID: 'x' } });
 *   test.after.always(() => app.close());
 *   const res = await app.request('POST', '/api/v1/auth/register', { body: {...} });
 *   const [row] = await app.sql('select plan from businesses where id = $1', [id]);
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../core/config.ts';
import { createDb } from '../../core/adapters/postgres/db.ts';
import { createLocalEventBus, type ParleyEvent } from '../../core/events/bus.ts';
import { createRedisEventBus } from '../../core/adapters/redis-events.ts';
import { createLogger } from '../../core/adapters/logger.ts';
import type { Deps } from '../../core/deps.ts';
import { startWebServer, type WebServer } from '../../api/server.ts';
import { createTestDatabase } from './db.ts';

export type TestResponse<T = any> = { status: number; body: T; headers: Headers; text: string };

export type RequestOptions = {
  token?: string;
  body?: unknown;
  /** Sent as-is (e.g. malformed JSON); sets no content type unless `headers` does. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
};

export type TestApp = {
  url: string;
  deps: Deps;
  databaseUrl: string;
  /** Every event published through the app's event bus, in order. */
  events: ParleyEvent[];
  /** The HTTP server (with `realtime.io`, the Socket.IO server). */
  web: WebServer;
  request: <T = any>(method: string, path: string, options?: RequestOptions) => Promise<TestResponse<T>>;
  /**
   * One SQL statement against the app's database, with node-postgres's own parsing (timestamptz
   * as Date, int8 as string), for setting up and checking rows behind the API's back.
   */
  sql: <R extends pg.QueryResultRow = any>(text: string, values?: unknown[]) => Promise<R[]>;
  close: () => Promise<void>;
};

/** Redis for tests that need it (`TEST_REDIS_URL`, default 127.0.0.1:6379). */
export const testRedisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export type TestAppOptions = {
  env?: Record<string, string>;
  /**
   * Run events through Redis (REDIS_URL = testRedisUrl, the Redis bus and the Socket.IO Redis
   * adapter) under this channel prefix; use one prefix per test file so files don't cross-talk.
   */
  redis?: { key: string };
};

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'parley-test-'));
  const config = loadConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    JWT_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    BCRYPT_ROUNDS: '4',
    // The fake platforms and mail servers run on 127.0.0.1; tests of the host checks turn it off.
    ALLOW_PRIVATE_HOSTS: 'true',
    // Every test request comes from 127.0.0.1: the per-address login budget has its own test.
    LOGIN_MAX_FAILURES_PER_ADDRESS: '100000',
    // Workspaces start on Free as where plans are sold, so plan limits are tested from the bottom;
    // the server without billing (default Pro) has its own test (plan-without-billing.test.ts).
    PLAN_WITHOUT_BILLING: 'Free',
    ...(options.redis ? { REDIS_URL: testRedisUrl } : {}),
    ...options.env,
  });
  const logger = createLogger(config.LOG_LEVEL);
  const db = await createDb(database.url, { maxPoolSize: 5 });
  const bus = options.redis && config.REDIS_URL ? createRedisEventBus({ url: config.REDIS_URL, key: options.redis.key, logger }) : createLocalEventBus();
  const events: ParleyEvent[] = [];
  bus.subscribe((e) => events.push(e));
  const deps: Deps = { config, db, events: bus, logger };
  const web = await startWebServer(deps, 0, { realtime: { redisKey: options.redis?.key } });
  const url = `http://127.0.0.1:${web.port}`;
  (config as { publicUrl: string }).publicUrl = options.env?.PUBLIC_URL ?? url;

  const request = async <T>(method: string, route: string, o: RequestOptions = {}): Promise<TestResponse<T>> => {
    const target = new URL(route, url);
    for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined) target.searchParams.set(k, String(v));
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    let body: string | Buffer | undefined;
    if (o.rawBody !== undefined) body = o.rawBody;
    else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(target, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json')) parsed = text ? JSON.parse(text) : null;
    return { status: res.status, body: parsed as T, headers: res.headers, text };
  };

  // Made on first use (most files never need it); a pool because tests in a file run concurrently.
  let pool: pg.Pool | null = null;
  let closed = false;
  const sql = async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> => {
    if (closed) throw new Error('app.sql after app.close()');
    if (!pool) {
      pool = new pg.Pool({ connectionString: database.url, max: 4 });
      // An idle connection cut by the server must not crash the test process.
      pool.on('error', () => {});
    }
    return (await pool.query<R>(text, values)).rows;
  };

  return {
    url,
    deps,
    databaseUrl: database.url,
    events,
    web,
    request,
    sql,
    close: async () => {
      closed = true;
      await pool?.end();
      await web.close();
      await bus.close();
      await db.end();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
