/**
 * Search over all history: one business with SEARCH_BENCH_MESSAGES messages (default
 * 1,000,000; 100,000 conversations of 10) among SEARCH_BENCH_TOTAL messages in all (default
 * 5,000,000; the rest in four other businesses), seeded in SQL, then `GET /api/v1/search`
 * one request at a time against `parley web`, cycling through queries from very common to
 * unique words, a partial customer name, an e-mail part and phone digits. Baseline:
 * `GET /api/v1/auth/me` on the same process. Goal: p50 ≤ 30 ms, p99 ≤ 100 ms. The
 * EXPLAIN ANALYZE of each message query goes to bench/results/search-plan.txt.
 *
 * Message text: 8 words drawn from a 2,000-word vocabulary with a skew (word k is drawn with
 * probability ∝ about k^-2/3), so `w0` is in about half the messages, `w100` in about 1 %,
 * `w1999` in about 0.1 %; one message in 50,000 also carries `needle` (rare across every business).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { createWorkspace } from '../harness/fixtures.ts';
import { closedLoop, describeFailures, type LoadResult, type Request } from '../harness/http-load.ts';
import { root } from '../harness/processes.ts';
import { size, type Row } from '../harness/row.ts';
import { percentile } from '../harness/stats.ts';
import { result } from '../harness/table.ts';

export type SearchScale = { messages: number; total: number };

const PER_CONVERSATION = 10;
const NOISE_BUSINESSES = 4;

/** Conversations (with customers) and messages of one business, in batches so no statement holds gigabytes. */
async function seedBusiness(pool: pg.Pool, businessId: string, messages: number): Promise<void> {
  const conversations = Math.max(1, Math.round(messages / PER_CONVERSATION));
  const batch = 20_000;
  for (let from = 0; from < conversations; from += batch) {
    const count = Math.min(batch, conversations - from);
    await pool.query(
      `with cu as (
         insert into customers (business_id, name, email, phone, created_at)
         select $1, 'Customer ' || n || case when n % 1000 = 7 then ' Kowalczyk' else '' end, 'person' || n || '@mail' || (n % 97) || '.test',
                '+1 (555) ' || lpad((n % 1000)::text, 3, '0') || '-' || lpad(n::text, 6, '0'),
                now() - make_interval(secs => random() * 365 * 86400)
         from generate_series($2::int, $2::int + $3::int - 1) n
         returning id, created_at)
       insert into conversations (business_id, customer_id, channel_type, status, created_at, updated_at, last_message_at)
       select $1, cu.id, 'webchat', 'resolved', cu.created_at, cu.created_at + interval '30 minutes', cu.created_at + interval '30 minutes' from cu`,
      [businessId, from, count],
    );
  }
  await pool.query(
    `insert into messages (business_id, conversation_id, sender_type, content, created_at, updated_at)
     select c.business_id, c.id, case when g % 2 = 1 then 'customer' else 'agent' end,
            (select string_agg('w' || floor(2000 * power(random(), 3))::int, ' ') from generate_series(1, 8) k where g > 0)
              || case when random() < 0.00002 then ' needle' else '' end,
            c.created_at + g * interval '3 minutes', c.created_at + g * interval '3 minutes'
     from conversations c, generate_series(1, ${PER_CONVERSATION}) g
     where c.business_id = $1
     -- stored in time order, as messages arrive
     order by c.created_at + g * interval '3 minutes'`,
    [businessId],
  );
}

/** The measured business's history and the other businesses sharing the tables. */
export async function seedSearch(pool: pg.Pool, businessId: string, scale: SearchScale): Promise<void> {
  await seedBusiness(pool, businessId, scale.messages);
  const noise = Math.max(0, scale.total - scale.messages);
  for (let i = 0; i < NOISE_BUSINESSES && noise > 0; i++) {
    const owner = await pool.query<{ id: string }>(`insert into users (email, full_name) values ($1, 'Noise') returning id`, [
      `search-noise${i}-${businessId}@bench.test`,
    ]);
    const b = await pool.query<{ id: string }>(`insert into businesses (name, owner_id) values ('Noise', $1) returning id`, [owner.rows[0]!.id]);
    await seedBusiness(pool, b.rows[0]!.id, Math.floor(noise / NOISE_BUSINESSES));
  }
  for (const table of ['customers', 'conversations', 'messages']) await pool.query(`vacuum analyze ${table}`);
}

/** The queries measured, from very common words to a unique one, and partial customer fields. */
export const SEARCH_QUERIES: { type: string; q: string }[] = [
  { type: 'messages', q: 'w0' },
  { type: 'messages', q: 'w100' },
  { type: 'messages', q: 'w1999' },
  { type: 'messages', q: 'needle' },
  { type: 'messages', q: 'w3 w40' },
  { type: 'messages', q: '"w0 w1"' },
  { type: 'conversations', q: 'w100' },
  { type: 'conversations', q: 'needle' },
  { type: 'customers', q: 'kowalcz' },
  { type: 'customers', q: 'person4242@' },
  { type: 'customers', q: '555 004' },
];

