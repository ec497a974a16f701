/**
 * Reports (issue #18 item 6): one business with 100,000 conversations created over the last 90
 * days (five agents, five channel types, ten labels on about half of them, a CSAT survey for
 * each resolved one, two in five rated, and some 230,000 settled SLA targets under three
 * policies), among 100,000 conversations of four other businesses, seeded in SQL; then each of
 * `GET /api/v1/reports/{overview,agents,channels,labels,csat,sla}` over the last 90 days in
 * Europe/Berlin, one request at a time against `parley web`, and the four time reports again
 * with business hours on (Mon–Fri 09:00–17:00 Berlin: times in open time). Baseline:
 * `GET /api/v1/auth/me` on the same process. Goal: each report's p50 ≤ 100 ms. The EXPLAIN
 * ANALYZE of every report's statement goes to bench/results/reports-plan.txt.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { addDays, REPORT_SETTINGS, reportKinds, reportQueries, timeReportKinds, type ReportRange } from '../../core/domain/reports.ts';
import { csatQuery } from '../../core/domain/report-csat.ts';
import { slaQueries } from '../../core/domain/report-sla.ts';
import { localDate, type Hours } from '../../core/domain/business-hours.ts';
import { createWorkspace } from '../harness/fixtures.ts';
import { closedLoop, describeFailures, type LoadResult, type Request } from '../harness/http-load.ts';
import { root } from '../harness/processes.ts';
import { size, type Row } from '../harness/row.ts';
import { percentile } from '../harness/stats.ts';
import { result } from '../harness/table.ts';

type Scale = { conversations: number; noise: number };

export async function seed(pool: pg.Pool, businessId: string, scale: Scale): Promise<void> {
  await pool.query(
    `with u as (
       insert into users (email, full_name) select 'rep' || g || '-' || $1::text || '@bench.test', 'Agent ' || g from generate_series(2, 6) g returning id)
     insert into team_members (business_id, user_id, role, status, agent_number)
     select $1::uuid, u.id, 'agent', 'live', 1 + row_number() over () from u`,
    [businessId],
  );
  await pool.query(`insert into labels (business_id, name, color) select $1, 'label ' || g, '#336699' from generate_series(1, 10) g`, [businessId]);
  // Business hours on while the conversations are seeded, so the durations in business hours are
  // stored as when they are decided (migration 0117), then off until the second pass (set before
  // any policy exists: no SLA refresh is armed).
  await pool.query(`insert into business_hours (business_id, enabled, timezone, week) values ($1, true, 'Europe/Berlin', $2)`, [
    businessId,
    JSON.stringify(OFFICE.week),
  ]);
  await pool.query(
    `insert into conversations (business_id, channel_type, status, created_at, updated_at, first_response_at, resolved_at, resolved_by, assignee_id)
     select $1, ch, st, created, created,
            case when random() < 0.85 then created + make_interval(secs => 30 + random() * 7200) end,
            case when st = 'resolved' then created + make_interval(secs => 600 + random() * 259200) end,
            case when st = 'resolved' then agent end,
            case when random() < 0.9 then agent end
     from (
       select now() - make_interval(secs => random() * 90 * 86400) as created,
              (array['webchat', 'widget', 'whatsapp', 'telegram', 'email'])[1 + floor(random() * 5)::int] as ch,
              case when r < 0.20 then 'open' when r < 0.25 then 'pending' when r < 0.85 then 'resolved' else 'closed' end as st,
              agents[1 + floor(random() * array_length(agents, 1))::int] as agent
       from (select random() as r from generate_series(1, $2::int)) g,
            (select array_agg(user_id) as agents from team_members where business_id = $1) a
     ) s`,
    [businessId, scale.conversations],
  );
  // About half the conversations carry a label, a tenth of them a second one.
  await pool.query(
    `insert into conversation_labels (business_id, conversation_id, label_id)
     select $1, c.id, l.ids[1 + (c.pick + k) % 10]
     from (select id, random() as r, floor(random() * 10)::int as pick from conversations where business_id = $1) c
     cross join (select array_agg(id) as ids from labels where business_id = $1) l
     cross join generate_series(0, 1) k
     where c.r < 0.5 and (k = 0 or c.r < 0.05)`,
    [businessId],
  );
  const owners = await pool.query<{ id: string }>(
    `insert into users (email, full_name) select 'rnoise' || g || '-' || $1::text || '@bench.test', 'Noise ' || g from generate_series(1, 4) g returning id`,
    [businessId],
  );
  for (const { id } of owners.rows) {
    const b = await pool.query<{ id: string }>(`insert into businesses (name, owner_id) values ('Noise', $1) returning id`, [id]);
    await pool.query(
      `insert into conversations (business_id, channel_type, status, created_at, updated_at, first_response_at, resolved_at)
       select $1, 'webchat', case when random() < 0.5 then 'open' else 'resolved' end, t, t, t + interval '1 minute', t + interval '1 hour'
       from (select now() - make_interval(secs => random() * 90 * 86400) as t from generate_series(1, $2::int)) g`,
      [b.rows[0]!.id, Math.floor(scale.noise / owners.rows.length)],
    );
  }
  // A CSAT survey for each resolved conversation, asked a minute after; two in five rated within a day.
  await pool.query(
    `insert into csat_surveys (business_id, conversation_id, token, question, asked_at, rating, rated_at)
     select $1, c.id, md5(c.id::text), 'How did we do?', c.resolved_at + interval '1 minute', r.rating,
            case when r.rating is not null then c.resolved_at + make_interval(secs => 60 + random() * 86400) end
     from conversations c, lateral (select case when random() < 0.4 then 1 + floor(random() * 5)::int end as rating, c.id as cid) r
     where c.business_id = $1 and c.resolved_at is not null`,
    [businessId],
  );
  // Three SLA policies and the settled targets: first response (due in an hour), resolution (a
  // day), and one or two next-response cycles for half the conversations.
  await pool.query(`insert into sla_policies (business_id, name, first_response_minutes) select $1, n, 60 from unnest(array['Gold', 'Silver', 'Bronze']) n`, [
    businessId,
  ]);
  await pool.query(
    `with p as (select array_agg(id) as ids from sla_policies where business_id = $1),
     c as (select c.*, p.ids[1 + floor(random() * 3)::int] as policy from conversations c, p where c.business_id = $1),
     t as (
       select c.id, c.policy, 'first_response' as target, c.created_at as started, c.created_at + interval '1 hour' as due, c.first_response_at as met from c where c.first_response_at is not null
       union all
       select c.id, c.policy, 'resolution', c.created_at, c.created_at + interval '1 day', c.resolved_at from c where c.resolved_at is not null
       union all
       select c.id, c.policy, 'next_response', s, s + interval '2 hours', s + make_interval(secs => random() * 10800)
       from c, lateral (select c.created_at + make_interval(secs => 3600 * k + random() * 1800) as s from generate_series(1, 1 + (random() < 0.3)::int) k) x
       where c.first_response_at is not null and random() < 0.5 and c.created_at < now() - interval '1 day'
     )
     insert into sla_results (business_id, conversation_id, sla_policy_id, target, started_at, due_at, met_at, hit, settled_at)
     select $1, id, policy, target, started, due, met, met <= due, case when met <= due then met else due end from t
     on conflict do nothing`,
    [businessId],
  );
  await switchHours(pool, businessId, false);
  for (const table of ['conversations', 'conversation_labels', 'labels', 'team_members', 'users', 'csat_surveys', 'sla_results']) {
    await pool.query(`vacuum analyze ${table}`);
  }
}

const nineToFive = [{ open: '09:00', close: '17:00' }];
/** The second pass's hours: Mon–Fri 09:00–17:00 in Berlin. */
const OFFICE: Hours = {
  timezone: 'Europe/Berlin',
  week: { mon: nineToFive, tue: nineToFive, wed: nineToFive, thu: nineToFive, fri: nineToFive },
  holidays: [],
};

