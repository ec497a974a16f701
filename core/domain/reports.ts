/**
 * Reports (docs/decisions.md#reports): conversations opened and resolved, first response time
 * and resolution time (median and 90th percentile, PostgreSQL `percentile_cont`; calendar
 * seconds, or in business hours the seconds stored when each was decided), for a range of local days in the caller's IANA time zone: the whole
 * range and each day (overview), or per agent, per channel type, per label.
 *
 * Two cohorts, each one range scan of a covering index (migration 0098):
 * - **opened**: conversations whose `created_at` falls in the range
 *   (conversations_business_created_idx); their first response time is
 *   `first_response_at − created_at` over those that have one.
 * - **resolved**: conversations whose `resolved_at` falls in the range
 *   (conversations_business_resolved_idx); their resolution time is `resolved_at − created_at`.
 *   A reopened conversation loses its `resolved_at`, so it counts again only when resolved again.
 *
 * The range is `[from 00:00, to + 1 day 00:00)` in `tz`, computed by PostgreSQL (DST-correct: a
 * day is 23 or 25 hours when the clocks change), and a conversation's day is its local date.
 */
import { z } from 'zod';
import { CUSTOM_PLANS, sql, type Queryable } from '../adapters/postgres/db.ts';
import { localDate, type Hours } from './business-hours.ts';
import { hasShifts } from './working-time.ts';

/** The reports of response and resolution times (this file); csat and sla have files of their own. */
export const timeReportKinds = ['overview', 'agents', 'channels', 'labels'] as const;
export type TimeReportKind = (typeof timeReportKinds)[number];
export const reportKinds = [...timeReportKinds, 'csat', 'sla'] as const;
export type ReportKind = (typeof reportKinds)[number];

/**
 * How the times were measured: `business_hours` (only the time the team is open counts) when
 * the business's hours are on and have shifts, else `calendar`.
 */
export type TimeBasis = 'business_hours' | 'calendar';

/** The longest range a report covers, in days (both ends included). */
export const MAX_REPORT_DAYS = 366;
/** The default range when `from`/`to` are left out: the last 30 local days, today included. */
export const DEFAULT_REPORT_DAYS = 30;

export type ReportRange = { from: string; to: string; tz: string };

/** The figures every report row carries. Times in whole seconds; null when there is no sample. */
export type Figures = {
  opened: number;
  resolved: number;
  first_response_median: number | null;
  first_response_p90: number | null;
  resolution_median: number | null;
  resolution_p90: number | null;
};

type Measured = ReportRange & { time_basis: TimeBasis };
export type OverviewReport = Measured & { totals: Figures; days: (Figures & { date: string })[] };
export type AgentRow = Figures & { user_id: string | null; name: string };
export type ChannelRow = Figures & { channel_type: string };
export type LabelRow = Figures & { label_id: string; name: string; color: string };
export type AgentsReport = Measured & { rows: AgentRow[] };
export type ChannelsReport = Measured & { rows: ChannelRow[] };
export type LabelsReport = Measured & { rows: LabelRow[] };

const DAY_MS = 86_400_000;

/** A calendar date `YYYY-MM-DD` that exists (no 2026-02-30). */
export function isIsoDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === value;
}

/** Days from `from` to `to`, both included (1 for a single day; ≤ 0 when `to` is before `from`). */
export function daysInRange(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}

/** The zone's canonical spelling (`europe/berlin` → `Europe/Berlin`), as Node's ICU names it. */
export function canonicalTimeZone(name: string): string {
  return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
}

/**
 * The range a request asks for, with the defaults filled in: `tz` UTC; without `from` and
 * `to`, the 30 local days up to today; with `to` only, the 30 days up to it; with `from` only,
 * up to today but at most 30 days. Inputs are already validated (see the route's schema).
 */
