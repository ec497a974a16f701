/**
 * Upgrades through Stripe: a hosted Checkout Session to start one, the signed
 * `checkout.session.completed` callback to apply it. Plans only ever go up here; each Stripe
 * event id is applied once, recorded in the same transaction as its effect.
 */
import type Stripe from 'stripe';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { sql, type Db } from '../adapters/postgres/db.ts';
import { HttpError, badRequest, serviceUnavailable } from '../errors.ts';
import type { Logger } from '../adapters/logger.ts';
import { planNames, type PlanName } from '../domain/plans.ts';
import { isStripeError, stripeClient, stripePriceFor, type PaidPlan } from '../adapters/stripe.ts';

export const paidPlans = ['mini', 'pro'] as const;

const planNameOf: Record<PaidPlan, PlanName> = { mini: 'Mini', pro: 'Pro' };

const businessBilling = z.object({
  plan: z.enum(planNames),
  rank: z.number(),
  stripe_customer_id: z.string().nullable(),
});

const targetRank = z.object({ rank: z.number() });

/** Where Stripe sends the buyer back: the web app (APP_URL), else this service's public URL. */
function returnUrls(config: Pick<Config, 'APP_URL' | 'publicUrl'>): { success_url: string; cancel_url: string } {
  const base = (config.APP_URL ?? config.publicUrl).replace(/\/+$/, '');
  return {
    // Stripe fills in {CHECKOUT_SESSION_ID} itself; it must stay unencoded.
    success_url: `${base}/billing?checkout=success&session_id={CHECKOUT_SESSION_ID}`,
    cancel_url: `${base}/billing?checkout=cancelled`,
  };
}

export type CheckoutInput = {
  businessId: string;
  plan: PaidPlan;
  /** Pre-fills the checkout for a business that has no Stripe customer yet. */
  ownerEmail: string;
};

/**
 * The hosted checkout URL for an upgrade. 400 when the business is already on that plan or a
 * higher one; 503 when Stripe or the plan's price is not configured; 502 when Stripe refuses.
 */
export async function startCheckout(deps: { db: Db; config: Config; logger: Logger }, input: CheckoutInput): Promise<{ url: string }> {
  const { db, config } = deps;
  const current = await db.one(sql.type(businessBilling)`
    select b.plan, p.rank, b.stripe_customer_id from businesses b join plans p on p.name = b.plan where b.id = ${input.businessId}`);
  const target = planNameOf[input.plan];
  const { rank } = await db.one(sql.type(targetRank)`select rank from plans where name = ${target}`);
  if (rank <= current.rank) {
    throw badRequest(
      current.plan === target
        ? `The business is already on the ${target} plan`
        : `The business is on the ${current.plan} plan; ${target} would be a downgrade, which is not supported`,
    );
  }
  const price = stripePriceFor(config, input.plan);
  const stripe = await stripeClient(config);
  if (!stripe || !price) {
    const missing = [!config.STRIPE_SECRET_KEY && 'STRIPE_SECRET_KEY', !price && `STRIPE_PRICE_${input.plan.toUpperCase()}`].filter(Boolean);
    throw serviceUnavailable(`Billing is not configured on this server (set ${missing.join(' and ')})`);
  }
  const metadata = { business_id: input.businessId, plan: input.plan };
  let session: Stripe.Checkout.Session;
  try {
    session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price, quantity: 1 }],
      ...returnUrls(config),
      client_reference_id: input.businessId,
      metadata,
      subscription_data: { metadata },
      ...(current.stripe_customer_id ? { customer: current.stripe_customer_id } : { customer_email: input.ownerEmail }),
    });
  } catch (error) {
    if (!isStripeError(error)) throw error;
    deps.logger.warn({ err: { type: error.type, code: error.code, message: error.message, status: error.statusCode } }, 'stripe checkout failed');
    throw new HttpError(502, { detail: 'The payment provider could not start the checkout; try again later' });
  }
  if (!session.url) throw new HttpError(502, { detail: 'The payment provider returned no checkout URL' });
  return { url: session.url };
}

/** What applying one event did. */
export type StripeEventOutcome =
  | { kind: 'duplicate' }
  | { kind: 'ignored'; reason: string }
  | { kind: 'upgraded'; businessId: string; plan: PlanName };

const sessionFields = z.object({
  client_reference_id: z.string().nullish(),
  payment_status: z.string().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  customer: z.union([z.string(), z.object({ id: z.string() })]).nullish(),
  subscription: z.union([z.string(), z.object({ id: z.string() })]).nullish(),
});

const idOf = (v: string | { id: string } | null | undefined) => (v == null ? null : typeof v === 'string' ? v : v.id);

/** Event types whose Checkout Session may complete a paid upgrade. */
const checkoutEvents = new Set(['checkout.session.completed', 'checkout.session.async_payment_succeeded']);

/**
 * Applies a verified Stripe event once. The event id is claimed first (`on conflict do
 * nothing`), so a redelivery, even one racing the first, changes nothing. A paid checkout
 * upgrades the business at once and keeps its Stripe customer and subscription ids; a plan not
 * above the current one is acknowledged and ignored (no downgrades).
 */
export async function applyStripeEvent(db: Db, event: Pick<Stripe.Event, 'id' | 'type'> & { data: { object: unknown } }): Promise<StripeEventOutcome> {
  return db.transaction(async (tx) => {
    const session = checkoutEvents.has(event.type) ? sessionFields.safeParse(event.data.object) : null;
    const claimedBusiness = session?.success ? businessIdOf(session.data) : null;
    const business = claimedBusiness
      ? await tx.maybeOne(sql.type(z.object({ id: z.string() }))`select id from businesses where id = ${claimedBusiness} for update`)
      : null;
    const claimed = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
      insert into stripe_events (id, type, business_id) values (${event.id}, ${event.type}, ${business?.id ?? null})
      on conflict (id) do nothing returning id`);
    if (!claimed) return { kind: 'duplicate' };
    if (!session) return { kind: 'ignored', reason: `event type ${event.type} is not handled` };
    if (!session.success) return { kind: 'ignored', reason: 'not a checkout session' };
    if (session.data.payment_status !== 'paid') return { kind: 'ignored', reason: `payment_status ${session.data.payment_status ?? 'missing'}` };
    if (!business) return { kind: 'ignored', reason: 'unknown business' };
    const planParam = session.data.metadata?.plan?.toLowerCase();
    if (planParam !== 'mini' && planParam !== 'pro') return { kind: 'ignored', reason: `unknown plan ${planParam ?? 'missing'}` };
    const target = planNameOf[planParam];
    const upgraded = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
      update businesses b set
        plan = ${target},
        stripe_customer_id = coalesce(${idOf(session.data.customer)}, b.stripe_customer_id),
        stripe_subscription_id = coalesce(${idOf(session.data.subscription)}, b.stripe_subscription_id),
        updated_at = now()
      from plans current, plans target
      where b.id = ${business.id} and current.name = b.plan and target.name = ${target} and target.rank > current.rank
      returning b.id`);
    if (!upgraded) return { kind: 'ignored', reason: `already on ${target} or higher` };
    return { kind: 'upgraded', businessId: business.id, plan: target };
  });
}

/** The business the session was opened for: client_reference_id, else metadata.business_id; only a UUID is looked up. */
function businessIdOf(session: z.infer<typeof sessionFields>): string | null {
  const candidate = session.client_reference_id ?? session.metadata?.business_id ?? null;
  return candidate && z.uuid().safeParse(candidate).success ? candidate : null;
}
