/**
 * Reports over a range of local days: overview (with a series by day), per agent, per channel
 * type, per label; JSON, or CSV with `?format=csv`. See core/domain/reports.ts and
 * docs/decisions.md#reports.
 */
import type { Context } from 'koa';
import { z } from '../../../lib/zod.ts';
import { isTimeZone } from '../../../core/domain/business-hours.ts';
import { loadBusinessHours } from '../../../core/commands/business-hours.ts';
import { csatCsv, csatReport } from '../../../core/domain/report-csat.ts';
import { slaCsv, slaReport } from '../../../core/domain/report-sla.ts';
import {
  agentsReport,
  channelsReport,
  daysInRange,
  isIsoDate,
  labelsReport,
  MAX_REPORT_DAYS,
  overviewReport,
  reportCsv,
  reportFilename,
  resolveRange,
  type ReportKind,
  type ReportRange,
  type TimeReportKind,
} from '../../../core/domain/reports.ts';
import { validationError } from '../../../core/errors.ts';
import type { Deps } from '../../../core/deps.ts';
import { defineRoute } from '../../route.ts';

const isoDate = z
  .string()
  .refine(isIsoDate, { message: 'Input should be a valid date in the format YYYY-MM-DD', params: { type: 'date_parsing' } })
  .openapi({ type: 'string', format: 'date' });

export const reportQuery = z
  .object({
    from: isoDate
      .optional()
      .openapi({ description: 'First local day of the range (YYYY-MM-DD), included. Default: 29 days before `to`', example: '2026-01-01' }),
    to: isoDate.optional().openapi({
      description: 'Last local day of the range (YYYY-MM-DD), included. Default: today in `tz` (with `from` alone: at most 30 days from it)',
      example: '2026-01-31',
    }),
    tz: z
      .string()
      .max(64)
      .refine(isTimeZone, { message: 'Input should be an IANA time zone name such as Europe/Berlin', params: { type: 'time_zone' } })
      .optional()
      .openapi({ description: 'IANA time zone whose local days the range and the day buckets are (default `UTC`)', example: 'Europe/Berlin' }),
    format: z
      .enum(['json', 'csv'])
      .default('json')
      .openapi({ description: '`csv`: the same figures as a `text/csv` download (one line per row; the overview: per day, then `total`)' }),
  })
  .superRefine((q, ctx) => {
    if (!q.from || !q.to || !isIsoDate(q.from) || !isIsoDate(q.to)) return;
    const days = daysInRange(q.from, q.to);
    if (days < 1) ctx.addIssue({ code: 'custom', path: ['to'], message: 'Input should be on or after `from`', params: { type: 'date_range' } });
    else if (days > MAX_REPORT_DAYS)
      ctx.addIssue({ code: 'custom', path: ['to'], message: `The range should cover at most ${MAX_REPORT_DAYS} days`, params: { type: 'date_range' } });
  });

const seconds = (what: string) =>
  z
    .number()
    .int()
    .nullable()
    .openapi({ description: `${what}, whole seconds (of open time when \`time_basis\` is \`business_hours\`); null when there is no sample` });

const figures = {
  opened: z.number().int().openapi({ description: "Conversations created in the range (the row's day, agent, channel type or label)" }),
  resolved: z
    .number()
    .int()
    .openapi({ description: 'Conversations resolved in the range (by `resolved_at`; a reopened conversation counts when resolved again)' }),
  first_response_median: seconds('Median of `first_response_at − created_at` over the opened conversations that have a reply'),
  first_response_p90: seconds('90th percentile (`percentile_cont`, interpolated) of the same'),
  resolution_median: seconds('Median of `resolved_at − created_at` over the resolved conversations'),
  resolution_p90: seconds('90th percentile (`percentile_cont`, interpolated) of the same'),
};
const figuresSchema = z.object(figures).openapi('ReportFigures');

const range = {
  from: z.string().openapi({ format: 'date', description: 'First local day of the range' }),
  to: z.string().openapi({ format: 'date', description: 'Last local day of the range' }),
  tz: z.string().openapi({ description: 'The time zone of the days (canonical IANA spelling)' }),
};

const timed = {
  ...range,
  time_basis: z.enum(['business_hours', 'calendar']).openapi({
    description:
      "How the times were measured: `business_hours` when the business's hours are on (`/settings/business-hours`, with at least one shift): only the time the team is open counts between the two instants, under the schedule in force when each duration was decided (holidays and DST included; calendar time for one decided while the hours were off), so changing the hours later leaves past figures as they were; else `calendar`",
  }),
};