/** Hours on or off without the trigger that re-arms SLA refreshes of every open conversation (no worker runs here). */
async function switchHours(pool: pg.Pool, businessId: string, enabled: boolean): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query('set local session_replication_role = replica');
    await client.query('update business_hours set enabled = $2 where business_id = $1', [businessId, enabled]);
    await client.query('commit');
  } finally {
    client.release();
  }
}

export async function explain(pool: pg.Pool, businessId: string, range: ReportRange): Promise<string> {
  const out: string[] = [];
  const statements = {
    ...reportQueries(businessId, range),
    ...Object.fromEntries(Object.entries(reportQueries(businessId, range, 'business_hours')).map(([k, q]) => [`${k} (business hours)`, q])),
    csat: csatQuery(businessId, range),
    'sla cells': slaQueries(businessId, range).cells,
  };
  const client = await pool.connect();
  try {
    for (const [key, query] of Object.entries(statements)) {
      const text = query.sql.replace(/\$slonik_(\d+)/g, '$$$1');
      // Under the settings the endpoint runs them with (no JIT, more work_mem).
      await client.query('begin');
      await client.query(REPORT_SETTINGS.sql);
      const { rows } = await client.query(`explain (analyze, buffers) ${text}`, [...query.values]);
      await client.query('rollback');
      out.push(`=== ${key} ===`, ...rows.map((r) => r['QUERY PLAN'] as string), '');
    }
  } finally {
    client.release();
  }
  return out.join('\n');
}

