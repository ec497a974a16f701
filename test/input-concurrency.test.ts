/**
 * Concurrent writes in one business never surface a deadlock: inserts that reference the
 * business take its lock first, and a transaction that still loses a deadlock or
 * serialization race is retried (core/adapters/postgres/db.ts).
 */
import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace } from './helpers/fixtures.ts';
import { sql } from '../core/adapters/postgres/db.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

test('parallel widget creation in one business: no deadlock, and exactly the 20 the business may have', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const responses = [];
  for (let round = 0; round < 3; round++) {
    const batch = await Promise.all(
      Array.from({ length: 8 }, (_, i) => app.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: `r${round}-w${i}.example` } })),
    );
    responses.push(...batch);
  }
  // 24 tries at once against the cap of 20 (docs/decisions.md#website-widget-and-visitors): the
  // plan check's row lock counts them one after the other, so exactly 20 get in.
  const refused = responses.filter((r) => r.status !== 200);
  t.is(responses.filter((r) => r.status === 200).length, 20, refused.map((r) => r.text).join('\n'));
  t.true(
    refused.every((r) => r.status === 400 && r.body.detail === 'A business may have at most 20 widgets'),
    refused.map((r) => r.text).join('\n'),
  );
  const [row] = await app.sql(`select count(*)::int as n from widgets where business_id = $1`, [ws.businessId]);
  t.is(row.n, 20);
  const [channels] = await app.sql(`select count(*)::int as n from channels where business_id = $1 and type = 'widget'`, [ws.businessId]);
  t.is(channels.n, 20);
});

test('a transaction that loses a deadlock is run again and commits', async (t) => {
  // Two transactions take two locks in opposite order; PostgreSQL cancels one with 40P01.
  const runs = { first: 0, second: 0 };
  let holding = 0;
  let bothHold!: () => void;
  const bothHoldFirstLock = new Promise<void>((resolve) => (bothHold = resolve));
  const takeBoth = (name: 'first' | 'second', a: number, b: number) =>
    app.deps.db.transaction(async (tx) => {
      runs[name] += 1;
      await tx.query(sql.unsafe`select pg_advisory_xact_lock(${a})`);
      if (++holding === 2) bothHold();
      await bothHoldFirstLock;
      await tx.query(sql.unsafe`select pg_advisory_xact_lock(${b})`);
      return name;
    });
  const key = 7_340_000 + Math.floor(Math.random() * 1000);
  t.deepEqual(await Promise.all([takeBoth('first', key, key + 1), takeBoth('second', key + 1, key)]), ['first', 'second']);
  t.is(runs.first + runs.second, 3, 'the deadlock victim ran once more');
});