export function resolveRange(input: { from?: string; to?: string; tz?: string }, now = new Date()): ReportRange {
  const tz = input.tz ? canonicalTimeZone(input.tz) : 'UTC';
  const to = input.to ?? (input.from ? maxDate(input.from, localDate(now, tz), DEFAULT_REPORT_DAYS) : localDate(now, tz));
  const from = input.from ?? addDays(to, -(DEFAULT_REPORT_DAYS - 1));
  return { from, to, tz };
}

/** `today`, but no later than the end of a `days`-day range starting at `from`. */
function maxDate(from: string, today: string, days: number): string {
  const last = addDays(from, days - 1);
  return today < from ? from : today > last ? last : today;
}

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

const figuresRow = {
  opened: z.number(),
  resolved: z.number(),
  first_response_median: z.number().nullable(),
  first_response_p90: z.number().nullable(),
  resolution_median: z.number().nullable(),
  resolution_p90: z.number().nullable(),
};

const overviewRow = z.object({ date: z.string().nullable(), ...figuresRow });
const agentRow = z.object({ user_id: z.string().nullable(), name: z.string(), ...figuresRow });
const channelRow = z.object({ channel_type: z.string(), ...figuresRow });
const labelRow = z.object({ label_id: z.string(), name: z.string(), color: z.string(), ...figuresRow });

/** The start of local day `date` in `tz`, as PostgreSQL computes it (an index bound). */
export const dayStart = (date: string, tz: string) => sql.fragment`((${date}::date)::timestamp at time zone ${tz})`;

type Fragment = ReturnType<typeof sql.fragment>;

/**
 * Median and 90th percentile of an array of seconds (`percentile_cont`, interpolated): a
 * float8[2], null for an empty or null array.
 */
const percentiles = (array: Fragment) => sql.fragment`(select percentile_cont(array[0.5, 0.9]) within group (order by v) from unnest(${array}) v)`;

/**
 * How a report measures time: calendar seconds from the timestamps, or in business hours the open
 * seconds stored when each duration was decided (migration 0117: the schedule then in force),
 * calendar seconds where none was stored (no hours were on then).
 */
function measure(basis: TimeBasis) {
  const calendar = (from: Fragment, to: Fragment) => sql.fragment`date_part('epoch', ${to} - ${from})`;
  if (basis === 'calendar') {
    return {
      firstResponse: calendar(sql.fragment`c.created_at`, sql.fragment`c.first_response_at`),
      resolution: calendar(sql.fragment`c.created_at`, sql.fragment`c.resolved_at`),
    };
  }
  return {
    firstResponse: sql.fragment`coalesce(c.first_response_business_seconds, ${calendar(sql.fragment`c.created_at`, sql.fragment`c.first_response_at`)})`,
    resolution: sql.fragment`coalesce(c.resolution_business_seconds, ${calendar(sql.fragment`c.created_at`, sql.fragment`c.resolved_at`)})`,
  };
}

/** First response seconds of conversation `c` (null without a reply: left out of the percentiles). */
const firstResponseOf = (m: ReturnType<typeof measure>) => m.firstResponse;
const resolutionOf = (m: ReturnType<typeof measure>) => m.resolution;

/**
 * The two cohorts grouped by `key` (over `c`), as CTEs `o` and `r` of
 * (k, n, p): hashed grouping with the seconds gathered per group, then each group's percentiles
 * over its own small array, so no sort of the whole range by the key is needed.
 */
function cohortsBy(businessId: string, range: ReportRange, m: ReturnType<typeof measure>, opts: { openedKey: Fragment; resolvedKey: Fragment }) {
  const lo = dayStart(range.from, range.tz);
  const hi = dayStart(addDays(range.to, 1), range.tz);
  return sql.fragment`
    o as (
      select k, n, ${percentiles(sql.fragment`a`)} as p
      from (select ${opts.openedKey} as k, count(*) as n, array_agg(${firstResponseOf(m)}) filter (where c.first_response_at is not null) as a
            from conversations c
            where c.business_id = ${businessId} and c.created_at >= ${lo} and c.created_at < ${hi}
            group by 1) g
    ),
    r as (
      select k, n, ${percentiles(sql.fragment`a`)} as p
      from (select ${opts.resolvedKey} as k, count(*) as n, array_agg(${resolutionOf(m)}) as a
            from conversations c
            where c.business_id = ${businessId} and c.resolved_at >= ${lo} and c.resolved_at < ${hi}
            group by 1) g
    )`;
}

