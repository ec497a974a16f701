/**
 * Plans through Stripe: a hosted Checkout Session to start an upgrade, the signed webhook events
 * to apply it and to follow the subscription afterwards (cancelled, unpaid, past due, changed
 * in Stripe). Each Stripe event id is applied once, recorded in the same transaction as its effect.
 */
import type Stripe from 'stripe';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { sql, type Db, type Queryable } from '../adapters/postgres/db.ts';
import { enqueue } from '../jobs.ts';
import { HttpError, badRequest, serviceUnavailable } from '../errors.ts';
import type { Logger } from '../adapters/logger.ts';
import { planNames, type PlanName } from '../domain/plans.ts';
import { recordAudit } from '../domain/platform/audit.ts';
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
  | { kind: 'upgraded'; businessId: string; plan: PlanName }
  | { kind: 'plan_changed'; businessId: string; plan: PlanName }
  | { kind: 'ended'; businessId: string }
  | { kind: 'past_due'; businessId: string }
  | { kind: 'payment_failed_mailed'; businessId: string };

/** How long a past-due subscription keeps its plan before the business goes to Free. */
export const PAST_DUE_GRACE_DAYS = 7;

const sessionFields = z.object({
  id: z.string().nullish(),
  client_reference_id: z.string().nullish(),
  payment_status: z.string().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  customer: z.union([z.string(), z.object({ id: z.string() })]).nullish(),
  subscription: z.union([z.string(), z.object({ id: z.string() })]).nullish(),
});

const subscriptionFields = z.object({
  id: z.string(),
  status: z.string(),
  metadata: z.record(z.string(), z.string()).nullish(),
  items: z.object({ data: z.array(z.object({ price: z.object({ id: z.string() }) })) }).nullish(),
});

const invoiceFields = z.object({
  subscription: z.union([z.string(), z.object({ id: z.string() })]).nullish(),
  // Newer API versions name the subscription under parent.subscription_details.
  parent: z.object({ subscription_details: z.object({ subscription: z.union([z.string(), z.object({ id: z.string() })]).nullish() }).nullish() }).nullish(),
  amount_due: z.number().nullish(),
  currency: z.string().nullish(),
});

const idOf = (v: string | { id: string } | null | undefined) => (v == null ? null : typeof v === 'string' ? v : v.id);

/** Event types whose Checkout Session may complete a paid upgrade. */
const checkoutEvents = new Set(['checkout.session.completed', 'checkout.session.async_payment_succeeded']);
const subscriptionEvents = new Set(['customer.subscription.created', 'customer.subscription.updated', 'customer.subscription.deleted']);
/** Subscription states in which Stripe no longer collects: the business is on Free at once. */
const endedStatuses = new Set(['canceled', 'unpaid', 'incomplete_expired']);

/** The plan a configured Stripe price sells; null for any other price. */
export function planForPrice(config: Pick<Config, 'STRIPE_PRICE_MINI' | 'STRIPE_PRICE_PRO'>, priceId: string | null | undefined): PlanName | null {
  if (!priceId) return null;
  for (const plan of paidPlans) if (stripePriceFor(config, plan) === priceId) return planNameOf[plan];
  return null;
}

export type StripeEventContext = {
  config: Pick<Config, 'STRIPE_PRICE_MINI' | 'STRIPE_PRICE_PRO' | 'APP_URL' | 'publicUrl'>;
  /** The price a Checkout Session sold (its first line item), asked from Stripe: the plan comes from it, never from metadata. */
  checkoutPrice: (sessionId: string) => Promise<string | null>;
};

type Event = Pick<Stripe.Event, 'id' | 'type'> & { data: { object: unknown } };

/**
 * Applies a verified Stripe event once. The event id is claimed first (`on conflict do
 * nothing`), so a redelivery, even one racing the first, changes nothing.
 *
 * - A paid checkout upgrades the business at once to the plan of the price it sold (asked
 *   from Stripe; `metadata.plan` is not trusted) and keeps its customer and subscription ids; a
 *   plan not above the current one is acknowledged and ignored.
 * - Subscription events find the business by subscription id: `deleted`, or a status of
 *   `canceled`, `unpaid` or `incomplete_expired` → Free at once; `past_due` → the plan stays for
 *   PAST_DUE_GRACE_DAYS from the first past-due event (end_billing_grace moves it to Free
 *   after); `active`/`trialing` → the plan of its price (a change made in Stripe), grace ended.
 * - `invoice.payment_failed` mails the owner.
 * What exists beyond a lower plan's limits stays; nothing new is allowed past them.
 */
