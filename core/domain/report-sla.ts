/**
 * The SLA report (docs/decisions.md#reports): for each target (first response, next response,
 * resolution) how many were met in time and how many breached, and the hit rate, for the whole
 * range, each local day and each policy. It reads sla_results (migration 0109): each target of a
 * conversation once its outcome is decided, counted on the local day of that instant (the reply
 * or resolution that met it, or the due time that passed unmet). Targets still running are not
 * counted. Days are index range scans of sla_results_settled_idx, bounds computed once; policies
 * one range scan grouped by hashing.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { slaTargets, type SlaTarget } from './sla.ts';
import { addDays, analytic, csvLines, dayStart, type ReportRange } from './reports.ts';

export type TargetFigures = {
  met: number;
  breached: number;
  /** Percent met of met + breached, two decimals (halves up); null when none. */
  hit_rate: number | null;
};
export type SlaFigures = Record<SlaTarget, TargetFigures> & {
  /** Breaches of every target. */
  breaches: number;
};
export type SlaPolicyRow = SlaFigures & { policy_id: string; name: string };
export type SlaReport = ReportRange & { totals: SlaFigures; days: (SlaFigures & { date: string })[]; policies: SlaPolicyRow[] };

const counts = {
  fr_met: z.number(),
  fr_breached: z.number(),
  nr_met: z.number(),
  nr_breached: z.number(),
  res_met: z.number(),
  res_breached: z.number(),
};
type Counts = { [K in keyof typeof counts]: number };

const countColumns = sql.fragment`
  count(*) filter (where s.target = 'first_response' and s.hit)::int as fr_met,
  count(*) filter (where s.target = 'first_response' and not s.hit)::int as fr_breached,
  count(*) filter (where s.target = 'next_response' and s.hit)::int as nr_met,
  count(*) filter (where s.target = 'next_response' and not s.hit)::int as nr_breached,
  count(*) filter (where s.target = 'resolution' and s.hit)::int as res_met,
  count(*) filter (where s.target = 'resolution' and not s.hit)::int as res_breached`;

/** Both statements, exported so the benchmark can EXPLAIN what runs. */
export function slaQueries(businessId: string, range: ReportRange) {
  return {
    days: sql.type(z.object({ date: z.string(), ...counts }))`
      with d as (
        select g::date as day,
               (g::date::timestamp at time zone ${range.tz}) as lo,
               ((g::date + 1)::timestamp at time zone ${range.tz}) as hi
        from generate_series(${range.from}::date, ${range.to}::date, interval '1 day') g
      )
      select to_char(d.day, 'YYYY-MM-DD') as date, x.*
      from d cross join lateral (
        select ${countColumns} from sla_results s
        where s.business_id = ${businessId} and s.settled_at >= d.lo and s.settled_at < d.hi
      ) x
      order by d.day`,
    policies: sql.type(z.object({ policy_id: z.string(), name: z.string(), ...counts }))`
      with r as (
        select s.sla_policy_id as k, ${countColumns} from sla_results s
        where s.business_id = ${businessId} and s.settled_at >= ${dayStart(range.from, range.tz)}
          and s.settled_at < ${dayStart(addDays(range.to, 1), range.tz)}
        group by 1
      ),
      p as (select id, name from sla_policies where business_id = ${businessId})
      select coalesce(p.id, r.k) as policy_id, coalesce(p.name, 'Deleted policy') as name,
             coalesce(r.fr_met, 0) as fr_met, coalesce(r.fr_breached, 0) as fr_breached,
             coalesce(r.nr_met, 0) as nr_met, coalesce(r.nr_breached, 0) as nr_breached,
             coalesce(r.res_met, 0) as res_met, coalesce(r.res_breached, 0) as res_breached
      from p full join r on r.k = p.id
      where coalesce(p.id, r.k) is not null
      order by p.id is null, lower(coalesce(p.name, '')), coalesce(p.id, r.k)`,
  };
}

const hitRate = (met: number, breached: number) => (met + breached ? Math.round((met * 10000) / (met + breached)) / 100 : null);
const target = (met: number, breached: number): TargetFigures => ({ met, breached, hit_rate: hitRate(met, breached) });

function figures(c: Counts): SlaFigures {
  return {
    first_response: target(c.fr_met, c.fr_breached),
    next_response: target(c.nr_met, c.nr_breached),
    resolution: target(c.res_met, c.res_breached),
    breaches: c.fr_breached + c.nr_breached + c.res_breached,
  };
}

export async function slaReport(q: Queryable, businessId: string, range: ReportRange): Promise<SlaReport> {
  const queries = slaQueries(businessId, range);
  const { days, policies } = await analytic(q, async (t) => ({ days: await t.any(queries.days), policies: await t.any(queries.policies) }));
  const sum = { fr_met: 0, fr_breached: 0, nr_met: 0, nr_breached: 0, res_met: 0, res_breached: 0 };
  for (const d of days) for (const k of Object.keys(sum) as (keyof Counts)[]) sum[k] += d[k];
  return {
    ...range,
    totals: figures(sum),
    days: days.map((d) => ({ date: d.date, ...figures(d) })),
    policies: policies.map((p) => ({ policy_id: p.policy_id, name: p.name, ...figures(p) })),
  };
}

const cells = (f: SlaFigures) => [...slaTargets.flatMap((t) => [f[t].met, f[t].breached, f[t].hit_rate]), f.breaches];

/** One line per day, then `total`, then each policy's total (`date` is `total`, the policy named). */
export function slaCsv(report: SlaReport): string {
  return csvLines([
    ['date', 'policy_id', 'policy_name', ...slaTargets.flatMap((t) => [`${t}_met`, `${t}_breached`, `${t}_hit_rate`]), 'breaches'],
    ...report.days.map((d) => [d.date, '', '', ...cells(d)]),
    ['total', '', '', ...cells(report.totals)],
    ...report.policies.map((p) => ['total', p.policy_id, p.name, ...cells(p)]),
  ]);
}
