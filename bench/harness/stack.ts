/**
 * What a bench run stands on: a scratch database on DATABASE_URL's server (or an embedded
 * PostgreSQL when it is unset), migrated with core/adapters/postgres/migrate.ts and dropped at the end; a
 * private Redis; the fake Graph API and fake Ollama from test/fakes; and Parley's processes
 * started as the Procfile runs them. Everything started is registered with `defer` and stopped
 * by `close`, newest first, also when a row fails.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { migrate } from '../../core/adapters/postgres/migrate.ts';
import { startEmbeddedPostgres } from '../../core/adapters/postgres/embedded-postgres.ts';
import { startFakeMeta, type FakeMeta } from '../../test/fakes/meta.ts';
import { startFakeOllama, type FakeOllama } from '../../test/fakes/ollama.ts';
import { procfileFlags } from '../../test/helpers/procfile.ts';
import { clearLogs, freePort, root, spawnChild, spawnNode, startRedis, untilHttpOk, untilLogged, type Child } from './processes.ts';

export type Web = { child: Child; url: string };

export type Stack = {
  /** --quick: every row small, goals not enforced. */
  quick: boolean;
  databaseUrl: string;
  redisUrl: string;
  /** Connections of the bench itself (setup and checks), not of Parley. */
  pool: pg.Pool;
  meta: FakeMeta;
  ollama: FakeOllama;
  /** The environment every Parley process of this run shares (same secrets, database, fakes). */
  env: Record<string, string>;
  /** `parley web` on a free port, ready when /readyz answers. */
  startWeb: (name: string, env?: Record<string, string>) => Promise<Web>;
  /** `parley worker`, ready when it logs "workers running". */
  startWorker: (name: string, env?: Record<string, string>) => Promise<Child>;
  /** `web` and `worker` started side by side (`<prefix>-web`, `<prefix>-worker`). */
  startWebAndWorker: (prefix: string) => Promise<{ web: Web; worker: Child }>;
  /** A Node script of bench/baselines as a child, ready when it prints "ready". */
  startBaseline: (name: string, script: string, env?: Record<string, string>) => Promise<Child>;
  /**
   * Deletes the jobs a row left queued (a backlog its stopped workers never reached), so the
   * next row's workers start from an empty queue; returns how many.
   */
  discardJobs: () => Promise<number>;
  /** Registers a stop to run at `close` (newest first). */
  defer: (stop: () => Promise<unknown>) => void;
  close: () => Promise<void>;
};

export async function openStack(options: { quick: boolean }): Promise<Stack> {
  const stops: (() => Promise<unknown>)[] = [];
  const defer = (stop: () => Promise<unknown>) => void stops.push(stop);
  let closing: Promise<void> | null = null;
  // Once only: an interrupt may arrive while the normal end is already cleaning up.
  const close = () =>
    (closing ??= (async () => {
      for (const stop of stops.reverse()) await stop().catch((error) => console.error('bench cleanup:', error));
    })());
  try {
    clearLogs();
    const embedded = process.env.DATABASE_URL
      ? null
      : await startEmbeddedPostgres({ dataDir: path.join(root, '.data', 'bench'), port: Number(process.env.EMBEDDED_PG_BENCH_PORT ?? 54331) });
    if (embedded) defer(() => embedded.stop());
    const adminUrl = process.env.DATABASE_URL ?? embedded!.adminUrl;
    const name = `parley_bench_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database "${name}"`);
    defer(async () => {
      if (process.env.BENCH_KEEP_DB) console.log(`kept scratch database ${name}`);
      else await admin.query(`drop database if exists "${name}" with (force)`);
      await admin.end();
    });
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const databaseUrl = url.toString();
    await migrate(databaseUrl);
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
    // The drop at the end ends these sessions; that is expected.
    pool.on('error', () => {});
    defer(() => pool.end());

    const redis = await startRedis();
    defer(() => redis.child.stop());
    const meta = await startFakeMeta();
    defer(() => meta.close());
    const ollama = await startFakeOllama();
    defer(() => ollama.close());

    const dataDir = path.join(os.tmpdir(), `${name}-data`);
    defer(async () => rmSync(dataDir, { recursive: true, force: true }));
    const env: Record<string, string> = {
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      DATA_DIR: dataDir,
      JWT_SECRET: randomBytes(32).toString('hex'),
      CONFIG_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      META_GRAPH_URL: meta.graphUrl,
      INSTAGRAM_GRAPH_URL: meta.instagramUrl,
      OLLAMA_URL: ollama.url,
      PUBLIC_URL: 'http://parley.bench',
      // Registration of bench accounts only; no measured row hashes a password.
      BCRYPT_ROUNDS: '4',
      // Production's default level: request and job logs are part of what is measured.
      LOG_LEVEL: 'info',
    };
    // As the Procfile starts them: the plain-JS entry point with that process type's V8 flags,
    // and the image's MALLOC_ARENA_MAX (Dockerfile).
    const parley = (label: string, command: 'web' | 'worker', extra: Record<string, string>) =>
      spawnChild(label, process.execPath, [...procfileFlags(command), path.join(root, 'bin', 'parley.js'), command], {
        MALLOC_ARENA_MAX: '2',
        ...env,
        ...extra,
      });

    const startWeb = async (label: string, extra: Record<string, string> = {}): Promise<Web> => {
      const port = await freePort();
      const child = parley(label, 'web', { PORT: String(port), ...extra });
      defer(() => child.stop());
      const origin = `http://127.0.0.1:${port}`;
      await untilHttpOk(child, `${origin}/readyz`);
      return { child, url: origin };
    };
    const startWorker = async (label: string, extra: Record<string, string> = {}): Promise<Child> => {
      const child = parley(label, 'worker', extra);
      defer(() => child.stop());
      await untilLogged(child, 'workers running');
      return child;
    };
    const startWebAndWorker = async (prefix: string) => {
      const [web, worker] = await Promise.all([startWeb(`${prefix}-web`), startWorker(`${prefix}-worker`)]);
      return { web, worker };
    };
    const startBaseline = async (label: string, script: string, extra: Record<string, string> = {}): Promise<Child> => {
      const child = spawnNode(label, path.join(root, 'bench', 'baselines', script), [], { ...env, ...extra });
      defer(() => child.stop());
      await untilLogged(child, 'ready');
      return child;
    };
    const discardJobs = async () => {
      // complete_jobs is graphile-worker's own way to remove jobs; it leaves locked ones alone.
      const { rows } = await pool.query<{ n: number }>(
        `select count(*)::int as n from graphile_worker.complete_jobs(array(select id from graphile_worker.jobs))`,
      );
      return rows[0]!.n;
    };
    return {
      quick: options.quick,
      discardJobs,
      databaseUrl,
      redisUrl: redis.url,
      pool,
      meta,
      ollama,
      env,
      startWeb,
      startWorker,
      startWebAndWorker,
      startBaseline,
      defer,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