export async function applyStripeEvent(db: Db, event: Event, context: StripeEventContext): Promise<StripeEventOutcome> {
  // The only network call, before the transaction: the price a paid checkout sold.
  const session = checkoutEvents.has(event.type) ? sessionFields.safeParse(event.data.object) : null;
  const paidSession = session?.success && session.data.payment_status === 'paid' && session.data.id ? session.data : null;
  const soldPrice = paidSession ? await context.checkoutPrice(paidSession.id!) : null;
  return db.transaction(async (tx) => {
    const claimedBusiness = session?.success ? businessIdOf(session.data) : null;
    const business = claimedBusiness
      ? await tx.maybeOne(sql.type(z.object({ id: z.string() }))`select id from businesses where id = ${claimedBusiness} for update`)
      : null;
    const claimed = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
      insert into stripe_events (id, type, business_id) values (${event.id}, ${event.type}, ${business?.id ?? null})
      on conflict (id) do nothing returning id`);
    if (!claimed) return { kind: 'duplicate' };
    if (subscriptionEvents.has(event.type)) return auditPlanChange(tx, event, await applySubscription(tx, event, context));
    if (event.type === 'invoice.payment_failed') return mailPaymentFailed(tx, event, context);
    if (!session) return { kind: 'ignored', reason: `event type ${event.type} is not handled` };
    if (!session.success) return { kind: 'ignored', reason: 'not a checkout session' };
    if (session.data.payment_status !== 'paid') return { kind: 'ignored', reason: `payment_status ${session.data.payment_status ?? 'missing'}` };
    if (!business) return { kind: 'ignored', reason: 'unknown business' };
    const target = planForPrice(context.config, soldPrice);
    if (!target) return { kind: 'ignored', reason: `the session sold no configured price (${soldPrice ?? 'none'})` };
    const upgraded = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
      update businesses b set
        plan = ${target},
        stripe_customer_id = coalesce(${idOf(session.data.customer)}, b.stripe_customer_id),
        stripe_subscription_id = coalesce(${idOf(session.data.subscription)}, b.stripe_subscription_id),
        past_due_since = null,
        updated_at = now()
      from plans current, plans target
      where b.id = ${business.id} and current.name = b.plan and target.name = ${target} and target.rank > current.rank
      returning b.id`);
    if (!upgraded) return { kind: 'ignored', reason: `already on ${target} or higher` };
    return auditPlanChange(tx, event, { kind: 'upgraded', businessId: business.id, plan: target });
  });
}

/** The audit log's record of a plan the payment provider changed, in the event's transaction. */
async function auditPlanChange(tx: Queryable, event: Event, outcome: StripeEventOutcome): Promise<StripeEventOutcome> {
  if (outcome.kind !== 'upgraded' && outcome.kind !== 'plan_changed' && outcome.kind !== 'ended') return outcome;
  const plan = 'plan' in outcome ? outcome.plan : outcome.kind === 'ended' ? 'Free' : null;
  await recordAudit(tx, {
    businessId: outcome.businessId,
    actor: { type: 'system', name: 'Stripe' },
    action: 'plan.changed',
    targetType: 'plan',
    targetId: plan,
    details: { outcome: outcome.kind, stripe_event: event.id, stripe_event_type: event.type, ...(plan ? { plan } : {}) },
  });
  return outcome;
}

/** The business holding a subscription: by its id, else (a first event) by the metadata Parley set at checkout. */
async function businessOfSubscription(tx: Queryable, subscriptionId: string | null, metadataBusinessId?: string | null): Promise<string | null> {
  if (!subscriptionId) return null;
  const byId = await tx.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
    select id from businesses where stripe_subscription_id = ${subscriptionId} for update`);
  if (byId) return byId;
  if (!metadataBusinessId || !z.uuid().safeParse(metadataBusinessId).success) return null;
  return tx.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
    select id from businesses where id = ${metadataBusinessId} and stripe_subscription_id is null for update`);
}

