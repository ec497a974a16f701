/**
 * The analytics overview of one business over the last 30 days (conversations by `created_at`),
 * computed in PostgreSQL by one statement (decisions.md "Analytics"): a single range scan of
 * conversations_business_created_idx groups the window by (channel type, resolver) with the
 * counts and sums every figure needs; the figures are then rolled up from those few groups.
 * "Open now" and the live/away member count are index lookups beside it. Only the apportioning
 * of channel percentages happens here, over at most eight counts.
 */
import { z } from 'zod';
import type { FragmentSqlToken } from 'slonik';
import { sql, type Queryable } from '../adapters/postgres/db.ts';

export type AnalyticsOverview = {
  /** Conversations created in the window. */
  total_conversations: number;
  /** Mean seconds from creation to the first agent reply, rounded; 0 when none replied. */
  avg_first_response: number;
  /** 100 × resolved (has resolved_at) / total, two decimals; 0 when there are none. */
  resolution_rate: number;
  /** Members of every role whose status is `live` or `away` now. */
  active_agents: number;
  /** Channel type → percent of the window's conversations, two decimals summing to exactly 100; {} when none. */
  channel_mix: Record<string, number>;
  /** At most 5 members by conversations they resolved in the window, most first, ties by name. */
  top_agents: { name: string; resolved: number }[];
  /** Conversations whose status is `open` now, of any age. */
  quick_pulse_open: number;
  /** Mean seconds from creation to resolution, rounded; 0 when none resolved (the spec's name, an average by definition). */
  median_handle_time: number;
  /** A fixed value, as the spec says. */
  customer_happiness: number;
  /** The real figure beside it: 100 × ratings of 4 or 5 / ratings, two decimals, over CSAT ratings given in the window; null when none. */
  csat_score: number | null;
  /** Mean CSAT rating (1–5), two decimals, over the same ratings; null when none. */
  csat_average: number | null;
  /** CSAT ratings given in the window. */
  csat_responses: number;
};

const csatRow = z.object({ n: z.number(), satisfied: z.number(), total: z.number() });

const overviewRow = z.object({
  total: z.number(),
  resolved: z.number(),
  avg_first_response: z.number(),
  avg_handle_time: z.number(),
  channels: z.record(z.string(), z.number()),
  top_agents: z.array(z.object({ name: z.string(), resolved: z.number() })),
  open_now: z.number(),
  active_agents: z.number(),
});

/** The overview's statement, exported so the benchmark can EXPLAIN exactly what runs. */
export function overviewQueries(businessId: string, visible: FragmentSqlToken = sql.fragment`true`) {
  return {
    overview: sql.type(overviewRow)`
      with grouped as (
        select c.channel_type, c.resolved_by,
               count(*) as n,
               count(c.resolved_at) as resolved,
               count(c.first_response_at) as responded,
               -- float8 sums (date_part) are several times cheaper than numeric ones (extract)
               coalesce(sum(date_part('epoch', c.first_response_at - c.created_at)), 0) as response_secs,
               coalesce(sum(date_part('epoch', c.resolved_at - c.created_at)), 0) as handle_secs
        from conversations c
        where c.business_id = ${businessId} and c.created_at >= now() - interval '30 days' and ${visible}
        group by c.channel_type, c.resolved_by
      )
      select
        coalesce(sum(g.n), 0)::int as total,
        coalesce(sum(g.resolved), 0)::int as resolved,
        -- numeric for the division so round() takes halves away from zero (float8 round() goes to even)
        coalesce(round(sum(g.response_secs)::numeric / nullif(sum(g.responded), 0)), 0)::int as avg_first_response,
        coalesce(round(sum(g.handle_secs)::numeric / nullif(sum(g.resolved), 0)), 0)::int as avg_handle_time,
        (select coalesce(json_object_agg(ch.channel_type, ch.n), '{}')
           from (select channel_type, sum(n)::int as n from grouped group by channel_type) ch) as channels,
        (select coalesce(json_agg(json_build_object('name', t.name, 'resolved', t.resolved) order by t.resolved desc, t.name, t.id), '[]')
           from (select u.id, u.full_name as name, sum(r.resolved)::int as resolved
                 from grouped r
                 join team_members m on m.business_id = ${businessId} and m.user_id = r.resolved_by
                 join users u on u.id = m.user_id
                 group by u.id, u.full_name
                 having sum(r.resolved) > 0
                 order by resolved desc, name, u.id
                 limit 5) t) as top_agents,
        (select count(*) from conversations c where c.business_id = ${businessId} and c.status = 'open' and ${visible})::int as open_now,
        (select count(*) from team_members a
          where a.business_id = ${businessId} and a.is_active and a.status in ('live', 'away'))::int as active_agents
      from grouped g`,
  };
}

/**
 * `visible`: the conversations the reader may see (team-scoped visibility, a condition over the
 * conversations row `c`; core/domain/team-visibility.ts): every figure about conversations and
 * ratings counts those only. Omitted: the whole business.
 */
export async function analyticsOverview(q: Queryable, businessId: string, visible?: FragmentSqlToken): Promise<AnalyticsOverview> {
  const [row, csat] = await Promise.all([
    q.one(overviewQueries(businessId, visible).overview),
    // An index range (csat_surveys_rated_idx, rating included): the window's ratings.
    q.one(sql.type(csatRow)`
      select count(*)::int as n, count(*) filter (where rating >= 4)::int as satisfied, coalesce(sum(rating), 0)::int as total
      from csat_surveys s where s.business_id = ${businessId} and s.rated_at is not null and s.rated_at >= now() - interval '30 days'
        ${visible ? sql.fragment`and exists (select 1 from conversations c where c.id = s.conversation_id and ${visible})` : sql.fragment``}`),
  ]);
  return {
    total_conversations: row.total,
    avg_first_response: row.avg_first_response,
    resolution_rate: row.total === 0 ? 0 : Math.round((row.resolved * 10_000) / row.total) / 100,
    active_agents: row.active_agents,
    channel_mix: apportionPercentages(Object.entries(row.channels)),
    top_agents: row.top_agents,
    quick_pulse_open: row.open_now,
    median_handle_time: row.avg_handle_time,
    customer_happiness: 98,
    csat_score: csat.n === 0 ? null : Math.round((csat.satisfied * 10_000) / csat.n) / 100,
    csat_average: csat.n === 0 ? null : Math.round((csat.total * 100) / csat.n) / 100,
    csat_responses: csat.n,
  };
}

/**
 * Percentages with two decimals that add up to exactly 100 (largest remainder method): every
 * share gets its floor in hundredths of a percent, and the hundredths left over go to the
 * largest remainders (ties: the larger count, then the name). Ordered by share, largest first.
 */
export function apportionPercentages(counts: [string, number][]): Record<string, number> {
  const total = counts.reduce((sum, [, n]) => sum + n, 0);
  if (total === 0) return {};
  const units = 10_000;
  const shares = counts.map(([key, n]) => ({ key, n, units: Math.floor((n * units) / total), remainder: (n * units) % total }));
  let left = units - shares.reduce((sum, s) => sum + s.units, 0);
  const byRemainder = [...shares].sort((a, b) => b.remainder - a.remainder || b.n - a.n || (a.key < b.key ? -1 : 1));
  for (const share of byRemainder) {
    if (left === 0) break;
    share.units += 1;
    left -= 1;
  }
  shares.sort((a, b) => b.units - a.units || (a.key < b.key ? -1 : 1));
  return Object.fromEntries(shares.map((s) => [s.key, s.units / 100]));
}