const overviewSchema = z
  .object({
    ...timed,
    totals: figuresSchema,
    days: z.array(z.object({ date: z.string().openapi({ format: 'date' }), ...figures })).openapi({
      description:
        'Every local day of the range in order, zeros and nulls included (for charts); each figure by that day: opened by `created_at`, resolved by `resolved_at`',
    }),
  })
  .openapi('OverviewReport');

const agentsSchema = z
  .object({
    ...timed,
    rows: z
      .array(
        z.object({
          user_id: z.string().nullable().openapi({ description: 'The user; null for the row of unassigned conversations (present only when it has any)' }),
          name: z.string(),
          ...figures,
        }),
      )
      .openapi({
        description:
          'Every active member (zeros included), anyone else who appears, then the `Unassigned` row; by name. `opened` and first response: conversations created in the range and assigned to them now; `resolved` and resolution: conversations they resolved (`resolved_by`) in the range',
      }),
  })
  .openapi('AgentsReport');

const channelsSchema = z
  .object({
    ...timed,
    rows: z
      .array(z.object({ channel_type: z.string(), ...figures }))
      .openapi({ description: 'One row per channel type with conversations in the range, most opened first' }),
  })
  .openapi('ChannelsReport');

const labelsSchema = z
  .object({
    ...timed,
    rows: z.array(z.object({ label_id: z.string(), name: z.string(), color: z.string(), ...figures })).openapi({
      description:
        'Every label of the business (zeros included), by name; a conversation counts under each label it carries now, so rows may add up to more than the total',
    }),
  })
  .openapi('LabelsReport');

const rate = (what: string) =>
  z
    .number()
    .nullable()
    .openapi({ description: `${what}; null when there is none` });

const csatFigures = {
  asked: z.number().int().openapi({ description: 'CSAT surveys sent (by `asked_at`)' }),
  responses: z.number().int().openapi({ description: 'Ratings given (by `rated_at`)' }),
  average: rate('Mean rating 1–5 of those ratings, two decimals'),
  satisfied_percent: rate('Percent of those ratings that are 4 or 5, two decimals'),
  distribution: z
    .object({ 1: z.number().int(), 2: z.number().int(), 3: z.number().int(), 4: z.number().int(), 5: z.number().int() })
    .openapi({ description: 'How many ratings of each value 1–5' }),
};
const csatSchema = z
  .object({
    ...range,
    totals: z.object(csatFigures).openapi('CsatFigures'),
    days: z
      .array(z.object({ date: z.string().openapi({ format: 'date' }), ...csatFigures }))
      .openapi({ description: 'Every local day of the range in order, zeros and nulls included' }),
  })
  .openapi('CsatReport');

const targetFigures = z
  .object({
    met: z.number().int().openapi({ description: 'Targets met by their due time' }),
    breached: z.number().int().openapi({ description: 'Targets whose due time passed unmet (met late or not at all)' }),
    hit_rate: rate('Percent met of met + breached, two decimals'),
  })
  .openapi('SlaTargetFigures');
const slaFigures = {
  first_response: targetFigures,
  next_response: targetFigures,
  resolution: targetFigures,
  breaches: z.number().int().openapi({ description: 'Breaches of every target' }),
};
const slaSchema = z
  .object({
    ...range,
    totals: z.object(slaFigures).openapi('SlaFigures'),
    days: z
      .array(z.object({ date: z.string().openapi({ format: 'date' }), ...slaFigures }))
      .openapi({ description: 'Every local day of the range in order, zeros included' }),
    policies: z
      .array(z.object({ policy_id: z.string(), name: z.string(), ...slaFigures }))
      .openapi({ description: 'Every policy of the business (zeros included) by name, then results of deleted policies as `Deleted policy`' }),
  })
  .openapi('SlaReport');

const csvSchema = z.string().openapi({ description: 'RFC 4180 CSV with a header line (CRLF line ends); empty cells where a figure is null' });

/** PostgreSQL refused the zone (its tz database lacks a name Node knows): 422, not 500. */
function unknownZoneToPg(error: unknown): boolean {
  for (let e = error as { code?: string; message?: string; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.code === '22023' && /time zone/i.test(e.message ?? '')) return true;
  }
  return false;
}

type Load = (deps: Deps, businessId: string, range: ReportRange) => Promise<unknown>;

