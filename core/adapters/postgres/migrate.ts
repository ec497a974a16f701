/**
 * Forward-only migrations: sql/migrations/NNNN_name.sql in order, each in its own
 * transaction, recorded in schema_migrations. graphile-worker installs its own schema the
 * same way (runMigrations). Concurrent starters serialize on an advisory lock.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Logger as WorkerLogger, runMigrations } from 'graphile-worker';

const migrationsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'sql', 'migrations');
const LOCK_ID = 7_402_113; // arbitrary, constant: the advisory lock key of Parley's migrator

const silentLogger = new WorkerLogger(() => () => {});

export type MigrationResult = { applied: string[] };

export async function migrate(connectionString: string): Promise<MigrationResult> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query('select pg_advisory_lock($1)', [LOCK_ID]);
    await client.query(`create table if not exists schema_migrations (
      name text primary key, applied_at timestamptz not null default now())`);
    const done = new Set((await client.query<{ name: string }>('select name from schema_migrations')).rows.map((r) => r.name));
    const files = readdirSync(migrationsDir).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
    for (const file of files) {
      if (done.has(file)) continue;
      const text = readFileSync(path.join(migrationsDir, file), 'utf8');
      await client.query('begin');
      try {
        await client.query(text);
        await client.query('insert into schema_migrations (name) values ($1)', [file]);
        await client.query('commit');
      } catch (error) {
        await client.query('rollback');
        throw new Error(`migration ${file} failed: ${(error as Error).message}`);
      }
      applied.push(file);
    }
    await runMigrations({ connectionString, logger: silentLogger });
  } finally {
    await client.query('select pg_advisory_unlock($1)', [LOCK_ID]).catch(() => {});
    await client.end();
  }
  return { applied };
}

