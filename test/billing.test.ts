import test from 'ava';
import Stripe from 'stripe';
import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, registerUser } from './helpers/fixtures.ts';
import { startFakeStripe, type FakeStripe } from './fakes/stripe.ts';
import { startTestWorker, waitFor } from './helpers/worker.ts';

const SECRET_KEY = 'sk_test_parley_fake';
const WEBHOOK_SECRET = 'whsec_parley_test_secret';
const APP_URL = 'https://app.parley.test';

let app: TestApp;
let bare: TestApp;
let stripe: FakeStripe;

test.before(async () => {
  stripe = await startFakeStripe({ secretKey: SECRET_KEY });
  app = await startTestApp({
    env: {
      STRIPE_SECRET_KEY: SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_PRICE_MINI: 'price_mini_123',
      STRIPE_PRICE_PRO: 'price_pro_456',
      STRIPE_API_URL: stripe.url,
      APP_URL,
    },
  });
  bare = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
  await bare?.close();
  await stripe?.close();
});

const businessRow = async (id: string) => (await app.sql(`select plan, stripe_customer_id, stripe_subscription_id from businesses where id = $1`, [id]))[0];

const eventRows = (id: string) => app.sql(`select id, type, business_id from stripe_events where id = $1`, [id]);

const checkoutRequestFor = (businessId: string) => stripe.requests.filter((r) => r.form.client_reference_id === businessId);

// ---------- checkout-url ----------

test('checkout-url: owner on Free gets a Stripe Checkout URL for mini, built from the right request', async (t) => {
  const ws = await createWorkspace(app);
  const res = await app.request('GET', '/api/v1/billing/checkout-url', { token: ws.token, query: { plan: 'mini' } });
  t.is(res.status, 200, res.text);
  t.regex(res.body.url, /^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/);
  const [req] = checkoutRequestFor(ws.businessId);
  t.truthy(req);
  t.is(req.path, '/v1/checkout/sessions');
  t.is(req.headers.authorization, `Bearer ${SECRET_KEY}`);
  t.like(req.form, {
    mode: 'subscription',
    'line_items[0][price]': 'price_mini_123',
    'line_items[0][quantity]': '1',
    client_reference_id: ws.businessId,
    'metadata[business_id]': ws.businessId,
    'metadata[plan]': 'mini',
    customer_email: ws.email,
    success_url: `${APP_URL}/billing?checkout=success&session_id={CHECKOUT_SESSION_ID}`,
    cancel_url: `${APP_URL}/billing?checkout=cancelled`,
  });
  t.false('customer' in req.form);
  t.is(await businessRow(ws.businessId).then((b) => b.plan), 'Free', 'the plan changes only on the webhook');
});

test('checkout-url: Mini may go to Pro; same or lower plan is 400 and Stripe is not called', async (t) => {
  const mini = await createWorkspace(app, { plan: 'Mini' });
  const up = await app.request('GET', '/api/v1/billing/checkout-url', { token: mini.token, query: { plan: 'pro' } });
  t.is(up.status, 200, up.text);
  t.is(checkoutRequestFor(mini.businessId)[0].form['line_items[0][price]'], 'price_pro_456');

  const same = await app.request('GET', '/api/v1/billing/checkout-url', { token: mini.token, query: { plan: 'mini' } });
  t.is(same.status, 400, same.text);
  t.is(typeof same.body.detail, 'string');
  const pro = await createWorkspace(app, { plan: 'Pro' });
  for (const plan of ['mini', 'pro']) {
    const res = await app.request('GET', '/api/v1/billing/checkout-url', { token: pro.token, query: { plan } });
    t.is(res.status, 400, `${plan}: ${res.text}`);
  }
  t.is(checkoutRequestFor(mini.businessId).length, 1);
  t.is(checkoutRequestFor(pro.businessId).length, 0);
});

test('checkout-url: an existing Stripe customer is reused', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  await app.sql(`update businesses set stripe_customer_id = 'cus_existing' where id = $1`, [ws.businessId]);
  const res = await app.request('GET', '/api/v1/billing/checkout-url', { token: ws.token, query: { plan: 'pro' } });
  t.is(res.status, 200, res.text);
  const [req] = checkoutRequestFor(ws.businessId);
  t.is(req.form.customer, 'cus_existing');
  t.false('customer_email' in req.form);
});