async function applySubscription(tx: Queryable, event: Event, context: StripeEventContext): Promise<StripeEventOutcome> {
  const parsed = subscriptionFields.safeParse(event.data.object);
  if (!parsed.success) return { kind: 'ignored', reason: 'not a subscription' };
  const subscription = parsed.data;
  const businessId = await businessOfSubscription(tx, subscription.id, subscription.metadata?.business_id);
  if (!businessId) return { kind: 'ignored', reason: 'no business holds this subscription' };
  if (event.type === 'customer.subscription.deleted' || endedStatuses.has(subscription.status)) {
    await tx.query(sql.unsafe`
      update businesses set plan = 'Free', past_due_since = null, updated_at = now() where id = ${businessId}`);
    return { kind: 'ended', businessId };
  }
  if (subscription.status === 'past_due') {
    await tx.query(sql.unsafe`
      update businesses set past_due_since = coalesce(past_due_since, now()), updated_at = now() where id = ${businessId}`);
    return { kind: 'past_due', businessId };
  }
  if (subscription.status !== 'active' && subscription.status !== 'trialing') return { kind: 'ignored', reason: `status ${subscription.status}` };
  const plan = planForPrice(context.config, subscription.items?.data[0]?.price.id);
  if (!plan) return { kind: 'ignored', reason: 'the subscription sells no configured price' };
  await tx.query(sql.unsafe`
    update businesses set plan = ${plan}, stripe_subscription_id = ${subscription.id}, past_due_since = null, updated_at = now()
    where id = ${businessId}`);
  return { kind: 'plan_changed', businessId, plan };
}

async function mailPaymentFailed(tx: Queryable, event: Event, context: StripeEventContext): Promise<StripeEventOutcome> {
  const parsed = invoiceFields.safeParse(event.data.object);
  const subscriptionId = parsed.success ? (idOf(parsed.data.subscription) ?? idOf(parsed.data.parent?.subscription_details?.subscription)) : null;
  const businessId = await businessOfSubscription(tx, subscriptionId);
  if (!businessId) return { kind: 'ignored', reason: 'no business holds this subscription' };
  const owner = await tx.one(sql.type(z.object({ email: z.string(), plan: z.string() }))`
    select u.email, b.plan from businesses b
    join team_members m on m.business_id = b.id and m.role = 'owner'
    join users u on u.id = m.user_id
    where b.id = ${businessId}`);
  const billingUrl = `${(context.config.APP_URL ?? context.config.publicUrl).replace(/\/+$/, '')}/app/settings/plan`;
  await enqueue(tx, 'send_email', {
    to: owner.email,
    subject: 'Parley: your payment failed',
    text:
      `Stripe could not collect the payment for your Parley ${owner.plan} plan.\n\n` +
      `Please update your payment method in Stripe. If the subscription stays unpaid for ${PAST_DUE_GRACE_DAYS} days, ` +
      `your workspace moves to the Free plan: what you have stays, but nothing new beyond Free's limits.\n\n${billingUrl}\n`,
  });
  return { kind: 'payment_failed_mailed', businessId };
}

/** Ends the grace of subscriptions past due for longer than PAST_DUE_GRACE_DAYS: those businesses go to Free. Returns their ids. */
export async function endBillingGrace(q: Queryable): Promise<readonly string[]> {
  return q.anyFirst(sql.type(z.object({ id: z.string() }))`
    update businesses set plan = 'Free', past_due_since = null, updated_at = now()
    where past_due_since < now() - make_interval(days => ${PAST_DUE_GRACE_DAYS})
    returning id`);
}

/** The business the session was opened for: client_reference_id, else metadata.business_id; only a UUID is looked up. */
function businessIdOf(session: z.infer<typeof sessionFields>): string | null {
  const candidate = session.client_reference_id ?? session.metadata?.business_id ?? null;
  return candidate && z.uuid().safeParse(candidate).success ? candidate : null;
}