/** The figure columns from the joined `o` and `r` (numeric round(): halves away from zero). */
const figureColumns = sql.fragment`
  coalesce(o.n, 0)::int as opened,
  coalesce(r.n, 0)::int as resolved,
  round(o.p[1]::numeric)::float8 as first_response_median,
  round(o.p[2]::numeric)::float8 as first_response_p90,
  round(r.p[1]::numeric)::float8 as resolution_median,
  round(r.p[2]::numeric)::float8 as resolution_p90`;

/** Every report's statement, exported so the benchmark can EXPLAIN exactly what runs. */
export function reportQueries(businessId: string, range: ReportRange, basis: TimeBasis = 'calendar') {
  const m = measure(basis);
  const lo = dayStart(range.from, range.tz);
  const hi = dayStart(addDays(range.to, 1), range.tz);
  return {
    /*
     * By day: each local day is its own index range scan (its bounds computed once, not a time
     * zone conversion per conversation), gathering the day's count and seconds; the days'
     * percentiles come from their arrays and the range's from all of them together.
     */
    overview: sql.type(overviewRow)`
      with d as (
        select g::date as day,
               (g::date::timestamp at time zone ${range.tz}) as lo,
               ((g::date + 1)::timestamp at time zone ${range.tz}) as hi
        from generate_series(${range.from}::date, ${range.to}::date, interval '1 day') g
      ),
      od as (
        select d.day, x.n, x.a from d cross join lateral (
          select count(*) as n, array_agg(${firstResponseOf(m)}) filter (where c.first_response_at is not null) as a
          from conversations c
          where c.business_id = ${businessId} and c.created_at >= d.lo and c.created_at < d.hi) x
      ),
      rd as (
        select d.day, x.n, x.a from d cross join lateral (
          select count(*) as n, array_agg(${resolutionOf(m)}) as a
          from conversations c
          where c.business_id = ${businessId} and c.resolved_at >= d.lo and c.resolved_at < d.hi) x
      ),
      days as (
        select od.day, od.n as o_n, ${percentiles(sql.fragment`od.a`)} as o_p, rd.n as r_n, ${percentiles(sql.fragment`rd.a`)} as r_p
        from od join rd on rd.day = od.day
      ),
      total as (
        select (select sum(n) from od) as o_n,
               (select percentile_cont(array[0.5, 0.9]) within group (order by v) from od, unnest(od.a) v) as o_p,
               (select sum(n) from rd) as r_n,
               (select percentile_cont(array[0.5, 0.9]) within group (order by v) from rd, unnest(rd.a) v) as r_p
      )
      select date, ${figureColumns}
      from (
        select null::text, 0, t.o_n, t.o_p, t.r_n, t.r_p from total t
        union all
        select to_char(day, 'YYYY-MM-DD'), 1, o_n, o_p, r_n, r_p from days
      ) x(date, pos, o_n, o_p, r_n, r_p),
      lateral (select x.o_n as n, x.o_p as p) o,
      lateral (select x.r_n as n, x.r_p as p) r
      order by pos, date`,
    agents: sql.type(agentRow)`
      with ${cohortsBy(businessId, range, m, { openedKey: sql.fragment`c.assignee_id`, resolvedKey: sql.fragment`c.resolved_by` })},
      people as (
        select k from o union select k from r
        union select m.user_id from team_members m where m.business_id = ${businessId} and m.is_active
      )
      select p.k as user_id, coalesce(u.full_name, case when p.k is null then 'Unassigned' else 'Former member' end) as name, ${figureColumns}
      from people p
      left join users u on u.id = p.k
      left join o on o.k is not distinct from p.k
      left join r on r.k is not distinct from p.k
      where p.k is not null or o.n > 0 or r.n > 0
      order by p.k is null, name, p.k`,
    channels: sql.type(channelRow)`
      with ${cohortsBy(businessId, range, m, { openedKey: sql.fragment`c.channel_type`, resolvedKey: sql.fragment`c.channel_type` })}
      select coalesce(o.k, r.k) as channel_type, ${figureColumns}
      from o full join r on r.k = o.k
      order by coalesce(o.n, 0) desc, coalesce(r.n, 0) desc, channel_type`,
    /*
     * By label: one pass over the conversations of either cohort (created or resolved in the
     * range), each joined to its labels once (a hash of the business's conversation_labels),
     * then both cohorts' counts and seconds gathered per label. Two cohorts joined apart probed
     * the labels twice, 1.6 times as many rows (issue #39).
     */
    labels: sql.type(labelRow)`
      with j as (
        select cl.label_id as k,
               c.created_at >= ${lo} and c.created_at < ${hi} as opened,
               coalesce(c.resolved_at >= ${lo} and c.resolved_at < ${hi}, false) as resolved,
               c.first_response_at is not null as replied,
               ${firstResponseOf(m)} as fr,
               ${resolutionOf(m)} as res
        from conversations c
        join conversation_labels cl on cl.business_id = ${businessId} and cl.conversation_id = c.id
        where c.business_id = ${businessId}
          and (c.created_at >= ${lo} and c.created_at < ${hi} or c.resolved_at >= ${lo} and c.resolved_at < ${hi})
      ),
      g as (
        select k, count(*) filter (where opened) as o_n, array_agg(fr) filter (where opened and replied) as o_a,
               count(*) filter (where resolved) as r_n, array_agg(res) filter (where resolved) as r_a
        from j group by k
      ),
      o as (select k, o_n as n, ${percentiles(sql.fragment`o_a`)} as p from g),
      r as (select k, r_n as n, ${percentiles(sql.fragment`r_a`)} as p from g)
      select l.id as label_id, l.name, l.color, ${figureColumns}
      from labels l
      left join o on o.k = l.id
      left join r on r.k = l.id
      where l.business_id = ${businessId}
      order by lower(l.name), l.id`,
  };
}

