/**
 * Plans as data (the `plans` table) and the one place that answers "may this business do X".
 * Checks that count rows lock the business row first (`for update`), so two concurrent
 * requests cannot both take the last slot. Call them inside the transaction that writes.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { planError } from '../errors.ts';
import { connectorFor } from '../../connectors/index.ts';
import type { Config } from '../config.ts';

export const planNames = ['Free', 'Mini', 'Pro'] as const;
export type PlanName = (typeof planNames)[number];

export type Plan = {
  name: PlanName;
  /** Free 0 < Mini 1 < Pro 2: upgrades only go up. */
  rank: number;
  /** Agents besides the owner. */
  maxAdditionalAgents: number;
  /** Channels besides the built-in webchat channel. */
  maxChannels: number;
  /** Only `widget` channels may be created (Free). */
  widgetChannelsOnly: boolean;
  maxKbArticles: number;
  maxMessagesPerMonth: number;
  aiAutoReply: boolean;
  /** Bytes of files (agents' uploads and customers' media) the business may keep. */
  maxStorageBytes: number;
};

const planRow = z.object({
  name: z.enum(planNames),
  rank: z.number(),
  max_additional_agents: z.number(),
  max_channels: z.number(),
  widget_channels_only: z.boolean(),
  max_kb_articles: z.number(),
  max_messages_per_month: z.number(),
  ai_auto_reply: z.boolean(),
  max_storage_bytes: z.coerce.number(),
});

const toPlan = (r: z.infer<typeof planRow>): Plan => ({
  name: r.name,
  rank: r.rank,
  maxAdditionalAgents: r.max_additional_agents,
  maxChannels: r.max_channels,
  widgetChannelsOnly: r.widget_channels_only,
  maxKbArticles: r.max_kb_articles,
  maxMessagesPerMonth: r.max_messages_per_month,
  aiAutoReply: r.ai_auto_reply,
  maxStorageBytes: r.max_storage_bytes,
});

/** The business's plan; with `lock`, also locks the business row until the transaction ends. */
export async function planOf(q: Queryable, businessId: string, options: { lock?: boolean } = {}): Promise<Plan> {
  const row = options.lock
    ? await q.one(sql.type(planRow)`
        select p.name, p.rank, p.max_additional_agents, p.max_channels, p.widget_channels_only,
               p.max_kb_articles, p.max_messages_per_month, p.ai_auto_reply, p.max_storage_bytes
        from businesses b join plans p on p.name = b.plan where b.id = ${businessId} for update of b`)
    : await q.one(sql.type(planRow)`
        select p.name, p.rank, p.max_additional_agents, p.max_channels, p.widget_channels_only,
               p.max_kb_articles, p.max_messages_per_month, p.ai_auto_reply, p.max_storage_bytes
        from businesses b join plans p on p.name = b.plan where b.id = ${businessId}`);
  return toPlan(row);
}

/**
 * Whether this server sells plans: Stripe is configured (STRIPE_SECRET_KEY). Without it the
 * installation is its operator's own: workspaces are on PLAN_WITHOUT_BILLING and nothing offers
 * an upgrade (docs/decisions.md#businesses-plans-and-limits).
 */
export const sellsPlans = (config: Pick<Config, 'STRIPE_SECRET_KEY'>): boolean => Boolean(config.STRIPE_SECRET_KEY);

/** The plan a new workspace starts on: Free where plans are sold, else PLAN_WITHOUT_BILLING. */
export const startingPlan = (config: Pick<Config, 'STRIPE_SECRET_KEY' | 'PLAN_WITHOUT_BILLING'>): PlanName =>
  sellsPlans(config) ? 'Free' : config.PLAN_WITHOUT_BILLING;

/**
 * Without billing, puts every workspace whose plan the operator did not set (`parley business
 * plan`) on PLAN_WITHOUT_BILLING; with billing, nothing. Run at every start (boot), so changing the
 * setting, or an installation made before it, takes effect on restart. Returns how many moved.
 */
