/**
 * Reports (docs/decisions.md#reports): conversations opened and resolved, first response time
 * and resolution time (median and 90th percentile, calendar seconds, PostgreSQL
 * `percentile_cont`), for a range of local days in the caller's IANA time zone: the whole
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
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { localDate } from './business-hours.ts';

export const reportKinds = ['overview', 'agents', 'channels', 'labels'] as const;
export type ReportKind = (typeof reportKinds)[number];

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

export type OverviewReport = ReportRange & { totals: Figures; days: (Figures & { date: string })[] };
export type AgentRow = Figures & { user_id: string | null; name: string };
export type ChannelRow = Figures & { channel_type: string };
export type LabelRow = Figures & { label_id: string; name: string; color: string };
export type AgentsReport = ReportRange & { rows: AgentRow[] };
export type ChannelsReport = ReportRange & { rows: ChannelRow[] };
export type LabelsReport = ReportRange & { rows: LabelRow[] };

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
const dayStart = (date: string, tz: string) => sql.fragment`((${date}::date)::timestamp at time zone ${tz})`;

/**
 * The two cohorts, each grouped by `key` (a fragment over `c`, plus `join` for labels) with
 * grouping sets (`withTotal`: also the grand total, whose key is null and `total` true).
 */
function cohorts(businessId: string, range: ReportRange, opts: { openedKey: ReturnType<typeof sql.fragment>; resolvedKey: ReturnType<typeof sql.fragment>; join?: ReturnType<typeof sql.fragment>; withTotal?: boolean }) {
  const lo = dayStart(range.from, range.tz);
  const hi = dayStart(addDays(range.to, 1), range.tz);
  const join = opts.join ?? sql.fragment``;
  const sets = opts.withTotal ? sql.fragment`grouping sets ((k), ())` : sql.fragment`k`;
  const total = opts.withTotal ? sql.fragment`grouping(k) = 1` : sql.fragment`false`;
  return sql.fragment`
    o as (
      select k, ${total} as total, count(*) as n,
             -- percentile_cont skips nulls (conversations without a reply yet); null when none
             percentile_cont(array[0.5, 0.9]) within group (order by secs) as p
      from (select ${opts.openedKey} as k, date_part('epoch', c.first_response_at - c.created_at) as secs
            from conversations c ${join}
            where c.business_id = ${businessId} and c.created_at >= ${lo} and c.created_at < ${hi}) x
      group by ${sets}
    ),
    r as (
      select k, ${total} as total, count(*) as n,
             percentile_cont(array[0.5, 0.9]) within group (order by secs) as p
      from (select ${opts.resolvedKey} as k, date_part('epoch', c.resolved_at - c.created_at) as secs
            from conversations c ${join}
            where c.business_id = ${businessId} and c.resolved_at >= ${lo} and c.resolved_at < ${hi}) x
      group by ${sets}
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
export function reportQueries(businessId: string, range: ReportRange) {
  return {
    overview: sql.type(overviewRow)`
      with ${cohorts(businessId, range, { openedKey: sql.fragment`(c.created_at at time zone ${range.tz})::date`, resolvedKey: sql.fragment`(c.resolved_at at time zone ${range.tz})::date`, withTotal: true })},
      d as (
        select null::date as day, true as total
        union all
        select g::date, false from generate_series(${range.from}::date, ${range.to}::date, interval '1 day') g
      )
      select to_char(d.day, 'YYYY-MM-DD') as date, ${figureColumns}
      from d
      left join o on o.total = d.total and (d.total or o.k = d.day)
      left join r on r.total = d.total and (d.total or r.k = d.day)
      order by d.total desc, d.day`,
    agents: sql.type(agentRow)`
      with ${cohorts(businessId, range, { openedKey: sql.fragment`c.assignee_id`, resolvedKey: sql.fragment`c.resolved_by` })},
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
      with ${cohorts(businessId, range, { openedKey: sql.fragment`c.channel_type`, resolvedKey: sql.fragment`c.channel_type` })}
      select coalesce(o.k, r.k) as channel_type, ${figureColumns}
      from o full join r on r.k = o.k
      order by coalesce(o.n, 0) desc, coalesce(r.n, 0) desc, channel_type`,
    labels: sql.type(labelRow)`
      with ${cohorts(businessId, range, {
        openedKey: sql.fragment`cl.label_id`,
        resolvedKey: sql.fragment`cl.label_id`,
        join: sql.fragment`join conversation_labels cl on cl.business_id = ${businessId} and cl.conversation_id = c.id`,
      })}
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

export async function overviewReport(q: Queryable, businessId: string, range: ReportRange): Promise<OverviewReport> {
  const rows = await q.any(reportQueries(businessId, range).overview);
  const [totals, ...days] = rows;
  return { ...range, totals: figuresOf(totals!), days: days.map((d) => ({ date: d.date!, ...figuresOf(d) })) };
}

export async function agentsReport(q: Queryable, businessId: string, range: ReportRange): Promise<AgentsReport> {
  const rows = await q.any(reportQueries(businessId, range).agents);
  return { ...range, rows: rows.map((r) => ({ user_id: r.user_id, name: r.name, ...figuresOf(r) })) };
}

export async function channelsReport(q: Queryable, businessId: string, range: ReportRange): Promise<ChannelsReport> {
  const rows = await q.any(reportQueries(businessId, range).channels);
  return { ...range, rows: rows.map((r) => ({ channel_type: r.channel_type, ...figuresOf(r) })) };
}

export async function labelsReport(q: Queryable, businessId: string, range: ReportRange): Promise<LabelsReport> {
  const rows = await q.any(reportQueries(businessId, range).labels);
  return { ...range, rows: rows.map((r) => ({ label_id: r.label_id, name: r.name, color: r.color, ...figuresOf(r) })) };
}

const figureHeaders = ['opened', 'resolved', 'first_response_median_seconds', 'first_response_p90_seconds', 'resolution_median_seconds', 'resolution_p90_seconds'];
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

const csvLines = (rows: (string | number | null)[][]) => rows.map((cells) => cells.map(csvField).join(',')).join('\r\n') + '\r\n';

/** A report as CSV: a header line, then one line per row (overview: per day, then `total`). */
export function reportCsv(kind: ReportKind, report: OverviewReport | AgentsReport | ChannelsReport | LabelsReport): string {
  switch (kind) {
    case 'overview': {
      const r = report as OverviewReport;
      return csvLines([['date', ...figureHeaders], ...r.days.map((d) => [d.date, ...figureCells(d)]), ['total', ...figureCells(r.totals)]]);
    }
    case 'agents':
      return csvLines([['user_id', 'name', ...figureHeaders], ...(report as AgentsReport).rows.map((a) => [a.user_id ?? '', a.name, ...figureCells(a)])]);
    case 'channels':
      return csvLines([['channel_type', ...figureHeaders], ...(report as ChannelsReport).rows.map((c) => [c.channel_type, ...figureCells(c)])]);
    case 'labels':
      return csvLines([['label_id', 'name', 'color', ...figureHeaders], ...(report as LabelsReport).rows.map((l) => [l.label_id, l.name, l.color, ...figureCells(l)])]);
  }
}

/** The download's file name: `parley-agents-2026-01-01-to-2026-01-31.csv`. */
export const reportFilename = (kind: ReportKind, range: ReportRange) => `parley-${kind}-${range.from}-to-${range.to}.csv`;