const figuresOf = (row: Figures): Figures => ({
  opened: row.opened,
  resolved: row.resolved,
  first_response_median: row.first_response_median,
  first_response_p90: row.first_response_p90,
  resolution_median: row.resolution_median,
  resolution_p90: row.resolution_p90,
});

/**
 * Runs a report's statement in a transaction of its own, with the settings it is planned under
 * (REPORT_SETTINGS, one round trip): no JIT, whose compiling costs more than these statements
 * take (over half a second against some 70 ms at 100k conversations), room for the
 * percentiles' sorts in memory, and plans made for the range's values (CUSTOM_PLANS: planned
 * without them, the labels report probed conversation_labels once per conversation).
 */
export function analytic<T>(q: Queryable, run: (t: Queryable) => Promise<T>): Promise<T> {
  return q.transaction(async (t) => {
    await t.query(REPORT_SETTINGS);
    return run(t);
  });
}

/** The session settings of a report's transaction; exported so the benchmark EXPLAINs under them. */
export const REPORT_SETTINGS = sql.unsafe`select set_config('jit', 'off', true), set_config('work_mem', '32MB', true), ${CUSTOM_PLANS}`;

/**
 * How the business's times are measured: in business hours when its hours are on (`hours`, null
 * when off) and have a shift, else calendar time.
 */
export const timeBasisFor = (hours: Hours | null): TimeBasis => (hours && hasShifts(hours) ? 'business_hours' : 'calendar');

/** Runs `kind`'s statement under the business's time basis, in a transaction of its own. */
function measured<T>(
  q: Queryable,
  businessId: string,
  range: ReportRange,
  hours: Hours | null,
  run: (t: Queryable, queries: ReturnType<typeof reportQueries>) => Promise<readonly T[]>,
) {
  return analytic(q, async (t) => {
    const basis = timeBasisFor(hours);
    return { rows: await run(t, reportQueries(businessId, range, basis)), head: { ...range, time_basis: basis } };
  });
}