export async function applyPlanWithoutBilling(q: Queryable, config: Pick<Config, 'STRIPE_SECRET_KEY' | 'PLAN_WITHOUT_BILLING'>): Promise<number> {
  if (sellsPlans(config)) return 0;
  const result = await q.query(sql.unsafe`
    update businesses set plan = ${config.PLAN_WITHOUT_BILLING}, updated_at = now()
    where not plan_chosen_by_operator and plan <> ${config.PLAN_WITHOUT_BILLING}`);
  return result.rowCount;
}

const count = z.object({ n: z.number() });

export type Usage = { agents: number; channels: number; kb_articles: number; messages_this_month: number };

/** Current usage against each limit. Agents exclude the owner; channels exclude the built-in webchat. */
export async function usageOf(q: Queryable, businessId: string): Promise<Usage> {
  return q.one(sql.type(z.object({ agents: z.number(), channels: z.number(), kb_articles: z.number(), messages_this_month: z.number() }))`
    select
      (select count(*) from team_members where business_id = ${businessId} and role <> 'owner')::int as agents,
      (select count(*) from channels where business_id = ${businessId} and not is_builtin)::int as channels,
      (select count(*) from kb_articles where business_id = ${businessId})::int as kb_articles,
      coalesce((select sum(count) from message_counters where business_id = ${businessId}
                and month = date_trunc('month', now() at time zone 'utc')::date), 0)::int as messages_this_month`);
}

/** 402 limit_exceeded/agents when the plan's additional agents are all taken. */
export async function assertMayAddAgent(q: Queryable, businessId: string): Promise<void> {
  const plan = await planOf(q, businessId, { lock: true });
  const { n } = await q.one(sql.type(count)`select count(*)::int as n from team_members where business_id = ${businessId} and role <> 'owner'`);
  if (n >= plan.maxAdditionalAgents) {
    throw planError(
      {
        error: 'limit_exceeded',
        plan: plan.name,
        feature: 'agents',
        current: n,
        limit: plan.maxAdditionalAgents,
        message: `Your ${plan.name} plan allows ${plan.maxAdditionalAgents} additional agent${plan.maxAdditionalAgents === 1 ? '' : 's'}.`,
      },
      402,
      'Upgrade to add more.',
    );
  }
}

/**
 * 402 feature_locked/integrations for a non-widget channel on a widget-only plan, and
 * limit_exceeded/channels when the count is reached. `replacing` excludes a channel being
 * updated from the count.
 */
export async function assertMayAddChannel(q: Queryable, businessId: string, type: string, options: { replacing?: string } = {}): Promise<void> {
  const plan = await planOf(q, businessId, { lock: true });
  if (plan.widgetChannelsOnly && !connectorFor(type).onWidgetOnlyPlans) {
    throw planError(
      {
        error: 'feature_locked',
        plan: plan.name,
        feature: 'integrations',
        message: `Channel type '${type}' is not available on the ${plan.name} plan.`,
      },
      402,
      'Upgrade to Mini or Pro to connect it.',
    );
  }
  const { n } = await q.one(sql.type(count)`
    select count(*)::int as n from channels
    where business_id = ${businessId} and not is_builtin and id <> ${options.replacing ?? '00000000-0000-0000-0000-000000000000'}`);
  if (n >= plan.maxChannels) {
    throw planError(
      {
        error: 'limit_exceeded',
        plan: plan.name,
        feature: 'channels',
        current: n,
        limit: plan.maxChannels,
        message: `Your ${plan.name} plan allows ${plan.maxChannels} channels.`,
      },
      402,
      'Upgrade to add more.',
    );
  }
}