test('checkout-url: plan not mini/pro is 422 in the spec shape', async (t) => {
  const ws = await createWorkspace(app);
  for (const plan of ['gold', 'free', 'Mini']) {
    const res = await app.request('GET', '/api/v1/billing/checkout-url', { token: ws.token, query: { plan } });
    t.is(res.status, 422, `${plan}: ${res.text}`);
    t.deepEqual(
      res.body.detail.map((d: any) => [d.loc.join('.'), d.type]),
      [['query.plan', 'enum']],
    );
  }
  const missing = await app.request('GET', '/api/v1/billing/checkout-url', { token: ws.token });
  t.is(missing.status, 422);
  t.deepEqual(
    missing.body.detail.map((d: any) => [d.loc.join('.'), d.type]),
    [['query.plan', 'missing']],
  );
});

test('checkout-url: admin and agent get 403; no business 400; no token 401', async (t) => {
  const ws = await createWorkspace(app);
  for (const role of ['admin', 'agent'] as const) {
    const member = await addMember(app, ws.businessId, role);
    const res = await app.request('GET', '/api/v1/billing/checkout-url', { token: member.token, query: { plan: 'mini' } });
    t.is(res.status, 403, `${role}: ${res.text}`);
  }
  t.is(checkoutRequestFor(ws.businessId).length, 0);
  const loner = await registerUser(app, 'Loner');
  t.is((await app.request('GET', '/api/v1/billing/checkout-url', { token: loner.token, query: { plan: 'mini' } })).status, 400);
  t.is((await app.request('GET', '/api/v1/billing/checkout-url', { query: { plan: 'mini' } })).status, 401);
});

test.serial('checkout-url: Stripe refusing the request is 502 with a detail', async (t) => {
  const ws = await createWorkspace(app);
  stripe.failNext(400, 'No such price: price_mini_123');
  const res = await app.request('GET', '/api/v1/billing/checkout-url', { token: ws.token, query: { plan: 'mini' } });
  t.is(res.status, 502, res.text);
  t.is(typeof res.body.detail, 'string');
  t.notRegex(res.body.detail, /price_mini_123/);
});