/** `hours`: the business's hours when they are on (times in business hours), else null. */
export async function overviewReport(q: Queryable, businessId: string, range: ReportRange, hours: Hours | null = null): Promise<OverviewReport> {
  const { rows, head } = await measured(q, businessId, range, hours, (t, r) => t.any(r.overview));
  const [totals, ...days] = rows;
  return { ...head, totals: figuresOf(totals!), days: days.map((d) => ({ date: d.date!, ...figuresOf(d) })) };
}

export async function agentsReport(q: Queryable, businessId: string, range: ReportRange, hours: Hours | null = null): Promise<AgentsReport> {
  const { rows, head } = await measured(q, businessId, range, hours, (t, r) => t.any(r.agents));
  return { ...head, rows: rows.map((r) => ({ user_id: r.user_id, name: r.name, ...figuresOf(r) })) };
}

export async function channelsReport(q: Queryable, businessId: string, range: ReportRange, hours: Hours | null = null): Promise<ChannelsReport> {
  const { rows, head } = await measured(q, businessId, range, hours, (t, r) => t.any(r.channels));
  return { ...head, rows: rows.map((r) => ({ channel_type: r.channel_type, ...figuresOf(r) })) };
}

export async function labelsReport(q: Queryable, businessId: string, range: ReportRange, hours: Hours | null = null): Promise<LabelsReport> {
  const { rows, head } = await measured(q, businessId, range, hours, (t, r) => t.any(r.labels));
  return { ...head, rows: rows.map((r) => ({ label_id: r.label_id, name: r.name, color: r.color, ...figuresOf(r) })) };
}

/** The time columns say their unit: `…_seconds`, or `…_business_seconds` when only open time counts. */
const figureHeaders = (basis: TimeBasis) => {
  const unit = basis === 'business_hours' ? 'business_seconds' : 'seconds';
  return ['opened', 'resolved', `first_response_median_${unit}`, `first_response_p90_${unit}`, `resolution_median_${unit}`, `resolution_p90_${unit}`];
};
const figureCells = (f: Figures) => [f.opened, f.resolved, f.first_response_median, f.first_response_p90, f.resolution_median, f.resolution_p90];

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote or line break. Text that a
 * spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR first) gets a leading `'`.
 */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export const csvLines = (rows: (string | number | null)[][]) => rows.map((cells) => cells.map(csvField).join(',')).join('\r\n') + '\r\n';

/** A report as CSV: a header line, then one line per row (overview: per day, then `total`). */
export function reportCsv(kind: TimeReportKind, report: OverviewReport | AgentsReport | ChannelsReport | LabelsReport): string {
  const headers = figureHeaders(report.time_basis);
  switch (kind) {
    case 'overview': {
      const r = report as OverviewReport;
      return csvLines([['date', ...headers], ...r.days.map((d) => [d.date, ...figureCells(d)]), ['total', ...figureCells(r.totals)]]);
    }
    case 'agents':
      return csvLines([['user_id', 'name', ...headers], ...(report as AgentsReport).rows.map((a) => [a.user_id ?? '', a.name, ...figureCells(a)])]);
    case 'channels':
      return csvLines([['channel_type', ...headers], ...(report as ChannelsReport).rows.map((c) => [c.channel_type, ...figureCells(c)])]);
    case 'labels':
      return csvLines([
        ['label_id', 'name', 'color', ...headers],
        ...(report as LabelsReport).rows.map((l) => [l.label_id, l.name, l.color, ...figureCells(l)]),
      ]);
  }
}

/** The download's file name: `parley-agents-2026-01-01-to-2026-01-31.csv`. */
export const reportFilename = (kind: ReportKind, range: ReportRange) => `parley-${kind}-${range.from}-to-${range.to}.csv`;