/** 402 limit_exceeded/kb_articles when the article count is reached. */
export async function assertMayAddArticle(q: Queryable, businessId: string): Promise<void> {
  const plan = await planOf(q, businessId, { lock: true });
  const { n } = await q.one(sql.type(count)`select count(*)::int as n from kb_articles where business_id = ${businessId}`);
  if (n >= plan.maxKbArticles) {
    throw planError(
      {
        error: 'limit_exceeded',
        plan: plan.name,
        feature: 'kb_articles',
        current: n,
        limit: plan.maxKbArticles,
        message: `Your ${plan.name} plan allows ${plan.maxKbArticles} knowledge base articles.`,
      },
      402,
      'Upgrade to add more.',
    );
  }
}

/** What monthlyReservation's statement answers (select ${reservationColumns}). */
export const reservationRow = z.object({ plan_name: z.enum(planNames), plan_max: z.number(), reserved: z.boolean() });

/**
 * Counting one agent or AI message against this UTC month's limit, as a CTE for the caller's
 * statement: `reservation` (plan_name, plan_max, reserved), one row once the `after` CTE of the
 * caller has a row (its locks are taken first; none when it has none). The SQL function
 * reserve_monthly_message (migration 0022) keeps the count in up to 8 slot rows, so a
 * business's replies do not queue on one row, and the limit exact (quotas split from it, or
 * every slot locked and counted near it; the 250 test).
 *
 * The slot's lock is held until commit: make it the LAST statement of the transaction.
 */
export function monthlyReservation(businessId: string, after: string) {
  return sql.fragment`
    reservation as (
      select r.plan_name, r.plan_max, r.reserved
      from (select ${businessId}::uuid as business_id from ${sql.identifier([after])} limit 1) as gate
      -- the argument comes from the gate: called once per gate row, never when it has none
      cross join lateral reserve_monthly_message(gate.business_id) as r
    )`;
}

export const reservationColumns = sql.fragment`reservation.plan_name, reservation.plan_max, reservation.reserved`;

/** 403 limit_exceeded/messages unless the statement counted the message (the caller's transaction must roll back). */
export function assertReserved(row: z.infer<typeof reservationRow>): void {
  if (row.reserved) return;
  throw planError(
    {
      error: 'limit_exceeded',
      plan: row.plan_name,
      feature: 'messages',
      current: row.plan_max,
      limit: row.plan_max,
      message: `Your ${row.plan_name} plan allows ${row.plan_max} messages a month.`,
    },
    403,
    'Upgrade to send more.',
  );
}

/** 402 feature_not_available/ai_auto_reply on a plan without AI auto-reply. */
export async function assertMayUseAutoReply(q: Queryable, businessId: string): Promise<void> {
  const plan = await planOf(q, businessId);
  if (!plan.aiAutoReply) {
    throw planError(
      {
        error: 'feature_not_available',
        plan: plan.name,
        feature: 'ai_auto_reply',
        message: `AI auto-reply is not available on the ${plan.name} plan.`,
      },
      402,
      'Upgrade to Mini or Pro.',
    );
  }
}

const mib = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

/**
 * 402 limit_exceeded/storage when the business's files now take more than its plan allows. Call
 * after writing a file, in the transaction that stores it (refused: the file is rolled back),
 * with the business row locked by planOf so two files are counted one after the other.
 */
export async function assertStorageWithinPlan(q: Queryable, businessId: string, plan: Plan): Promise<void> {
  const { bytes } = await q.one(sql.type(z.object({ bytes: z.coerce.number() }))`
    select coalesce(sum(size), 0)::bigint as bytes from uploads where business_id = ${businessId}`);
  if (bytes > plan.maxStorageBytes) {
    throw planError(
      {
        error: 'limit_exceeded',
        plan: plan.name,
        feature: 'storage',
        current: bytes,
        limit: plan.maxStorageBytes,
        message: `Your ${plan.name} plan stores up to ${mib(plan.maxStorageBytes)} of files.`,
      },
      402,
      'Upgrade to store more.',
    );
  }
}
