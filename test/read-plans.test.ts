/**
 * The plans search and the reports run with (issue #39), where a regression would be silent:
 * the answers stay right, only slower. Every Parley connection plans with
 * `plan_cache_mode=force_generic_plan` (core/adapters/postgres/db.ts), which also holds for
 * unnamed statements with parameters; search and the reports set their transaction back to
 * plans made for the values (CUSTOM_PLANS). EXPLAIN with parameters always plans for the values,
 * so the plans are read with PREPARE and EXPLAIN EXECUTE under the setting the code runs with.
 */
import test from 'ava';
import { z } from 'zod';
import pg from 'pg';
import { CUSTOM_PLANS, sql, withCustomPlans, withGenericPlans, type Queryable } from '../core/adapters/postgres/db.ts';
import { analytic, REPORT_SETTINGS, reportQueries } from '../core/domain/reports.ts';
import { searchConversations, searchCustomers, searchMessages, windowHitsQuery } from '../core/domain/search/history-search.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';

let app: TestApp;
let ws: Workspace;

test.before(async () => {
  app = await startTestApp();
  ws = await createWorkspace(app);
  // 2,000 conversations of 10 messages over the last 60 days, "common" in half the messages; 5 labels on half the conversations.
  await app.sql(
    `insert into conversations (business_id, channel_type, status, created_at, updated_at, first_response_at, resolved_at)
     select $1, 'webchat', case when g % 3 = 0 then 'open' else 'resolved' end, t, t, t + interval '5 minutes', case when g % 3 <> 0 then t + interval '1 day' end
     from generate_series(1, 2000) g, lateral (select now() - make_interval(secs => g * 2592) as t) x`,
    [ws.businessId],
  );
  await app.sql(
    `insert into messages (business_id, conversation_id, sender_type, content, created_at, updated_at)
     select c.business_id, c.id, 'customer', case when k % 2 = 0 then 'common words ' || k else 'other words ' || k end, c.created_at + k * interval '1 minute', c.created_at
     from conversations c, generate_series(1, 10) k where c.business_id = $1`,
    [ws.businessId],
  );
  await app.sql(`insert into labels (business_id, name, color) select $1, 'label ' || g, '#336699' from generate_series(1, 5) g`, [ws.businessId]);
  await app.sql(
    `insert into conversation_labels (business_id, conversation_id, label_id)
     select $1, c.id, (select id from labels where business_id = $1 order by name offset (abs(hashtext(c.id::text)) % 5) limit 1)
     from conversations c where c.business_id = $1 and abs(hashtext(c.id::text)) % 2 = 0`,
    [ws.businessId],
  );
  for (const table of ['conversations', 'messages', 'conversation_labels', 'labels']) await app.sql(`vacuum analyze ${table}`);
});
test.after.always(() => app?.close());

const setting = z.object({ mode: z.string() });
const mode = (q: Queryable) => q.one(sql.type(setting)`select current_setting('plan_cache_mode') as mode`).then((r) => r.mode);

/**
 * The plan `statement` runs with on a connection as Parley opens them (withGenericPlans), in a
 * transaction after `settings` (the code's own: CUSTOM_PLANS, REPORT_SETTINGS; none: as before issue #39).
 */
async function planOf(settings: string | null, statement: { sql: string; values: readonly unknown[] }): Promise<string> {
  const client = new pg.Client({ connectionString: withGenericPlans(app.databaseUrl) });
  await client.connect();
  try {
    await client.query('begin');
    if (settings) await client.query(settings);
    await client.query(`prepare plan_test as ${statement.sql.replace(/\$slonik_(\d+)/g, '$$$1')}`);
    const literals = statement.values.map((v) => client.escapeLiteral(String(v)));
    const { rows } = await client.query(`explain (analyze, costs off) execute plan_test(${literals.join(', ')})`);
    return rows.map((r) => r['QUERY PLAN'] as string).join('\n');
  } finally {
    await client.end();
  }
}
const customPlans = `select ${CUSTOM_PLANS.sql}`;

test('the pool plans generically; search runs its statements under plans made for their values, and leaves the connection as it was', async (t) => {
  t.is(await mode(app.deps.db), 'force_generic_plan');
  t.is(await withCustomPlans(app.deps.db, mode), 'force_custom_plan');
  t.is(await analytic(app.deps.db, mode), 'force_custom_plan');
  // Each search sets it in the transaction it is given, before its statements.
  for (const search of [searchMessages, searchConversations, searchCustomers]) {
    const seen = await app.deps.db.transaction(async (tx) => {
      await search(tx, { businessId: ws.businessId, text: 'common', after: null, limit: 5 });
      return mode(tx);
    });
    t.is(seen, 'force_custom_plan', search.name);
  }
  t.is(await mode(app.deps.db), 'force_generic_plan');
});

test("search's walk over the newest messages uses the (business, time) btree, not every match from the GIN index", async (t) => {
  const statement = windowHitsQuery(ws.businessId, 'common', null, null, 21);
  const plan = await planOf(customPlans, statement);
  t.regex(plan, /Index Scan using messages_business_created_idx/, plan);
  t.notRegex(plan, /messages_business_search_idx/, plan);
  // What it was planned as before: the GIN index, every match fetched and sorted (logged, the planner's choice at this size).
  t.log(await planOf(null, statement));
});

test('the labels report hashes the labels once: no probe of conversation_labels per conversation', async (t) => {
  const range = { from: new Date(Date.now() - 59 * 86_400_000).toISOString().slice(0, 10), to: new Date().toISOString().slice(0, 10), tz: 'UTC' };
  for (const basis of ['calendar', 'business_hours'] as const) {
    const plan = await planOf(REPORT_SETTINGS.sql, reportQueries(ws.businessId, range, basis).labels);
    t.regex(plan, /Hash Join/, plan);
    t.regex(plan, /Hash Cond: \(c\.id = cl\.conversation_id\)|Hash Cond: \(cl\.conversation_id = c\.id\)/, plan);
    t.notRegex(plan, /Index (Only )?Scan using conversation_labels_pkey/, plan);
  }
});
