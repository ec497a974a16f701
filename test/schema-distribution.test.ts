/**
 * The schema on its way to distribution by business_id (docs/scaling.md, "Past one PostgreSQL
 * primary"). Distributed tables need business_id in every unique key and foreign key; the lists
 * below are what still stands in the way, table by table, and are documented there. A new table
 * without business_id, or a new unique key or foreign key without it, fails here until it is
 * either fixed or written down as a known blocker.
 */
import test from 'ava';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';

let db: TestDatabase;
let client: pg.Client;

test.before(async () => {
  db = await createTestDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});

test.after.always(async () => {
  await client?.end();
  await db?.drop();
});

async function column(query: string): Promise<string[]> {
  const { rows } = await client.query<{ v: string }>(query);
  return rows.map((r) => r.v);
}

const businessTables = `
  select c.oid from pg_class c
  where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p')
    and exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'business_id' and not a.attisdropped)`;

test('global tables (reference or local under Citus) are exactly the documented ones', async (t) => {
  const global = await column(`
    select c.relname as v from pg_class c
    where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p')
      and c.oid not in (${businessTables})
    order by 1`);
  t.deepEqual(global, [
    'businesses', // the distribution key itself: a reference table, or co-located as the root
    'login_failures',
    'plans',
    'rate_windows',
    'revoked_tokens',
    'schema_functions',
    'schema_migrations',
    'users',
    'worker_heartbeats',
  ]);
});

test('every unique key of a business table holds business_id, but the documented blockers', async (t) => {
  const missing = await column(`
    select t.relname || ' ' || i.relname as v
    from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
    where x.indisunique and t.oid in (${businessTables})
      and not exists (
        select 1 from pg_attribute a
        where a.attrelid = t.oid and a.attname = 'business_id' and a.attnum = any(x.indkey))
    order by 1`);
  t.deepEqual(missing, [
    // primary keys on id alone: become (id, business_id) together with the foreign keys below
    'channels channels_pkey',
    // webhooks find their channel by (type, routing key) before they know the business
    'channels channels_routing_key_unique_idx',
    'conversations conversations_pkey',
    'customers customers_pkey',
    // the subscribers' receipts key on (subscriber, event): the event's id is global
    'domain_event_receipts domain_event_receipts_pkey',
    'domain_events domain_events_pkey',
    'inbound_events inbound_events_pkey',
    'kb_articles kb_articles_pkey',
    'kb_chunks kb_chunks_pkey',
    'messages messages_pkey',
    // Stripe's event id, claimed before the event names a business (business_id may be null)
    'stripe_events stripe_events_pkey',
    'team_members team_members_pkey',
    // one business per user: a global rule
    'team_members team_members_user_id_key',
    'uploads uploads_pkey',
    'widgets widgets_pkey',
  ]);
});

test('foreign keys between business tables without business_id are the documented ones', async (t) => {
  const missing = await column(`
    select c.conrelid::regclass || ' -> ' || c.confrelid::regclass || ' ' || c.conname as v
    from pg_constraint c
    where c.contype = 'f' and c.conrelid in (${businessTables}) and c.confrelid in (${businessTables})
      and not exists (
        select 1 from pg_attribute a
        where a.attrelid = c.conrelid and a.attname = 'business_id' and a.attnum = any(c.conkey))
    order by 1`);
  t.deepEqual(missing, [
    'conversation_labels -> conversations conversation_labels_conversation_id_fkey',
    'conversations -> channels conversations_channel_id_fkey',
    'conversations -> customers conversations_customer_id_fkey',
    'csat_surveys -> conversations csat_surveys_conversation_id_fkey',
    'customers -> channels customers_channel_id_fkey',
    'domain_event_receipts -> domain_events domain_event_receipts_event_id_fkey',
    'domain_events -> conversations domain_events_conversation_id_fkey',
    'inbound_events -> channels inbound_events_channel_id_fkey',
    'kb_chunks -> kb_articles kb_chunks_article_id_fkey',
    'messages -> channels messages_channel_id_fkey',
    'messages -> conversations messages_conversation_id_fkey',
    'sla_breaches -> conversations sla_breaches_conversation_id_fkey',
    'sla_results -> conversations sla_results_conversation_id_fkey',
    'uploads -> conversations uploads_conversation_id_fkey',
  ]);
});
