/**
 * Upgrading from the agent app in a real browser: the owner's "Upgrade" goes to Stripe
 * Checkout (the fake Stripe makes the session; the checkout page itself is answered locally),
 * Stripe's confirmation upgrades the plan, the return page shows the new plan, and the AI
 * agent's auto-reply (a Mini feature) can be switched on.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { appPage, browserTest, hasChromium, launchChromium, noteIfSkipped } from './helpers/browser.ts';
import { startFakeStripe, type FakeStripe } from './fakes/stripe.ts';
import { waitFor } from './helpers/worker.ts';

noteIfSkipped('app-browser-billing');

const SECRET_KEY = 'sk_test_parley_app';
const WEBHOOK_SECRET = 'whsec_parley_app';
let app: TestApp;
let stripe: FakeStripe;
let browser: Browser;
let owner: Workspace;

test.before(async () => {
  if (!hasChromium) return;
  stripe = await startFakeStripe({ secretKey: SECRET_KEY });
  app = await startTestApp({
    env: {
      STRIPE_SECRET_KEY: SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_PRICE_MINI: 'price_mini',
      STRIPE_PRICE_PRO: 'price_pro',
      STRIPE_API_URL: stripe.url,
    },
  });
  owner = await createWorkspace(app, { name: 'Olive Owner' });
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await app?.close();
  await stripe?.close();
});

/** Stripe's confirmation that the checkout was paid, signed as Stripe signs it. */
async function stripeConfirms(businessId: string, plan: 'mini' | 'pro', sessionId: string): Promise<void> {
  const payload = JSON.stringify({
    id: `evt_${randomBytes(8).toString('hex')}`,
    object: 'event',
    type: 'checkout.session.completed',
    created: Math.floor(Date.now() / 1000),
    data: {
      object: {
        id: sessionId,
        object: 'checkout.session',
        mode: 'subscription',
        client_reference_id: businessId,
        metadata: { business_id: businessId, plan },
        payment_status: 'paid',
        status: 'complete',
      },
    },
  });
  const res = await app.request('POST', '/api/v1/billing/webhook', {
    rawBody: payload,
    headers: { 'content-type': 'application/json', 'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) },
  });
  if (res.status !== 200) throw new Error(`webhook: ${res.status} ${res.text}`);
}

browserTest('the owner upgrades through Stripe Checkout and comes back to the new plan', async (t) => {
  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  // Stripe's hosted page, answered here: tests never leave 127.0.0.1.
  await context.route('https://checkout.stripe.com/**', (route) => route.fulfill({ contentType: 'text/html', body: '<h1>Stripe Checkout</h1>' }));
  await page.goto(`${app.url}/app/settings/plan`);
  await page.getByText('Current plan').waitFor();
  t.is(await page.locator('.plan-name').first().textContent(), 'Free');
  await page.getByRole('button', { name: 'Upgrade to Mini' }).click();
  await page.waitForURL('https://checkout.stripe.com/**');
  const session = stripe.requests.at(-1)!;
  t.like(session.form, { 'metadata[plan]': 'mini', 'metadata[business_id]': owner.businessId });
  t.true(session.form.success_url!.startsWith(`${app.url}/billing?checkout=success`), session.form.success_url);

  // The session the fake Stripe created: Parley asks it which price was sold.
  const sessionId = String(stripe.sessionIds.at(-1));
  await stripeConfirms(owner.businessId, 'mini', sessionId);
  // Stripe sends the buyer back with the session id filled in.
  await page.goto(session.form.success_url!.replace('{CHECKOUT_SESSION_ID}', 'cs_test_1'));
  await page.getByText('Thank you! Your payment went through').waitFor();
  t.is(await page.locator('.plan-name').first().textContent(), 'Mini');
  t.is(await page.getByRole('button', { name: 'Upgrade to Mini' }).count(), 0, 'no upgrade to the plan it has');
  await page.getByRole('button', { name: 'Upgrade to Pro' }).waitFor();

  // Mini includes the AI agent: its auto-reply switch now turns on.
  await page.getByRole('link', { name: 'AI agent' }).click();
  await page.getByRole('switch', { name: 'AI auto-reply' }).check();
  await page.getByText('The AI agent answers new customer messages.').waitFor();
  await waitFor(
    async () => (await app.request('GET', '/api/v1/ai/settings', { token: owner.token })).body.auto_reply_enabled === true,
    10_000,
    'auto-reply saved',
  );
  t.true(await page.getByRole('switch', { name: 'AI auto-reply' }).isChecked());
  t.deepEqual(errors, []);
  await context.close();
});