test('without Stripe configured: checkout-url and webhook are 503 with a clear detail', async (t) => {
  const ws = await createWorkspace(bare);
  const res = await bare.request('GET', '/api/v1/billing/checkout-url', { token: ws.token, query: { plan: 'pro' } });
  t.is(res.status, 503, res.text);
  t.regex(res.body.detail, /not configured.*STRIPE_SECRET_KEY.*STRIPE_PRICE_PRO/);
  const payload = JSON.stringify(checkoutEvent({ businessId: ws.businessId, plan: 'pro' }));
  const hook = await bare.request('POST', '/api/v1/billing/webhook', {
    rawBody: payload,
    headers: { 'content-type': 'application/json', 'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) },
  });
  t.is(hook.status, 503, hook.text);
  t.regex(hook.body.detail, /STRIPE_WEBHOOK_SECRET/);
});

// ---------- webhook ----------

type EventOptions = {
  id?: string;
  type?: string;
  businessId?: string | null;
  metadataBusinessId?: string;
  plan?: string;
  paymentStatus?: string;
  /** The price the session sold (kept by the fake Stripe); by default the configured price of `plan`. */
  price?: string;
  extra?: Record<string, unknown>;
};

const PRICES: Record<string, string> = { mini: 'price_mini_123', pro: 'price_pro_456' };

function checkoutEvent(o: EventOptions) {
  const metadata: Record<string, string> = {};
  if (o.metadataBusinessId ?? o.businessId) metadata.business_id = (o.metadataBusinessId ?? o.businessId)!;
  if (o.plan) metadata.plan = o.plan;
  const sessionId = `cs_test_${randomBytes(8).toString('hex')}`;
  const price = o.price ?? (o.plan ? PRICES[o.plan] : undefined);
  if (price) stripe.setSessionPrice(sessionId, price);
  return {
    id: o.id ?? `evt_${randomBytes(10).toString('hex')}`,
    object: 'event',
    api_version: '2025-01-27.acacia',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    type: o.type ?? 'checkout.session.completed',
    data: {
      object: {
        id: sessionId,
        object: 'checkout.session',
        mode: 'subscription',
        client_reference_id: o.businessId ?? null,
        metadata,
        payment_status: o.paymentStatus ?? 'paid',
        status: 'complete',
        customer: 'cus_' + randomBytes(6).toString('hex'),
        subscription: 'sub_' + randomBytes(6).toString('hex'),
        ...o.extra,
      },
    },
  };
}

async function deliver(
  target: TestApp,
  payload: string,
  options: { secret?: string; signature?: string | null; timestamp?: number; contentType?: string } = {},
) {
  const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/json; charset=utf-8' };
  const signature =
    options.signature === undefined
      ? Stripe.webhooks.generateTestHeaderString({ payload, secret: options.secret ?? WEBHOOK_SECRET, timestamp: options.timestamp })
      : options.signature;
  if (signature !== null) headers['stripe-signature'] = signature;
  return target.request('POST', '/api/v1/billing/webhook', { rawBody: payload, headers });
}

test('webhook: a paid checkout upgrades Free → Mini at once, stores Stripe ids, and new limits apply without re-auth', async (t) => {
  const ws = await createWorkspace(app);
  t.is((await app.request('PUT', '/api/v1/ai/settings', { token: ws.token, body: { auto_reply_enabled: true } })).status, 402);
  const event = checkoutEvent({ businessId: ws.businessId, plan: 'mini' });
  const res = await deliver(app, JSON.stringify(event));
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body, { received: true });
  t.deepEqual(await businessRow(ws.businessId), {
    plan: 'Mini',
    stripe_customer_id: event.data.object.customer,
    stripe_subscription_id: event.data.object.subscription,
  });
  t.deepEqual(await eventRows(event.id), [{ id: event.id, type: 'checkout.session.completed', business_id: ws.businessId }]);
  const business = await app.request('GET', '/api/v1/business', { token: ws.token });
  t.is(business.body.plan, 'Mini');
  t.is((await app.request('PUT', '/api/v1/ai/settings', { token: ws.token, body: { auto_reply_enabled: true } })).status, 200);
});

test('webhook: the raw body is verified byte for byte (pretty JSON, non-ASCII text)', async (t) => {
  const ws = await createWorkspace(app);
  const event = checkoutEvent({
    businessId: ws.businessId,
    plan: 'pro',
    extra: { customer_details: { name: 'Zoë Ünïcødé 日本語 — “quotes”', email: 'z@example.com' } },
  });
  const payload = JSON.stringify(event, null, 2) + '\n';
  const res = await deliver(app, payload);
  t.is(res.status, 200, res.text);
  t.is((await businessRow(ws.businessId)).plan, 'Pro');
});

test('webhook: a replayed event id is applied once', async (t) => {
  const ws = await createWorkspace(app);
  const payload = JSON.stringify(checkoutEvent({ businessId: ws.businessId, plan: 'mini' }));
  t.is((await deliver(app, payload)).status, 200);
  t.is((await businessRow(ws.businessId)).plan, 'Mini');
  // Put the row back: if the replay were applied again it would upgrade again.
  await app.sql(`update businesses set plan = 'Free', stripe_customer_id = null where id = $1`, [ws.businessId]);
  const replay = await deliver(app, payload);
  t.is(replay.status, 200, replay.text);
  t.deepEqual(replay.body, { received: true });
  t.like(await businessRow(ws.businessId), { plan: 'Free', stripe_customer_id: null });
  const id = JSON.parse(payload).id;
  t.is((await eventRows(id)).length, 1);
});

