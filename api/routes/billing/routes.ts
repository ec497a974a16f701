/** Billing: start an upgrade at Stripe Checkout, and Stripe's signed payment-confirmation callback. */
import { z } from '../../../lib/zod.ts';
import { badRequest, serviceUnavailable } from '../../../core/errors.ts';
import { applyStripeEvent, paidPlans, startCheckout } from '../../../core/commands/billing.ts';
import { isSignatureError, isStripeError, stripeClient, verifyStripeEvent } from '../../../core/adapters/stripe.ts';
import type { Deps } from '../../../core/deps.ts';
import { defineRoute } from '../../route.ts';

const tags = ['Billing'];

export const checkoutUrl = defineRoute({
  method: 'get',
  path: '/api/v1/billing/checkout-url',
  summary: 'A hosted Stripe Checkout URL for an upgrade (owner only)',
  description:
    "Creates a Stripe Checkout Session (mode `subscription`, the plan's price, `client_reference_id` = business id, " +
    '`metadata` {business_id, plan}) and returns its URL. The buyer returns to `APP_URL` (else `PUBLIC_URL`) ' +
    '`/billing?checkout=success&session_id=…` or `/billing?checkout=cancelled`; the plan changes only when Stripe confirms the payment ' +
    "(POST /api/v1/billing/webhook). A business that already has a Stripe customer reuses it; otherwise the owner's e-mail is pre-filled. " +
    '`plan` not `mini`/`pro`: 422. Not the owner: 403. The same or a lower plan than the current one: 400. ' +
    "Stripe or the plan's price not configured: 503. Stripe refusing or unreachable: 502. Caller without a business: 400. See docs/decisions.md#billing.",
  tags,
  auth: 'user',
  policy: 'billing.checkout',
  query: z.object({ plan: z.enum(paidPlans).openapi({ description: 'The plan to upgrade to' }) }),
  response: z.object({ url: z.url() }).openapi('CheckoutUrl'),
  errors: [400, 403, 502, 503],
  handler: async ({ query, caller, member, deps }) => {
    const { businessId } = member;
    return startCheckout(deps, { businessId, plan: query.plan, ownerEmail: caller.email });
  },
});

/** The price a Checkout Session sold (its first line item), asked from Stripe; 503 when Stripe cannot be asked, so Stripe retries the event. */
async function checkoutPrice(deps: Deps, sessionId: string): Promise<string | null> {
  const stripe = await stripeClient(deps.config);
  if (!stripe) throw serviceUnavailable('Billing is not configured on this server (set STRIPE_SECRET_KEY)');
  try {
    const items = await stripe.checkout.sessions.listLineItems(sessionId, { limit: 1 });
    return items.data[0]?.price?.id ?? null;
  } catch (error) {
    if (!isStripeError(error)) throw error;
    // Stripe answering that it has no such session (4xx): nothing was sold; the event is acknowledged and ignored.
    if (error.statusCode !== undefined && error.statusCode < 500 && error.statusCode !== 429) return null;
    deps.logger.warn({ err: { type: error.type, message: error.message, status: error.statusCode }, session: sessionId }, 'stripe line items unavailable');
    throw serviceUnavailable('The payment provider could not be asked about this checkout; try again later');
  }
}

export const stripeWebhook = defineRoute({
  method: 'post',
  path: '/api/v1/billing/webhook',
  summary: 'Stripe webhook: the payment-confirmation callback (public, signed)',
  description:
    'Public; authenticated by the `Stripe-Signature` header over the exact raw body with `STRIPE_WEBHOOK_SECRET` (tolerance 300 s): ' +
    'missing or wrong → 400 and nothing changes. Without `STRIPE_WEBHOOK_SECRET`: 503 (Stripe retries). ' +
    '`checkout.session.completed` (and `checkout.session.async_payment_succeeded`) with `payment_status` `paid` moves the business named by ' +
    '`client_reference_id` (else `metadata.business_id`) at once to the plan of the price the session sold (read from Stripe: `STRIPE_PRICE_MINI`/`STRIPE_PRICE_PRO`; ' +
    '`metadata.plan` is not trusted) and stores its Stripe customer and subscription ids; a plan not above the current one is acknowledged and ignored. ' +
    '`customer.subscription.deleted`, or `customer.subscription.updated` to `canceled`, `unpaid` or `incomplete_expired`, moves the business holding that subscription to Free at once; ' +
    '`past_due` keeps the plan for 7 days from the first past-due event, then Free; `active` applies the plan of its price (a change made in Stripe). ' +
    '`invoice.payment_failed` e-mails the owner. On a lower plan what exists stays; nothing new is allowed past its limits. ' +
    'Each event id is applied once (a redelivery is acknowledged and changes nothing). Every other event type is acknowledged with 200. See docs/decisions.md#billing.',
  tags,
  auth: 'none',
  response: z.object({ received: z.literal(true) }),
  errors: [400, 503],
  handler: async ({ ctx, deps }) => {
    const secret = deps.config.STRIPE_WEBHOOK_SECRET;
    if (!secret) throw serviceUnavailable('Stripe webhooks are not configured on this server (set STRIPE_WEBHOOK_SECRET)');
    const signature = ctx.get('Stripe-Signature');
    // The default body parser keeps the exact request text beside the parsed JSON.
    const raw = ctx.request.rawBody;
    if (!signature) throw badRequest('Missing Stripe-Signature header');
    if (typeof raw !== 'string' || raw.length === 0) throw badRequest('Missing webhook body');
    let event;
    try {
      event = await verifyStripeEvent(raw, signature, secret);
    } catch (error) {
      throw badRequest(isSignatureError(error) ? 'Invalid Stripe signature' : 'Invalid webhook payload');
    }
    const outcome = await applyStripeEvent(deps.db, event, { config: deps.config, checkoutPrice: (sessionId) => checkoutPrice(deps, sessionId) });
    deps.logger.info({ stripe_event: event.id, type: event.type, outcome }, 'stripe event');
    return { received: true };
  },
});

export default [checkoutUrl, stripeWebhook];
