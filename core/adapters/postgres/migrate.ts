/**
 * Forward-only migrations: sql/migrations/NNNN_name.sql in order, each in its own
 * transaction, recorded in schema_migrations with the file's sha256. A migration is never
 * edited once applied: a file whose checksum differs from the one recorded stops the run (add
 * a new migration instead), and two files with one number are refused before anything runs.
 * graphile-worker installs its own schema the same way (runMigrations). Concurrent starters
 * serialize on an advisory lock.
 *
 * SQL functions and triggers are source files, not migrations: sql/functions/<name>.sql, each a
 * `create or replace` (a trigger file drops and creates its trigger), applied after the
 * migrations whenever its checksum differs from the one recorded in schema_functions (Flyway's
 * repeatable migrations). A change to a function is a diff of its file.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Logger as WorkerLogger, runMigrations } from 'graphile-worker';

const sqlDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'sql');
const migrationsDir = path.join(sqlDir, 'migrations');
const functionsDir = path.join(sqlDir, 'functions');
const LOCK_ID = 7_402_113; // arbitrary, constant: the advisory lock key of Parley's migrator

const silentLogger = new WorkerLogger(() => () => {});

export type MigrationResult = { applied: string[] };

export type MigrationFile = { name: string; text: string };

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The migration files in order; throws on two files with the same number. */
export function migrationFiles(dir: string = migrationsDir): MigrationFile[] {
  const names = readdirSync(dir)
    .filter((f) => /^\d{4}_.+\.sql$/.test(f))
    .sort();
  const byNumber = new Map<string, string>();
  for (const name of names) {
    const other = byNumber.get(name.slice(0, 4));
    if (other) throw new Error(`two migrations numbered ${name.slice(0, 4)}: ${other} and ${name}; renumber the unreleased one`);
    byNumber.set(name.slice(0, 4), name);
  }
  return names.map((name) => ({ name, text: readFileSync(path.join(dir, name), 'utf8') }));
}

/** The function files (sql/functions/*.sql), by name. */
export function functionFiles(dir: string = functionsDir): MigrationFile[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((f) => f.endsWith('.sql'));
  } catch {
    return [];
  }
  return names.sort().map((name) => ({ name, text: readFileSync(path.join(dir, name), 'utf8') }));
}

/** Applies the function files whose text changed since they were last applied (all of them in one transaction). */
async function applyFunctions(client: pg.Client, dir: string): Promise<string[]> {
  await client.query(`create table if not exists schema_functions (
    name text primary key, checksum text not null, applied_at timestamptz not null default now())`);
  const recorded = new Map(
    (await client.query<{ name: string; checksum: string }>('select name, checksum from schema_functions')).rows.map((r) => [r.name, r.checksum]),
  );
  const changed = functionFiles(dir).filter((file) => recorded.get(file.name) !== sha256(file.text));
  if (!changed.length) return [];
  await client.query('begin');
  try {
    // Bodies refer to each other and to tables: checked when called, not in file order.
    await client.query('set local check_function_bodies = off');
    for (const file of changed) {
      await client.query(file.text).catch((error: Error) => {
        throw new Error(`sql/functions/${file.name} failed: ${error.message}`);
      });
      await client.query(
        'insert into schema_functions (name, checksum) values ($1, $2) on conflict (name) do update set checksum = excluded.checksum, applied_at = now()',
        [file.name, sha256(file.text)],
      );
    }
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw error;
  }
  return changed.map((file) => `functions/${file.name}`);
}

/** `dir`: the migrations folder (tests point it elsewhere; its sibling `functions` holds the function files). */
export async function migrate(connectionString: string, dir: string = migrationsDir): Promise<MigrationResult> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query('select pg_advisory_lock($1)', [LOCK_ID]);
    await client.query(`create table if not exists schema_migrations (
      name text primary key, applied_at timestamptz not null default now())`);
    await client.query('alter table schema_migrations add column if not exists checksum text');
    const files = migrationFiles(dir);
    const recorded = new Map(
      (await client.query<{ name: string; checksum: string | null }>('select name, checksum from schema_migrations')).rows.map((r) => [r.name, r.checksum]),
    );
    for (const file of files) {
      if (!recorded.has(file.name)) continue;
      const checksum = recorded.get(file.name);
      // Applied before checksums were recorded: this file's text is taken as the one applied.
      if (checksum === null) await client.query('update schema_migrations set checksum = $2 where name = $1', [file.name, sha256(file.text)]);
      else if (checksum !== sha256(file.text)) {
        throw new Error(`migration ${file.name} was changed after it was applied to this database; restore it and put the change in a new migration`);
      }
    }
    for (const file of files) {
      if (recorded.has(file.name)) continue;
      await client.query('begin');
      try {
        await client.query(file.text);
        await client.query('insert into schema_migrations (name, checksum) values ($1, $2)', [file.name, sha256(file.text)]);
        await client.query('commit');
      } catch (error) {
        await client.query('rollback');
        throw new Error(`migration ${file.name} failed: ${(error as Error).message}`);
      }
      applied.push(file.name);
    }
    await runMigrations({ connectionString, logger: silentLogger });
    applied.push(...(await applyFunctions(client, path.join(dir, '..', 'functions'))));
  } finally {
    await client.query('select pg_advisory_unlock($1)', [LOCK_ID]).catch(() => {});
    await client.end();
  }
  return { applied };
}
