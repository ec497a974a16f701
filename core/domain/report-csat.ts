/**
 * The CSAT report (docs/decisions.md#reports): surveys asked and ratings given in a range of
 * local days, the average rating, the share of 4s and 5s, and how many of each rating 1–5, for
 * the whole range and each day. A rating counts on the day it was given (`rated_at`), a survey
 * asked on the day it was sent (`asked_at`): the two are separate cohorts, as opened and
 * resolved are in the overview. Each local day is two index range scans
 * (csat_surveys_rated_idx, csat_surveys_asked_idx), its bounds computed once.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { analytic, csvLines, type ReportRange } from './reports.ts';

export const ratings = ['1', '2', '3', '4', '5'] as const;
export type Distribution = Record<(typeof ratings)[number], number>;

export type CsatFigures = {
  asked: number;
  responses: number;
  /** Mean rating, two decimals (halves up); null without a rating. */
  average: number | null;
  /** Percent of ratings that are 4 or 5, two decimals; null without a rating. */
  satisfied_percent: number | null;
  distribution: Distribution;
};
export type CsatReport = ReportRange & { totals: CsatFigures; days: (CsatFigures & { date: string })[] };

const dayRow = z.object({
  date: z.string(),
  asked: z.number(),
  r1: z.number(),
  r2: z.number(),
  r3: z.number(),
  r4: z.number(),
  r5: z.number(),
});
type DayRow = z.infer<typeof dayRow>;

export function csatQuery(businessId: string, range: ReportRange) {
  return sql.type(dayRow)`
    with d as (
      select g::date as day,
             (g::date::timestamp at time zone ${range.tz}) as lo,
             ((g::date + 1)::timestamp at time zone ${range.tz}) as hi
      from generate_series(${range.from}::date, ${range.to}::date, interval '1 day') g
    )
    select to_char(d.day, 'YYYY-MM-DD') as date,
           (select count(*) from csat_surveys v where v.business_id = ${businessId} and v.asked_at >= d.lo and v.asked_at < d.hi)::int as asked,
           r.r1::int, r.r2::int, r.r3::int, r.r4::int, r.r5::int
    from d cross join lateral (
      select count(*) filter (where v.rating = 1) as r1, count(*) filter (where v.rating = 2) as r2, count(*) filter (where v.rating = 3) as r3,
             count(*) filter (where v.rating = 4) as r4, count(*) filter (where v.rating = 5) as r5
      from csat_surveys v
      where v.business_id = ${businessId} and v.rated_at >= d.lo and v.rated_at < d.hi
    ) r
    order by d.day`;
}

/** Two decimals, halves up (the ratio is exact enough: counts are small integers). */
const hundredths = (numerator: number, denominator: number) => Math.round((numerator * 100) / denominator) / 100;

function figures(asked: number, c: Distribution): CsatFigures {
  const responses = ratings.reduce((n, r) => n + c[r], 0);
  const sum = ratings.reduce((n, r) => n + Number(r) * c[r], 0);
  return {
    asked,
    responses,
    average: responses ? hundredths(sum, responses) : null,
    satisfied_percent: responses ? hundredths(100 * (c['4'] + c['5']), responses) : null,
    distribution: c,
  };
}

const distributionOf = (d: DayRow): Distribution => ({ '1': d.r1, '2': d.r2, '3': d.r3, '4': d.r4, '5': d.r5 });

export async function csatReport(q: Queryable, businessId: string, range: ReportRange): Promise<CsatReport> {
  const days = await analytic(q, (t) => t.any(csatQuery(businessId, range)));
  const total: Distribution = { '1': 0, '2': 0, '3': 0, '4': 0, '5': 0 };
  for (const d of days) for (const r of ratings) total[r] += distributionOf(d)[r];
  return {
    ...range,
    totals: figures(
      days.reduce((n, d) => n + d.asked, 0),
      total,
    ),
    days: days.map((d) => ({ date: d.date, ...figures(d.asked, distributionOf(d)) })),
  };
}

const cells = (f: CsatFigures) => [f.asked, f.responses, f.average, f.satisfied_percent, ...ratings.map((r) => f.distribution[r])];

/** One line per day, then `total`. */
export function csatCsv(report: CsatReport): string {
  return csvLines([
    ['date', 'asked', 'responses', 'average', 'satisfied_percent', ...ratings.map((r) => `rating_${r}`)],
    ...report.days.map((d) => [d.date, ...cells(d)]),
    ['total', ...cells(report.totals)],
  ]);
}