/** Each query's p50 and max over its own requests (request i ran SEARCH_QUERIES[i % length]), and the p50's ratio to the baseline's. */
function perQuery(load: LoadResult, baselineP50: number): string[] {
  return SEARCH_QUERIES.map(({ type, q }, k) => {
    const mine = load.latencies.filter((_, j) => (load.indices?.[j] ?? -1) % SEARCH_QUERIES.length === k);
    const p50 = percentile(mine, 50);
    return `${type} ${q}: ${p50.toFixed(1)} / ${Math.max(...mine).toFixed(1)} ms (${(p50 / baselineP50).toFixed(1)}×)`;
  });
}

export const search: Row = {
  id: 'search',
  run: async (stack) => {
    const scale: SearchScale = {
      messages: Number(process.env.SEARCH_BENCH_MESSAGES ?? size(stack, 1_000_000, 20_000)),
      total: Number(process.env.SEARCH_BENCH_TOTAL ?? size(stack, 5_000_000, 60_000)),
    };
    const runs = size(stack, 220, 22);
    const web = await stack.startWeb('search-web');
    let found: LoadResult;
    let floor: LoadResult;
    try {
      const workspace = await createWorkspace(stack, web, { channels: 0 });
      const seeding = performance.now();
      await seedSearch(stack.pool, workspace.businessId, scale);
      const seedSeconds = (performance.now() - seeding) / 1000;
      const plans: string[] = [];
      for (const { q } of SEARCH_QUERIES.filter((s) => s.type === 'messages')) {
        const { rows } = await stack.pool.query(
          `explain (analyze, buffers) select m.id from messages m
           where m.business_id = $1 and m.search_vector @@ websearch_to_tsquery('simple'::regconfig, $2)
           order by m.created_at desc, m.id desc limit 21`,
          [workspace.businessId, q],
        );
        plans.push(
          `=== messages: ${q}: the planner's own choice for the one-statement query (the endpoint bounds it instead: WALK_WINDOWS) ===`,
          ...rows.map((r) => r['QUERY PLAN'] as string),
          '',
        );
      }
      writeFileSync(path.join(root, 'bench', 'results', 'search-plan.txt'), plans.join('\n'));
      const get = (i: number): Request => {
        const { type, q } = SEARCH_QUERIES[i % SEARCH_QUERIES.length]!;
        return { method: 'GET', path: `/api/v1/search?type=${type}&q=${encodeURIComponent(q)}`, headers: { authorization: `Bearer ${workspace.token}` } };
      };
      const sequential = (make: (i: number) => Request) => closedLoop(web.url, { concurrency: 1, count: runs, maxMs: 600_000, make });
      await sequential(get);
      found = await sequential(get);
      floor = await sequential(() => ({ method: 'GET', path: '/api/v1/auth/me', headers: { authorization: `Bearer ${workspace.token}` } }));
      const breakdown = perQuery(found, percentile(floor.latencies, 50));
      writeFileSync(path.join(root, 'bench', 'results', 'search-queries.txt'), `${breakdown.join('\n')}\n`);
      process.stderr.write(
        `search, per query (p50 / max of its requests, × GET /auth/me p50 ${percentile(floor.latencies, 50).toFixed(2)} ms):\n${breakdown.join('\n')}\n`,
      );
      const note = [
        `${runs} requests one at a time (after as many to warm up) cycling ${SEARCH_QUERIES.length} queries (messages, conversations, customers; common to unique words, partial names, e-mails, phone digits)`,
        `p99 ${percentile(found.latencies, 99).toFixed(1)} ms (GET /auth/me p99 ${percentile(floor.latencies, 99).toFixed(1)} ms)`,
        `seeded in ${seedSeconds.toFixed(0)} s; plans in bench/results/search-plan.txt`,
        `per query, p50 / max (× GET /auth/me p50): ${breakdown.join('; ')}`,
        describeFailures(found.failures),
      ]
        .filter(Boolean)
        .join('; ');
      return [
        result(
          {
            name: `search, ${scale.messages} messages of one business among ${scale.total}: p50`,
            figure: percentile(found.latencies, 50),
            unit: 'ms',
            baseline: percentile(floor.latencies, 50),
            baselineLabel: 'GET /auth/me',
            goal: { text: '≤ 30 ms', met: (r) => r.figure <= 30 && found.ok === runs },
            note,
          },
          !stack.quick,
        ),
        result(
          {
            name: `search, ${scale.messages} messages of one business among ${scale.total}: p99`,
            figure: percentile(found.latencies, 99),
            unit: 'ms',
            baseline: percentile(floor.latencies, 99),
            baselineLabel: 'GET /auth/me',
            goal: { text: '≤ 100 ms', met: (r) => r.figure <= 100 && found.ok === runs },
          },
          !stack.quick,
        ),
      ];
    } finally {
      await web.child.stop();
    }
  },
};
