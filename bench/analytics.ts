/**
 * `npm run bench:analytics`: the analytics overview against a business with 100,000
 * conversations (two thirds of them in the 30-day window) among 200,000 of other businesses.
 *
 * Uses a scratch database on DATABASE_URL's server (the role needs CREATEDB), or an embedded
 * PostgreSQL in ./.data/bench (port EMBEDDED_PG_BENCH_PORT, default 54331) when it is unset; the
 * scratch database is dropped at the end. Prints EXPLAIN ANALYZE of each overview query and the
 * latency of the endpoint's handler, and writes bench/results/analytics.json.
 *
 * Environment: BENCH_CONVERSATIONS (default 100000), BENCH_NOISE (default 200000), BENCH_RUNS (default 30),
 * BENCH_KEEP_DB=1 keeps the scratch database for a look with psql (drop it yourself).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { migrate } from '../core/migrate.ts';
import { startEmbeddedPostgres } from '../core/embedded-postgres.ts';
import { createDb } from '../core/db.ts';
import { loadConfig } from '../core/config.ts';
import { createLocalEventBus } from '../core/events.ts';
import { createLogger } from '../core/logger.ts';
import { overviewQueries } from '../core/analytics.ts';
import { overview } from '../api/routes/analytics/routes.ts';
import type { Deps } from '../core/deps.ts';
import type { Caller } from '../api/middlewares/auth.ts';

const root = path.resolve(import.meta.dirname, '..');
const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 100_000);
const NOISE = Number(process.env.BENCH_NOISE ?? 200_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);

/** Seeds the business under test, its team, and noise businesses, all in SQL. */
async function seed(client: pg.Client): Promise<{ businessId: string; ownerId: string }> {
  const owner = await client.query<{ id: string }>(`insert into users (email, full_name) values ('owner@bench.test', 'Bench Owner') returning id`);
  const ownerId = owner.rows[0].id;
  const business = await client.query<{ id: string }>(
    `insert into businesses (name, owner_id, plan, next_agent_number) values ('Bench Co', $1, 'Pro', 7) returning id`,
    [ownerId],
  );
  const businessId = business.rows[0].id;
  await client.query(`insert into team_members (business_id, user_id, role, status, agent_number) values ($1, $2, 'owner', 'live', 1)`, [businessId, ownerId]);
  await client.query(
    `with u as (
       insert into users (email, full_name) select 'agent' || g || '@bench.test', 'Agent ' || g from generate_series(2, 6) g returning id, email)
     insert into team_members (business_id, user_id, role, status, agent_number)
     select $1, u.id, 'agent', (array['live', 'away', 'offline'])[1 + (row_number() over () % 3)::int], 1 + row_number() over ()
     from u`,
    [businessId],
  );
  // Conversations: created uniformly over 45 days, so about two thirds fall in the window.
  await client.query(
    `insert into conversations (business_id, channel_type, status, created_at, updated_at, first_response_at, resolved_at, resolved_by)
     select $1, ch, st, created, created,
            case when random() < 0.85 then created + make_interval(secs => 30 + random() * 7200) end,
            case when st = 'resolved' then created + make_interval(secs => 600 + random() * 259200) end,
            case when st = 'resolved' then agents[1 + floor(random() * array_length(agents, 1))::int] end
     from (
       select now() - make_interval(secs => random() * 45 * 86400) as created,
              (array['webchat', 'widget', 'whatsapp', 'telegram', 'email'])[1 + floor(random() * 5)::int] as ch,
              case when r < 0.20 then 'open' when r < 0.25 then 'pending' when r < 0.85 then 'resolved' else 'closed' end as st,
              (select array_agg(user_id) from team_members where business_id = $1) as agents
       from (select random() as r from generate_series(1, $2::int)) g
     ) s`,
    [businessId, CONVERSATIONS],
  );
  // Noise: four other businesses sharing the table and its indexes.
  const noiseOwners = await client.query<{ id: string }>(
    `insert into users (email, full_name) select 'noise' || g || '@bench.test', 'Noise ' || g from generate_series(1, 4) g returning id`,
  );
  for (const { id } of noiseOwners.rows) {
    const b = await client.query<{ id: string }>(`insert into businesses (name, owner_id) values ('Noise', $1) returning id`, [id]);
    await client.query(
      `insert into conversations (business_id, channel_type, status, created_at, updated_at, resolved_at)
       select $1, 'webchat', case when random() < 0.5 then 'open' else 'resolved' end, t, t, t + interval '1 hour'
       from (select now() - make_interval(secs => random() * 45 * 86400) as t from generate_series(1, $2::int)) g`,
      [b.rows[0].id, Math.floor(NOISE / noiseOwners.rows.length)],
    );
  }
  await client.query('vacuum analyze conversations');
  await client.query('analyze team_members');
  await client.query('analyze users');
  return { businessId, ownerId };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function main(): Promise<void> {
  const embedded = process.env.DATABASE_URL
    ? null
    : await startEmbeddedPostgres({ dataDir: path.join(root, '.data', 'bench'), port: Number(process.env.EMBEDDED_PG_BENCH_PORT ?? 54331) });
  const adminUrl = process.env.DATABASE_URL ?? embedded!.adminUrl;
  const name = `parley_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const client = new pg.Client({ connectionString: databaseUrl });
  // Dropping the scratch database at the end ends this session; that is expected.
  client.on('error', () => {});
  try {
    await migrate(databaseUrl);
    await client.connect();
    const seedStarted = performance.now();
    const { businessId, ownerId } = await seed(client);
    const seedMs = performance.now() - seedStarted;
    const counts = (
      await client.query(
        `select count(*)::int as total, count(*) filter (where created_at >= now() - interval '30 days')::int as in_window
         from conversations where business_id = $1`,
        [businessId],
      )
    ).rows[0];
    const server = (await client.query(`select version() as v`)).rows[0].v as string;

    const dataDir = path.join(os.tmpdir(), `parley-bench-${process.pid}`);
    const config = loadConfig({ DATABASE_URL: databaseUrl, DATA_DIR: dataDir, JWT_SECRET: randomBytes(32).toString('hex'), CONFIG_ENCRYPTION_KEY: randomBytes(32).toString('hex'), LOG_LEVEL: 'silent' });
    const db = await createDb(databaseUrl, { maxPoolSize: 5 });
    const deps: Deps = { config, db, events: createLocalEventBus(), logger: createLogger('silent') };
    const caller: Caller = {
      userId: ownerId,
      email: 'owner@bench.test',
      fullName: 'Bench Owner',
      jti: 'bench',
      exp: 0,
      member: { id: 'bench', businessId, role: 'owner', agentNumber: 1 },
    };
    const callEndpoint = () => overview.handler({ params: {}, query: {}, body: undefined, caller, deps, ctx: {} as never });

    // EXPLAIN ANALYZE exactly the statements the endpoint runs.
    const plans: Record<string, { ms: number; plan: string }> = {};
    for (const [key, query] of Object.entries(overviewQueries(businessId))) {
      // slonik numbers its placeholders $slonik_N; pg wants $N.
      const text = query.sql.replace(/\$slonik_(\d+)/g, '$$$1');
      await client.query(text, [...query.values]); // warm the cache first
      const explained = await client.query(`explain (analyze, buffers) ${text}`, [...query.values]);
      const lines = explained.rows.map((r) => r['QUERY PLAN'] as string);
      const execution = lines.find((l) => l.startsWith('Execution Time'));
      plans[key] = { ms: execution ? Number(/([\d.]+) ms/.exec(execution)![1]) : NaN, plan: lines.join('\n') };
    }

    for (let i = 0; i < 3; i++) await callEndpoint();
    const samples: number[] = [];
    let result: unknown;
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      result = await callEndpoint();
      samples.push(performance.now() - started);
    }
    samples.sort((a, b) => a - b);
    const latency = {
      runs: RUNS,
      min_ms: +samples[0].toFixed(2),
      median_ms: +percentile(samples, 50).toFixed(2),
      p95_ms: +percentile(samples, 95).toFixed(2),
      max_ms: +samples[samples.length - 1].toFixed(2),
    };

    for (const [key, { plan }] of Object.entries(plans)) console.log(`\n=== EXPLAIN ANALYZE: ${key} ===\n${plan}`);
    console.log('\nanalytics overview benchmark');
    console.table({
      'conversations (business)': { value: counts.total },
      'conversations in window': { value: counts.in_window },
      'other businesses\' conversations': { value: NOISE },
      'seed (s)': { value: +(seedMs / 1000).toFixed(1) },
      ...Object.fromEntries(Object.entries(plans).map(([k, p]) => [`EXPLAIN ANALYZE ${k} (ms)`, { value: p.ms }])),
      'endpoint min (ms)': { value: latency.min_ms },
      'endpoint median (ms)': { value: latency.median_ms },
      'endpoint p95 (ms)': { value: latency.p95_ms },
      'endpoint max (ms)': { value: latency.max_ms },
    });

    const out = {
      benchmark: 'analytics_overview',
      at: new Date().toISOString(),
      machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, memory_gib: +(os.totalmem() / 2 ** 30).toFixed(1), node: process.version, postgres: server },
      data: { conversations: counts.total, in_window: counts.in_window, noise_conversations: NOISE, seed_seconds: +(seedMs / 1000).toFixed(1) },
      queries: Object.fromEntries(Object.entries(plans).map(([k, p]) => [k, { execution_ms: p.ms, plan: p.plan.split('\n') }])),
      endpoint: latency,
      sample_result: result,
    };
    mkdirSync(path.join(root, 'bench', 'results'), { recursive: true });
    writeFileSync(path.join(root, 'bench', 'results', 'analytics.json'), JSON.stringify(out, null, 2) + '\n');
    console.log('wrote bench/results/analytics.json');
    await db.end();
  } finally {
    await client.end().catch(() => {});
    if (process.env.BENCH_KEEP_DB) console.log(`kept scratch database ${databaseUrl}`);
    else await admin.query(`drop database if exists "${name}" with (force)`).catch(() => {});
    await admin.end();
    await embedded?.stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
