/**
 * Prepared statements on the hot paths (core/adapters/postgres/db.ts `prepared`): a marked
 * statement is parsed and planned once per connection, generically, and gives the same answers
 * as before; unmarked statements stay unnamed.
 */
import test from 'ava';
import { z } from 'zod';
import { createDb, prepared, sql, withGenericPlans, type Db } from '../core/adapters/postgres/db.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';

let app: TestApp;
let db: Db;

test.before(async () => {
  app = await startTestApp();
  db = await createDb(app.databaseUrl, { maxPoolSize: 1 });
});

test.after.always(async () => {
  await db?.end();
  await app?.close();
});

test('withGenericPlans adds the option and keeps the ones the connection string has', (t) => {
  t.is(new URL(withGenericPlans('postgres://u@h:5432/db')).searchParams.get('options'), '-c plan_cache_mode=force_generic_plan');
  const kept = new URL(withGenericPlans('postgres://u@h:5432/db?options=-c%20statement_timeout%3D5s&sslmode=disable'));
  t.is(kept.searchParams.get('options'), '-c statement_timeout=5s -c plan_cache_mode=force_generic_plan');
  t.is(kept.searchParams.get('sslmode'), 'disable');
  t.is(kept.pathname, '/db');
});

test("the pool's connections plan prepared statements generically", async (t) => {
  t.is(await db.oneFirst(sql.type(z.object({ m: z.string() }))`select current_setting('plan_cache_mode') as m`), 'force_generic_plan');
});

test('a prepared statement is planned once per connection, generically, and answers as an unnamed one does', async (t) => {
  const lookup = (n: number) => prepared(sql.type(z.object({ n: z.number(), s: z.string() }))`select ${n}::int as n, repeat('x', ${n}::int) as s`);
  t.is(lookup(1).name, lookup(2).name, 'one name per text, whatever the values');
  t.true(lookup(1).name!.startsWith('parley_'));
  const stats = z.object({ generic_plans: z.number(), custom_plans: z.number() });
  await db.connect(async (c) => {
    for (let n = 1; n <= 7; n++) t.deepEqual(await c.one(lookup(n)), { n, s: 'x'.repeat(n) });
    const row = await c.one(sql.type(stats)`select generic_plans, custom_plans from pg_prepared_statements where name = ${lookup(1).name!}`);
    // Seven runs, all on the one generic plan: never planned with the values.
    t.deepEqual(row, { generic_plans: 7, custom_plans: 0 });
    // Unmarked statements are not prepared.
    await c.query(sql.unsafe`select 42`);
    const named = await c.anyFirst(sql.type(z.object({ name: z.string() }))`select name from pg_prepared_statements order by name`);
    t.deepEqual(named, [lookup(1).name!]);
  });
});

test('a prepared statement that fails leaves the connection usable and fails the same way again', async (t) => {
  const bad = () => prepared(sql.unsafe`select 1 / ${0}::int`);
  await db.connect(async (c) => {
    for (let i = 0; i < 2; i++) await t.throwsAsync(c.query(bad()), { message: /division by zero/ });
    t.is(await c.oneFirst(prepared(sql.type(z.object({ one: z.number() }))`select ${1}::int as one`)), 1);
  });
});
