/**
 * `npm run db:schema`: migrates a scratch database (DATABASE_URL's server, or an embedded one)
 * and writes sql/schema.sql (the schema the migrations build) and sql/migrations.sha256 (the
 * checksum of every migration file). Run it after adding a migration and commit both files;
 * test/sql-schema.test.ts fails while either is stale, and fails on an edited migration.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { migrate, migrationFiles } from '../core/adapters/postgres/migrate.ts';
import { dumpSchema, migrationChecksums } from '../core/adapters/postgres/schema-dump.ts';
import { startEmbeddedPostgres } from '../core/adapters/postgres/embedded-postgres.ts';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

async function main(): Promise<void> {
  const dataDir = process.env.DATABASE_URL ? null : mkdtempSync(path.join(os.tmpdir(), 'parley-schema-pg-'));
  const embedded = dataDir ? await startEmbeddedPostgres({ dataDir, port: await freePort() }) : null;
  const adminUrl = process.env.DATABASE_URL ?? embedded!.adminUrl;
  const name = `parley_schema_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database "${name}"`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    await migrate(url.toString());
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      writeFileSync(path.join(root, 'sql', 'schema.sql'), await dumpSchema(client));
    } finally {
      await client.end();
    }
    writeFileSync(path.join(root, 'sql', 'migrations.sha256'), migrationChecksums(migrationFiles()));
    console.log('wrote sql/schema.sql and sql/migrations.sha256');
  } finally {
    await admin.query(`drop database if exists "${name}" with (force)`).catch(() => {});
    await admin.end();
    await embedded?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