test('webhook: concurrent deliveries of one event apply it once', async (t) => {
  const ws = await createWorkspace(app);
  const payload = JSON.stringify(checkoutEvent({ businessId: ws.businessId, plan: 'pro' }));
  const results = await Promise.all([deliver(app, payload), deliver(app, payload), deliver(app, payload)]);
  t.deepEqual(
    results.map((r) => r.status),
    [200, 200, 200],
  );
  t.is((await businessRow(ws.businessId)).plan, 'Pro');
  t.is((await eventRows(JSON.parse(payload).id)).length, 1);
});

test('webhook: bad, missing, stale or tampered signatures are 400 and change nothing', async (t) => {
  const ws = await createWorkspace(app);
  const event = checkoutEvent({ businessId: ws.businessId, plan: 'pro' });
  const payload = JSON.stringify(event);
  const cases = [
    { name: 'wrong secret', send: () => deliver(app, payload, { secret: 'whsec_wrong' }) },
    { name: 'missing header', send: () => deliver(app, payload, { signature: null }) },
    { name: 'garbage header', send: () => deliver(app, payload, { signature: 't=1,v1=deadbeef' }) },
    { name: 'stale timestamp', send: () => deliver(app, payload, { timestamp: Math.floor(Date.now() / 1000) - 600 }) },
    {
      name: 'tampered body',
      send: () => {
        const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
        return deliver(app, payload.replace('"plan":"pro"', '"plan":"pro" '), { signature });
      },
    },
  ];
  for (const c of cases) {
    const res = await c.send();
    t.is(res.status, 400, `${c.name}: ${res.text}`);
    t.is(typeof res.body.detail, 'string', c.name);
  }
  t.like(await businessRow(ws.businessId), { plan: 'Free', stripe_customer_id: null });
  t.deepEqual(await eventRows(event.id), []);
});

test('webhook: a lower plan is acknowledged but never downgrades', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  await app.sql(`update businesses set stripe_subscription_id = 'sub_pro' where id = $1`, [ws.businessId]);
  const event = checkoutEvent({ businessId: ws.businessId, plan: 'mini' });
  const res = await deliver(app, JSON.stringify(event));
  t.is(res.status, 200, res.text);
  t.like(await businessRow(ws.businessId), { plan: 'Pro', stripe_subscription_id: 'sub_pro' });
  t.is((await eventRows(event.id)).length, 1);
  const same = checkoutEvent({ businessId: ws.businessId, plan: 'pro' });
  t.is((await deliver(app, JSON.stringify(same))).status, 200);
  t.like(await businessRow(ws.businessId), { plan: 'Pro', stripe_subscription_id: 'sub_pro' });
});

test('webhook: unpaid checkouts and other event types are acknowledged and change nothing', async (t) => {
  const ws = await createWorkspace(app);
  const unpaid = checkoutEvent({ businessId: ws.businessId, plan: 'mini', paymentStatus: 'unpaid' });
  t.is((await deliver(app, JSON.stringify(unpaid))).status, 200);
  t.is((await businessRow(ws.businessId)).plan, 'Free');
  const invoice = {
    id: `evt_${randomBytes(8).toString('hex')}`,
    object: 'event',
    type: 'invoice.paid',
    created: Math.floor(Date.now() / 1000),
    data: { object: { id: 'in_1', object: 'invoice', metadata: { business_id: ws.businessId, plan: 'pro' } } },
  };
  const res = await deliver(app, JSON.stringify(invoice));
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body, { received: true });
  t.is((await businessRow(ws.businessId)).plan, 'Free');
  t.deepEqual(await eventRows(invoice.id), [{ id: invoice.id, type: 'invoice.paid', business_id: null }]);
});

