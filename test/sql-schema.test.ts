/**
 * The migrations as reviewed and as released: sql/schema.sql is what they build, every file's
 * checksum is in sql/migrations.sha256 (an edited released migration fails here), numbers are
 * unique, and the migrator refuses a file changed after a database applied it.
 */
import test from 'ava';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { migrate, migrationFiles } from '../core/adapters/postgres/migrate.ts';
import { dumpSchema, migrationChecksums } from '../core/adapters/postgres/schema-dump.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const databases: TestDatabase[] = [];
test.after.always(async () => {
  for (const db of databases) await db.drop();
});

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

test('sql/schema.sql is the schema the migrations build (run `npm run db:schema` after a migration)', async (t) => {
  const db = await createTestDatabase();
  databases.push(db);
  const built = await withClient(db.url, dumpSchema);
  const committed = readFileSync(path.join(root, 'sql', 'schema.sql'), 'utf8');
  t.true(built === committed, 'sql/schema.sql is stale: run `npm run db:schema` and commit it');
});

test('every migration file matches its checksum in sql/migrations.sha256: released migrations are never edited', (t) => {
  const lock = new Map(
    readFileSync(path.join(root, 'sql', 'migrations.sha256'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => {
        const [sum, name] = line.split(/\s+/);
        return [name!, sum!] as const;
      }),
  );
  const files = migrationFiles();
  const current = new Map(
    migrationChecksums(files)
      .trim()
      .split('\n')
      .map((line) => {
        const [sum, name] = line.split(/\s+/);
        return [name!, sum!] as const;
      }),
  );
  const edited = [...current].filter(([name, sum]) => lock.has(name) && lock.get(name) !== sum).map(([name]) => name);
  t.deepEqual(edited, [], 'a released migration was edited: restore it and put the change in a new migration');
  const unlisted = [...current.keys()].filter((name) => !lock.has(name));
  t.deepEqual(unlisted, [], 'a new migration: run `npm run db:schema` and commit sql/migrations.sha256');
  const gone = [...lock.keys()].filter((name) => !current.has(name));
  t.deepEqual(gone, [], 'a released migration was removed or renamed');
});

test('two migration files with one number are refused before anything runs', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'parley-migrations-'));
  try {
    writeFileSync(path.join(dir, '0001_a.sql'), 'select 1;');
    writeFileSync(path.join(dir, '0002_b.sql'), 'select 1;');
    writeFileSync(path.join(dir, '0002_c.sql'), 'select 1;');
    const error = t.throws(() => migrationFiles(dir));
    t.is(error!.message, 'two migrations numbered 0002: 0002_b.sql and 0002_c.sql; renumber the unreleased one');
    t.deepEqual(migrationFiles().map((f) => f.name.slice(0, 4)).length, new Set(migrationFiles().map((f) => f.name.slice(0, 4))).size);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a migration changed after a database applied it stops the migrator, which applies nothing more', async (t) => {
  const db = await createTestDatabase();
  databases.push(db);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'parley-migrations-'));
  try {
    await withClient(db.url, (c) => c.query('create schema scratch'));
    writeFileSync(path.join(dir, '0001_one.sql'), 'create table scratch.one (id int);');
    // The test database already has the real migrations recorded; this folder adds its own.
    t.deepEqual((await migrate(db.url, dir)).applied, ['0001_one.sql']);
    t.deepEqual((await migrate(db.url, dir)).applied, [], 'applied once');
    writeFileSync(path.join(dir, '0001_one.sql'), 'create table scratch.one (id bigint);');
    writeFileSync(path.join(dir, '0002_two.sql'), 'create table scratch.two (id int);');
    const error = await t.throwsAsync(() => migrate(db.url, dir));
    t.is(error!.message, 'migration 0001_one.sql was changed after it was applied to this database; restore it and put the change in a new migration');
    const two = await withClient(db.url, (c) => c.query(`select to_regclass('scratch.two') as t`));
    t.is(two.rows[0].t, null, 'nothing after it ran');
    // A database migrated before checksums were kept: the files are taken as applied, then checked.
    await withClient(db.url, (c) => c.query(`update schema_migrations set checksum = null where name = '0001_one.sql'`));
    t.deepEqual((await migrate(db.url, dir)).applied, ['0002_two.sql']);
    const recorded = await withClient(db.url, (c) => c.query(`select checksum from schema_migrations where name = '0001_one.sql'`));
    t.is(recorded.rows[0].checksum, migrationChecksums([{ name: '0001_one.sql', text: 'create table scratch.one (id bigint);' }]).split(' ')[0]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