async function answer(
  ctx: Context,
  deps: Deps,
  businessId: string,
  kind: ReportKind,
  query: z.infer<typeof reportQuery>,
  load: Load,
  csv: (report: never) => string,
) {
  const period = resolveRange(query);
  let report: unknown;
  try {
    report = await load(deps, businessId, period);
  } catch (error) {
    if (unknownZoneToPg(error))
      throw validationError([{ loc: ['query', 'tz'], msg: 'Input should be an IANA time zone name such as Europe/Berlin', type: 'time_zone' }]);
    throw error;
  }
  if (query.format !== 'csv') return report;
  ctx.status = 200;
  ctx.type = 'text/csv; charset=utf-8';
  ctx.set('Content-Disposition', `attachment; filename="${reportFilename(kind, period)}"`);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = csv(report as never);
  return undefined;
}

const common =
  'The range is local days in `tz` (DST-correct), from `from` to `to` both included, at most 366 days (422 otherwise, and for an unknown zone). ' +
  '`?format=csv` answers the same as a `text/csv` attachment. Caller without a business: 400. See docs/decisions.md#reports.';
const timesAre =
  "Times are whole seconds, calendar time or, when the business's hours are on, open time only (`time_basis` says which): medians and 90th percentiles by PostgreSQL `percentile_cont`. ";

function reportRoute(kind: ReportKind, summary: string, intro: string, schema: z.ZodType, load: Load, csv: (report: never) => string) {
  return defineRoute({
    method: 'get',
    path: `/api/v1/reports/${kind}`,
    summary,
    description: `${intro} ${common}`,
    tags: ['Reports'],
    auth: 'user',
    policy: 'reports.read',
    query: reportQuery,
    response: schema,
    alternateResponses: { 'text/csv': csvSchema },
    errors: [400],
    handler: async ({ query, member, deps, ctx }) => answer(ctx, deps, member.businessId, kind, query, load, csv),
  });
}

/** The business's hours when they are on: the time reports measure open time only. */
async function hoursOn(deps: Deps, businessId: string) {
  const hours = await loadBusinessHours(deps.db, businessId);
  return hours.enabled ? hours : null;
}

const timeCsv = (kind: TimeReportKind) => (report: never) => reportCsv(kind, report);

export const overview = reportRoute(
  'overview',
  'Report: conversations opened and resolved, response and resolution times, by day',
  `The business's figures over the range, and the same for each local day (for charts). ${timesAre}`,
  overviewSchema,
  async (deps, id, r) => overviewReport(deps.db, id, r, await hoursOn(deps, id)),
  timeCsv('overview'),
);
export const agents = reportRoute(
  'agents',
  'Report per agent',
  `The figures per member. ${timesAre}`,
  agentsSchema,
  async (deps, id, r) => agentsReport(deps.db, id, r, await hoursOn(deps, id)),
  timeCsv('agents'),
);
export const channels = reportRoute(
  'channels',
  'Report per channel type',
  `The figures per channel type. ${timesAre}`,
  channelsSchema,
  async (deps, id, r) => channelsReport(deps.db, id, r, await hoursOn(deps, id)),
  timeCsv('channels'),
);
export const labels = reportRoute(
  'labels',
  'Report per label',
  `The figures per label. ${timesAre}`,
  labelsSchema,
  async (deps, id, r) => labelsReport(deps.db, id, r, await hoursOn(deps, id)),
  timeCsv('labels'),
);
export const csat = reportRoute(
  'csat',
  'Report: customer satisfaction ratings, by day',
  'CSAT surveys asked and ratings given over the range and on each local day: the average rating, the share of 4s and 5s and the count of each rating 1–5. A rating counts on the day it was given, a survey on the day it was asked.',
  csatSchema,
  (deps, id, r) => csatReport(deps.db, id, r),
  csatCsv as (report: never) => string,
);
export const sla = reportRoute(
  'sla',
  'Report: SLA targets met and breached, by day and per policy',
  "For each target (first response, next response, resolution): how many were met in time and how many breached, and the hit rate, over the range, on each local day and per policy. A target counts once its outcome is decided, on the local day of that instant: the reply or resolution that met it, or the due time that passed unmet; targets still running are not counted. Due times are those of each conversation's policy (in business hours when the policy says so).",
  slaSchema,
  (deps, id, r) => slaReport(deps.db, id, r),
  slaCsv as (report: never) => string,
);

export default [overview, agents, channels, labels, csat, sla];