test('webhook: the business may come from metadata; unknown or malformed businesses are acknowledged', async (t) => {
  const ws = await createWorkspace(app);
  const viaMetadata = checkoutEvent({ businessId: null, metadataBusinessId: ws.businessId, plan: 'mini' });
  t.is((await deliver(app, JSON.stringify(viaMetadata))).status, 200);
  t.is((await businessRow(ws.businessId)).plan, 'Mini');

  for (const businessId of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
    const event = checkoutEvent({ businessId, plan: 'pro' });
    const res = await deliver(app, JSON.stringify(event));
    t.is(res.status, 200, `${businessId}: ${res.text}`);
    t.deepEqual(await eventRows(event.id), [{ id: event.id, type: 'checkout.session.completed', business_id: null }]);
  }
  // A session Stripe does not know, or one that sold another product's price: acknowledged, nothing changes.
  const noPlan = checkoutEvent({ businessId: ws.businessId });
  t.is((await deliver(app, JSON.stringify(noPlan))).status, 200);
  const otherPrice = checkoutEvent({ businessId: ws.businessId, plan: 'pro', price: 'price_some_other_product' });
  t.is((await deliver(app, JSON.stringify(otherPrice))).status, 200);
  t.is((await businessRow(ws.businessId)).plan, 'Mini');
});

test('webhook: documented in OpenAPI as public', async (t) => {
  const doc = await app.request('GET', '/api/v1/openapi.json');
  const op = doc.body.paths['/api/v1/billing/webhook'].post;
  t.deepEqual(op.security, []);
  t.truthy(doc.body.paths['/api/v1/billing/checkout-url'].get.responses['503']);
});

// ---------- the subscription after checkout ----------

/** A signed Stripe event of `type` about `object`. */
const stripeEvent = (type: string, object: Record<string, unknown>) => ({
  id: `evt_${randomBytes(10).toString('hex')}`,
  object: 'event',
  api_version: '2025-01-27.acacia',
  created: Math.floor(Date.now() / 1000),
  livemode: false,
  type,
  data: { object },
});

const subscription = (id: string, status: string, price = PRICES.pro) => ({
  id,
  object: 'subscription',
  status,
  items: { object: 'list', data: [{ id: 'si_1', object: 'subscription_item', price: { id: price, object: 'price' } }] },
});

/** A workspace on `plan` holding the Stripe subscription `sub_<random>`, as after a paid checkout. */
async function subscribed(plan: 'Mini' | 'Pro') {
  const ws = await createWorkspace(app, { plan });
  const subscriptionId = `sub_${randomBytes(6).toString('hex')}`;
  await app.sql(`update businesses set stripe_subscription_id = $2, stripe_customer_id = 'cus_1' where id = $1`, [ws.businessId, subscriptionId]);
  return { ws, subscriptionId };
}

test('webhook: the plan comes from the price the checkout sold, not from metadata.plan', async (t) => {
  const ws = await createWorkspace(app);
  // metadata says pro, but the session sold the Mini price.
  const event = checkoutEvent({ businessId: ws.businessId, plan: 'pro', price: PRICES.mini });
  t.is((await deliver(app, JSON.stringify(event))).status, 200);
  t.is((await businessRow(ws.businessId)).plan, 'Mini');
  t.true(
    stripe.requests.some((r) => r.method === 'GET' && r.path === `/v1/checkout/sessions/${event.data.object.id}/line_items`),
    'asked Stripe what was sold',
  );
});

test('webhook: a cancelled subscription lands on Free at once (deleted, or updated to canceled or unpaid)', async (t) => {
  for (const [type, status] of [
    ['customer.subscription.deleted', 'canceled'],
    ['customer.subscription.updated', 'canceled'],
    ['customer.subscription.updated', 'unpaid'],
  ]) {
    const { ws, subscriptionId } = await subscribed('Pro');
    const res = await deliver(app, JSON.stringify(stripeEvent(type, subscription(subscriptionId, status))));
    t.is(res.status, 200, res.text);
    t.is((await businessRow(ws.businessId)).plan, 'Free', `${type} ${status}`);
    // The audit log records the change, in the event's transaction, with Stripe as the actor.
    const [audit] = await app.sql(`select actor_type, actor_name, action, target_id, details from audit_log where business_id = $1`, [ws.businessId]);
    t.like(audit, {
      actor_type: 'system',
      actor_name: 'Stripe',
      action: 'plan.changed',
      target_id: 'Free',
      details: { outcome: 'ended', stripe_event_type: type },
    });
    // Free's limits apply at once: AI auto-reply is refused.
    t.is((await app.request('PUT', '/api/v1/ai/settings', { token: ws.token, body: { auto_reply_enabled: true } })).status, 402);
  }
  // Another business's subscription id changes nothing here.
  const { ws } = await subscribed('Mini');
  t.is((await deliver(app, JSON.stringify(stripeEvent('customer.subscription.deleted', subscription('sub_unknown', 'canceled'))))).status, 200);
  t.is((await businessRow(ws.businessId)).plan, 'Mini');
});

