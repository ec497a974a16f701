/**
 * Analytics overview (folds in the former `bench/analytics.ts`): one business with 100,000
 * conversations (created over 45 days, so two thirds fall in the 30-day window) and 1,000,000
 * messages, among 200,000 conversations of four other businesses, seeded in SQL; then
 * `GET /api/v1/analytics/overview` one request at a time against `parley web`. Baseline:
 * `GET /api/v1/auth/me` on the same process. Goal: p50 ≤ 50 ms. The EXPLAIN ANALYZE of the
 * overview's statement goes to bench/results/analytics-plan.txt for whoever tunes it.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { overviewQueries } from '../../core/domain/analytics.ts';
import { createWorkspace } from '../harness/fixtures.ts';
import { closedLoop, describeFailures, type LoadResult, type Request } from '../harness/http-load.ts';
import { root } from '../harness/processes.ts';
import { size, type Row } from '../harness/row.ts';
import { percentile } from '../harness/stats.ts';
import { result } from '../harness/table.ts';

type Scale = { conversations: number; messagesPer: number; noise: number };

/** The business's team, conversations and messages, and noise businesses sharing the tables. */
async function seed(pool: pg.Pool, businessId: string, scale: Scale): Promise<void> {
  await pool.query(
    `with u as (
       insert into users (email, full_name) select 'agent' || g || '-' || $1::text || '@bench.test', 'Agent ' || g from generate_series(2, 6) g returning id)
     insert into team_members (business_id, user_id, role, status, agent_number)
     select $1::uuid, u.id, 'agent', (array['live', 'away', 'offline'])[1 + (row_number() over () % 3)::int], 1 + row_number() over ()
     from u`,
    [businessId],
  );
  await pool.query(
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
    [businessId, scale.conversations],
  );
  await pool.query(
    `insert into messages (business_id, conversation_id, sender_type, content, created_at, updated_at)
     select c.business_id, c.id, case when g % 2 = 1 then 'customer' else 'agent' end, 'Seeded message ' || g, t, t
     from conversations c, generate_series(1, $2::int) g, lateral (select c.created_at + g * interval '3 minutes' as t) x
     where c.business_id = $1`,
    [businessId, scale.messagesPer],
  );
  const owners = await pool.query<{ id: string }>(
    `insert into users (email, full_name) select 'noise' || g || '-' || $1::text || '@bench.test', 'Noise ' || g from generate_series(1, 4) g returning id`,
    [businessId],
  );
  for (const { id } of owners.rows) {
    const b = await pool.query<{ id: string }>(`insert into businesses (name, owner_id) values ('Noise', $1) returning id`, [id]);
    await pool.query(
      `insert into conversations (business_id, channel_type, status, created_at, updated_at, resolved_at)
       select $1, 'webchat', case when random() < 0.5 then 'open' else 'resolved' end, t, t, t + interval '1 hour'
       from (select now() - make_interval(secs => random() * 45 * 86400) as t from generate_series(1, $2::int)) g`,
      [b.rows[0]!.id, Math.floor(scale.noise / owners.rows.length)],
    );
  }
  for (const table of ['conversations', 'messages', 'team_members', 'users']) await pool.query(`vacuum analyze ${table}`);
}

/** EXPLAIN (ANALYZE, BUFFERS) of exactly the statements the endpoint runs. */
async function explain(pool: pg.Pool, businessId: string): Promise<string> {
  const out: string[] = [];
  for (const [key, query] of Object.entries(overviewQueries(businessId))) {
    // slonik numbers its placeholders $slonik_N; pg wants $N.
    const text = query.sql.replace(/\$slonik_(\d+)/g, '$$$1');
    const { rows } = await pool.query(`explain (analyze, buffers) ${text}`, [...query.values]);
    out.push(`=== ${key} ===`, ...rows.map((r) => r['QUERY PLAN'] as string), '');
  }
  return out.join('\n');
}

export const analytics: Row = {
  id: 'analytics',
  run: async (stack) => {
    const scale: Scale = { conversations: size(stack, 100_000, 2_000), messagesPer: 10, noise: size(stack, 200_000, 4_000) };
    const runs = size(stack, 50, 10);
    const web = await stack.startWeb('analytics-web');
    let overview: LoadResult;
    let floor: LoadResult;
    try {
      const workspace = await createWorkspace(stack, web, { channels: 0 });
      const seeding = performance.now();
      await seed(stack.pool, workspace.businessId, scale);
      const seedSeconds = (performance.now() - seeding) / 1000;
      writeFileSync(path.join(root, 'bench', 'results', 'analytics-plan.txt'), await explain(stack.pool, workspace.businessId));
      const get = (p: string): Request => ({ method: 'GET', path: p, headers: { authorization: `Bearer ${workspace.token}` } });
      const sequential = (p: string) => closedLoop(web.url, { concurrency: 1, count: runs, maxMs: 300_000, make: () => get(p) });
      await sequential('/api/v1/analytics/overview');
      overview = await sequential('/api/v1/analytics/overview');
      floor = await sequential('/api/v1/auth/me');
      return [
        result(
          {
            name: `analytics overview, ${scale.conversations} conversations / ${scale.conversations * scale.messagesPer} messages: p50`,
            figure: percentile(overview.latencies, 50),
            unit: 'ms',
            baseline: percentile(floor.latencies, 50),
            baselineLabel: 'GET /auth/me',
            goal: { text: '≤ 50 ms', met: (r) => r.figure <= 50 && overview.ok === runs },
            note: [
              `${runs} requests one at a time after as many to warm up, p99 ${percentile(overview.latencies, 99).toFixed(1)} ms; ${scale.noise} conversations of other businesses; seeded in ${seedSeconds.toFixed(0)} s; plan in bench/results/analytics-plan.txt`,
              describeFailures(overview.failures),
            ]
              .filter(Boolean)
              .join('; '),
          },
          !stack.quick,
        ),
      ];
    } finally {
      await web.child.stop();
    }
  },
};
