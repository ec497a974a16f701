/**
 * `npm test`: prepares PostgreSQL, migrates one template database, then runs ava. Each test
 * file creates its own database from that template (CREATE DATABASE … TEMPLATE), so files run
 * in parallel and leave nothing behind.
 *
 * Without DATABASE_URL an embedded PostgreSQL is started in a fresh temporary directory on a
 * free port, and stopped and removed at the end, so runs never share a server; with
 * DATABASE_URL its server is used (the role needs CREATEDB).
 * Extra arguments go to ava, e.g. `npm test -- test/auth.test.ts`.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { migrate } from '../core/adapters/postgres/migrate.ts';
import { startEmbeddedPostgres } from '../core/adapters/postgres/embedded-postgres.ts';

const root = path.resolve(import.meta.dirname, '..');

/** A TCP port nothing listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function main(): Promise<number> {
  const dataDir = process.env.DATABASE_URL ? null : mkdtempSync(path.join(os.tmpdir(), 'parley-test-pg-'));
  try {
    return await runWith(dataDir);
  } finally {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

async function runWith(dataDir: string | null): Promise<number> {
  const embedded = dataDir ? await startEmbeddedPostgres({ dataDir, port: await freePort() }) : null;
  const adminUrl = process.env.DATABASE_URL ?? embedded!.adminUrl;
  const template = `parley_tpl_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database "${template}"`);
    const templateUrl = new URL(adminUrl);
    templateUrl.pathname = `/${template}`;
    await migrate(templateUrl.toString());
    const args = process.argv.slice(2);
    const code = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, [path.join(root, 'node_modules', 'ava', 'entrypoints', 'cli.js'), ...args], {
        stdio: 'inherit',
        env: { ...process.env, PARLEY_TEST_ADMIN_URL: adminUrl, PARLEY_TEST_TEMPLATE: template, DATABASE_URL: '' },
      });
      child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
    });
    return code;
  } finally {
    const leftovers = await admin.query<{ datname: string }>(`select datname from pg_database where datname like $1 or datname = $2`, [
      `parley_t_${template}_%`,
      template,
    ]);
    for (const { datname } of leftovers.rows) {
      await admin.query(`drop database if exists "${datname}" with (force)`).catch(() => {});
    }
    await admin.end();
    await embedded?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