test('webhook: what exists beyond Free stays after a cancellation; nothing new is allowed past it', async (t) => {
  const { ws, subscriptionId } = await subscribed('Pro');
  for (const domain of ['a.example.com', 'b.example.com']) {
    t.is((await app.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain } })).status, 200);
  }
  await deliver(app, JSON.stringify(stripeEvent('customer.subscription.deleted', subscription(subscriptionId, 'canceled'))));
  t.is((await businessRow(ws.businessId)).plan, 'Free');
  const channels = await app.request('GET', '/api/v1/channels', { token: ws.token });
  t.is(channels.body.filter((c: { type: string }) => c.type === 'widget').length, 2, 'existing channels stay');
  const telegram = await app.request('POST', '/api/v1/channels', { token: ws.token, body: { type: 'telegram', config: { bot_token: '123:abc' } } });
  t.is(telegram.status, 402, 'no new integration on Free');
});

test('webhook: past due keeps the plan through the grace period, then end_billing_grace moves it to Free; a payment ends the grace', async (t) => {
  const late = await subscribed('Pro');
  const paying = await subscribed('Pro');
  for (const s of [late, paying]) {
    t.is((await deliver(app, JSON.stringify(stripeEvent('customer.subscription.updated', subscription(s.subscriptionId, 'past_due'))))).status, 200);
    t.is((await businessRow(s.ws.businessId)).plan, 'Pro', 'still Pro during the grace');
  }
  const [{ past_due_since }] = await app.sql(`select past_due_since from businesses where id = $1`, [late.ws.businessId]);
  t.truthy(past_due_since);
  // The second one pays: active again, the grace is over.
  await deliver(app, JSON.stringify(stripeEvent('customer.subscription.updated', subscription(paying.subscriptionId, 'active'))));
  // Eight days later.
  await app.sql(`update businesses set past_due_since = now() - interval '8 days' where id = $1`, [late.ws.businessId]);
  const worker = await startTestWorker(app, { only: ['end_billing_grace'] });
  try {
    await app.sql(`select graphile_worker.add_job('end_billing_grace', '{}'::json)`);
    await waitFor(async () => (await businessRow(late.ws.businessId)).plan === 'Free', 20_000, 'the late business on Free');
  } finally {
    await worker.stop();
  }
  t.like(await app.sql(`select plan, past_due_since from businesses where id = $1`, [paying.ws.businessId]).then((r) => r[0]), {
    plan: 'Pro',
    past_due_since: null,
  });
});

test('webhook: a plan changed in Stripe (an active subscription on another price) applies', async (t) => {
  const { ws, subscriptionId } = await subscribed('Pro');
  t.is((await deliver(app, JSON.stringify(stripeEvent('customer.subscription.updated', subscription(subscriptionId, 'active', PRICES.mini))))).status, 200);
  t.is((await businessRow(ws.businessId)).plan, 'Mini');
});

test('webhook: a failed invoice payment e-mails the owner', async (t) => {
  const { ws, subscriptionId } = await subscribed('Mini');
  const res = await deliver(
    app,
    JSON.stringify(stripeEvent('invoice.payment_failed', { id: 'in_1', object: 'invoice', subscription: subscriptionId, amount_due: 1900, currency: 'usd' })),
  );
  t.is(res.status, 200, res.text);
  const mails = await app.sql(
    `select j.payload from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
     where k.identifier = 'send_email' and j.payload->>'to' = $1 and j.payload->>'subject' = 'Parley: your payment failed'`,
    [ws.email],
  );
  t.is(mails.length, 1);
  t.regex(mails[0].payload.text, /7 days/);
  t.is((await businessRow(ws.businessId)).plan, 'Mini', 'the plan stays until Stripe gives up');
});
