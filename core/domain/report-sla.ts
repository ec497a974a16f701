/**
 * The SLA report (docs/decisions.md#reports): for each target (first response, next response,
 * resolution) how many were met in time and how many breached, and the hit rate, for the whole
 * range, each local day and each policy. It reads sla_results (migration 0109): each target of a
 * conversation once its outcome is decided, counted on the local day of that instant (the reply
 * or resolution that met it, or the due time that passed unmet). Targets still running are not
 * counted. One index range scan of sla_results_settled_idx per local day, bounds computed once,
 * counted by policy, target and outcome; days, totals and policies are summed from those counts.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { slaTargets, type SlaTarget } from './sla.ts';
import { addDays, analytic, csvLines, type ReportRange } from './reports.ts';

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

type Counts = { fr_met: number; fr_breached: number; nr_met: number; nr_breached: number; res_met: number; res_breached: number };
const zero = (): Counts => ({ fr_met: 0, fr_breached: 0, nr_met: 0, nr_breached: 0, res_met: 0, res_breached: 0 });
const countKey = { first_response: ['fr_met', 'fr_breached'], next_response: ['nr_met', 'nr_breached'], resolution: ['res_met', 'res_breached'] } as const;

const cellRow = z.object({ date: z.string(), policy_id: z.string().nullable(), target: z.enum(slaTargets), hit: z.boolean(), n: z.number() });

/**
 * Both statements, exported so the benchmark can EXPLAIN what runs. `cells`: one index range scan
 * per local day (bounds computed once), each day's results counted by policy, target and
 * outcome (at most a few dozen rows a day); the days, totals and policies are summed from them.
 */
export function slaQueries(businessId: string, range: ReportRange) {
  return {
    cells: sql.type(cellRow)`
      with d as (
        select g::date as day,
               (g::date::timestamp at time zone ${range.tz}) as lo,
               ((g::date + 1)::timestamp at time zone ${range.tz}) as hi
        from generate_series(${range.from}::date, ${range.to}::date, interval '1 day') g
      )
      select to_char(d.day, 'YYYY-MM-DD') as date, x.policy_id, x.target, x.hit, x.n
      from d cross join lateral (
        select s.sla_policy_id as policy_id, s.target, s.hit, count(*)::int as n from sla_results s
        where s.business_id = ${businessId} and s.settled_at >= d.lo and s.settled_at < d.hi
        group by 1, 2, 3
      ) x`,
    policies: sql.type(z.object({ id: z.string(), name: z.string() }))`
      select id, name from sla_policies where business_id = ${businessId} order by lower(name), id`,
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

/** Every day of the range in order (the statement returns only days with results). */
function dates(range: ReportRange): string[] {
  const out: string[] = [];
  for (let d = range.from; d <= range.to; d = addDays(d, 1)) out.push(d);
  return out;
}

export async function slaReport(q: Queryable, businessId: string, range: ReportRange): Promise<SlaReport> {
  const queries = slaQueries(businessId, range);
  const { cells, policies } = await analytic(q, async (t) => ({ cells: await t.any(queries.cells), policies: await t.any(queries.policies) }));
  const total = zero();
  const byDay = new Map(dates(range).map((d) => [d, zero()]));
  const byPolicy = new Map(policies.map((p) => [p.id, zero()]));
  const deleted = new Map<string, Counts>();
  for (const cell of cells) {
    const key = countKey[cell.target][cell.hit ? 0 : 1];
    const policy =
      cell.policy_id === null
        ? null
        : (byPolicy.get(cell.policy_id) ?? deleted.get(cell.policy_id) ?? deleted.set(cell.policy_id, zero()).get(cell.policy_id)!);
    for (const counts of [total, byDay.get(cell.date), policy]) if (counts) counts[key] += cell.n;
  }
  return {
    ...range,
    totals: figures(total),
    days: [...byDay].map(([date, c]) => ({ date, ...figures(c) })),
    policies: [
      ...policies.map((p) => ({ policy_id: p.id, name: p.name, ...figures(byPolicy.get(p.id)!) })),
      ...[...deleted].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, c]) => ({ policy_id: id, name: 'Deleted policy', ...figures(c) })),
    ],
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
