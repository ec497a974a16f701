/**
 * Workspace administration for operators (`parley business …`): list workspaces and set a
 * plan without Stripe (self-hosted installs). A business is named by its number (the integer
 * the API shows), its id (UUID) or its exact name (case-insensitive, when unique).
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { planNames, type PlanName } from '../domain/plans.ts';

const businessSummary = z.object({
  id: z.string(),
  number: z.coerce.string(),
  name: z.string(),
  plan: z.enum(planNames),
  owner_email: z.string(),
  /** Team members including the owner. */
  members: z.number(),
  /** Set when a Stripe subscription was bought: its next event may change the plan again. */
  stripe_subscription_id: z.string().nullable(),
  created_at: z.string(),
});
export type BusinessSummary = z.infer<typeof businessSummary>;

const columns = sql.fragment`
  b.id, b.number, b.name, b.plan, u.email as owner_email,
  (select count(*) from team_members m where m.business_id = b.id)::int as members,
  b.stripe_subscription_id, b.created_at`;

/** Whether the application's tables exist (a database `parley migrate` never ran on has none). */
export async function hasBusinesses(db: Queryable): Promise<boolean> {
  const row = await db.one(sql.type(z.object({ present: z.boolean() }))`select to_regclass('public.businesses') is not null as present`);
  return row.present;
}

/** Every business, oldest (lowest number) first. */
export async function listBusinesses(db: Queryable): Promise<BusinessSummary[]> {
  const rows = await db.any(sql.type(businessSummary)`
    select ${columns} from businesses b join users u on u.id = b.owner_id order by b.number`);
  return [...rows];
}

/** The businesses `ref` names: by number, UUID, or name (several when the name is shared). */
export async function findBusinesses(db: Queryable, ref: string): Promise<BusinessSummary[]> {
  const trimmed = ref.trim();
  const where = /^[1-9][0-9]{0,17}$/.test(trimmed)
    ? sql.fragment`b.number = ${trimmed}::bigint`
    : z.uuid().safeParse(trimmed).success
      ? sql.fragment`b.id = ${trimmed}::uuid`
      : sql.fragment`lower(b.name) = lower(${trimmed})`;
  const rows = await db.any(sql.type(businessSummary)`
    select ${columns} from businesses b join users u on u.id = b.owner_id where ${where} order by b.number`);
  return [...rows];
}

/** The plan named case-insensitively (`pro` → `Pro`), or null. */
export function planNamed(name: string): PlanName | null {
  return planNames.find((plan) => plan.toLowerCase() === name.trim().toLowerCase()) ?? null;
}

/**
 * Sets the plan (up or down) in one statement; returns the plan it had before. The plan is then
 * the operator's: a server without billing no longer moves it to PLAN_WITHOUT_BILLING.
 */
export async function setBusinessPlan(db: Queryable, businessId: string, plan: PlanName): Promise<PlanName> {
  const row = await db.one(sql.type(z.object({ before: z.enum(planNames) }))`
    update businesses b set plan = ${plan}, plan_chosen_by_operator = true, updated_at = now()
    from businesses old where old.id = b.id and b.id = ${businessId}
    returning old.plan as before`);
  return row.before;
}
