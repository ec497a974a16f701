/**
 * The Stripe client and billing settings, from configuration only. STRIPE_API_URL points the
 * client elsewhere (a fake server in tests); telemetry is off so no latency headers leak out.
 * The library (33 MiB of RSS) loads on first use: most processes never touch billing.
 */
import type Stripe from 'stripe';
import type { Config } from '../config.ts';
import { lazyModule } from '../../lib/lazy-module.ts';

const stripeLibrary = lazyModule(async () => (await import('stripe')).default);

export type PaidPlan = 'mini' | 'pro';

/** What Stripe needs from the configuration; null fields mean "not configured". */
type StripeConfig = Pick<Config, 'STRIPE_SECRET_KEY' | 'STRIPE_PRICE_MINI' | 'STRIPE_PRICE_PRO' | 'STRIPE_API_URL'>;

const clients = new WeakMap<object, Stripe>();

/** The Stripe price id for a plan, or undefined when its variable is unset. */
export function stripePriceFor(config: StripeConfig, plan: PaidPlan): string | undefined {
  return plan === 'mini' ? config.STRIPE_PRICE_MINI : config.STRIPE_PRICE_PRO;
}

/**
 * One client per configuration (it keeps an HTTP agent). Retries are left to the caller: a
 * checkout request is interactive, so it fails fast rather than waiting out backoff.
 */
export async function stripeClient(config: StripeConfig): Promise<Stripe | null> {
  if (!config.STRIPE_SECRET_KEY) return null;
  const cached = clients.get(config);
  if (cached) return cached;
  const Stripe = await stripeLibrary.load();
  const options: ConstructorParameters<typeof Stripe>[1] = { maxNetworkRetries: 1, telemetry: false, timeout: 20_000 };
  if (config.STRIPE_API_URL) {
    const url = new URL(config.STRIPE_API_URL);
    const protocol = url.protocol === 'http:' ? 'http' : 'https';
    options.host = url.hostname;
    options.port = url.port ? Number(url.port) : protocol === 'http' ? 80 : 443;
    options.protocol = protocol;
  }
  const client = new Stripe(config.STRIPE_SECRET_KEY, options);
  clients.set(config, client);
  return client;
}

/** Verifies a webhook's `Stripe-Signature` over its exact raw body; throws on a bad or stale one (tolerance 300 s). */
export async function verifyStripeEvent(rawBody: string | Buffer, signature: string, secret: string): Promise<Stripe.Event> {
  return (await stripeLibrary.load()).webhooks.constructEvent(rawBody, signature, secret);
}

// Only a loaded library can have thrown its errors, so these checks need no import.
export const isSignatureError = (error: unknown): boolean => {
  const library = stripeLibrary.loaded();
  return library !== undefined && error instanceof library.errors.StripeSignatureVerificationError;
};
export const isStripeError = (error: unknown): error is InstanceType<typeof Stripe.errors.StripeError> => {
  const library = stripeLibrary.loaded();
  return library !== undefined && error instanceof library.errors.StripeError;
};