export const reports: Row = {
  id: 'reports',
  run: async (stack) => {
    const scale: Scale = { conversations: size(stack, 100_000, 2_000), noise: size(stack, 100_000, 2_000) };
    const runs = size(stack, 50, 10);
    const tz = 'Europe/Berlin';
    const to = localDate(new Date(), tz);
    const range: ReportRange = { from: addDays(to, -89), to, tz };
    const web = await stack.startWeb('reports-web');
    try {
      const workspace = await createWorkspace(stack, web, { channels: 0 });
      const seeding = performance.now();
      await seed(stack.pool, workspace.businessId, scale);
      const seedSeconds = (performance.now() - seeding) / 1000;
      writeFileSync(path.join(root, 'bench', 'results', 'reports-plan.txt'), await explain(stack.pool, workspace.businessId, range));
      const get = (p: string): Request => ({ method: 'GET', path: p, headers: { authorization: `Bearer ${workspace.token}` } });
      const sequential = (p: string) => closedLoop(web.url, { concurrency: 1, count: runs, maxMs: 300_000, make: () => get(p) });
      const query = `?from=${range.from}&to=${range.to}&tz=${encodeURIComponent(tz)}`;
      const measured: [string, LoadResult][] = [];
      const measure = async (kind: string, label: string) => {
        await sequential(`/api/v1/reports/${kind}${query}`);
        measured.push([label, await sequential(`/api/v1/reports/${kind}${query}`)]);
      };
      for (const kind of reportKinds) await measure(kind, kind);
      // The time reports again with business hours on: the durations stored when they were decided.
      await switchHours(stack.pool, workspace.businessId, true);
      const check = await fetch(`${web.url}/api/v1/reports/overview${query}`, { headers: { authorization: `Bearer ${workspace.token}` } });
      const basis = ((await check.json()) as { time_basis?: string }).time_basis;
      if (basis !== 'business_hours') throw new Error(`reports: business hours on, but the overview answers time_basis ${basis}`);
      for (const kind of timeReportKinds) await measure(kind, `${kind} in business hours`);
      const floor = await sequential('/api/v1/auth/me');
      return measured.map(([kind, load]) =>
        result(
          {
            name: `report ${kind}, 90 days of ${scale.conversations} conversations: p50`,
            figure: percentile(load.latencies, 50),
            unit: 'ms',
            baseline: percentile(floor.latencies, 50),
            baselineLabel: 'GET /auth/me',
            goal: { text: '≤ 100 ms', met: (r) => r.figure <= 100 && load.ok === runs },
            note: [
              `${runs} requests one at a time after as many to warm up, p99 ${percentile(load.latencies, 99).toFixed(1)} ms (GET /auth/me p99 ${percentile(floor.latencies, 99).toFixed(1)} ms); ${scale.noise} conversations of other businesses; seeded in ${seedSeconds.toFixed(0)} s; plans in bench/results/reports-plan.txt`,
              describeFailures(load.failures),
            ]
              .filter(Boolean)
              .join('; '),
          },
          !stack.quick,
        ),
      );
    } finally {
      await web.child.stop();
    }
  },
};
