/**
 * Webhook redelivery (issue #20 item 2): POST …/deliveries/{id}/redeliver queues a new delivery of
 * the same event (same event id and body, a new row and job), delivered to a local receiver that
 * checks the signature; listed in the deliveries; owner/admin only; isolation.
 */
import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace } from './helpers/fixtures.ts';
import { startTestWorker, waitFor } from './helpers/worker.ts';
import { startWebhookReceiver, type WebhookReceiver } from './fakes/webhook-receiver.ts';
import type { SupervisedRunner } from '../workers/supervisor.ts';

let app: TestApp;
let receiver: WebhookReceiver;
let worker: SupervisedRunner;
test.before(async () => {
  [app, receiver] = await Promise.all([startTestApp(), startWebhookReceiver()]);
  worker = await startTestWorker(app, { only: ['dispatch_webhooks', 'deliver_webhook'] });
});
test.after.always(async () => {
  await worker?.stop();
  await app?.close();
  await receiver?.close();
});

test('redeliver: a new attempt row with the same event id and body, delivered signed, listed; owner/admin only; 404 across endpoints and businesses', async (t) => {
  const ws = await createWorkspace(app);
  const hook = await app.request('POST', '/api/v1/webhooks', { token: ws.token, body: { url: receiver.url('redeliver'), events: ['conversation.created'] } });
  t.is(hook.status, 200, hook.text);
  receiver.secrets.set('/hooks/redeliver', hook.body.secret);
  const path = '/hooks/redeliver';
  await app.request('POST', '/api/v1/conversations', { token: ws.token, body: { business_id: ws.businessId, initial_message: 'Hi' } });
  const [first] = await waitFor(
    async () => {
      const got = receiver.verified.filter((r) => r.path === path);
      return got.length >= 1 ? got : null;
    },
    20_000,
    'first delivery',
  );
  // The receiver has the request a moment before the worker records the answer.
  const list = await waitFor(
    async () => {
      const body = (await app.request('GET', `/api/v1/webhooks/${hook.body.id}/deliveries`, { token: ws.token })).body;
      return body[0]?.status === 'delivered' ? body : null;
    },
    20_000,
    'the first delivery recorded',
  );
  t.is(list.length, 1);
  const original = list[0];
  t.like(original, { status: 'delivered', attempts: 1, redelivery_of: null });

  const agent = await addMember(app, ws.businessId, 'agent');
  const url = `/api/v1/webhooks/${hook.body.id}/deliveries/${original.id}/redeliver`;
  t.is((await app.request('POST', url, { token: agent.token })).status, 403);
  const admin = await addMember(app, ws.businessId, 'admin');
  const res = await app.request('POST', url, { token: admin.token });
  t.is(res.status, 200, res.text);
  const second = await waitFor(
    async () => {
      const got = receiver.verified.filter((r) => r.path === path);
      return got.length >= 2 ? got[1] : null;
    },
    20_000,
    'redelivery',
  );
  t.is(second!.json.id, first!.json.id, 'the same event id');
  t.is(second!.rawBody.toString(), first!.rawBody.toString(), 'the same body');
  t.is(second!.headers['parley-event-id'], original.event_id);
  t.is(receiver.refused.filter((r) => r.path === path).length, 0, 'both signatures check out');

  const after = await waitFor(
    async () => {
      const body = (await app.request('GET', `/api/v1/webhooks/${hook.body.id}/deliveries`, { token: ws.token })).body;
      return body[0]?.status === 'delivered' ? body : null;
    },
    20_000,
    'listed as delivered',
  );
  t.is(after.length, 2);
  t.like(after[0], { id: res.body.delivery_id, event_id: original.event_id, redelivery_of: original.id, attempts: 1, status: 'delivered' });
  t.like(after[1], { id: original.id, attempts: 1 }, 'the original row is unchanged');

  // A redelivery of a disabled endpoint is still sent (the person asking checks their receiver).
  await app.request('PATCH', `/api/v1/webhooks/${hook.body.id}`, { token: ws.token, body: { active: false } });
  await app.request('POST', url, { token: ws.token });
  await waitFor(async () => (receiver.verified.filter((r) => r.path === path).length >= 3 ? true : null), 20_000, 'sent while disabled');

  const other = await createWorkspace(app);
  t.is((await app.request('POST', url, { token: other.token })).status, 404);
  const otherHook = await app.request('POST', '/api/v1/webhooks', { token: ws.token, body: { url: receiver.url('elsewhere'), events: ['message.created'] } });
  const crossed = await app.request('POST', `/api/v1/webhooks/${otherHook.body.id}/deliveries/${original.id}/redeliver`, { token: ws.token });
  t.is(crossed.status, 404);
  t.deepEqual(crossed.body, { detail: 'Delivery not found' });
  t.is((await app.request('POST', `/api/v1/webhooks/${hook.body.id}/deliveries/not-a-uuid/redeliver`, { token: ws.token })).status, 422);
  t.is((await app.sql(`select count(*)::int as n from webhook_deliveries where business_id = $1`, [ws.businessId]))[0].n, 3);
});

test('a dispatched event is still made once per endpoint (a retried dispatch adds no second first delivery)', async (t) => {
  const { dispatchWebhookEvents } = await import('../core/commands/webhooks-out.ts');
  const ws = await createWorkspace(app);
  await app.sql(
    `insert into webhook_endpoints (business_id, url, events, secret_encrypted, active) values ($1, 'https://hooks.example/x', '{webhook.none}', 'x', false)`,
    [ws.businessId],
  );
  await app.sql(`update webhook_endpoints set active = true, events = '{customer.updated}' where business_id = $1`, [ws.businessId]);
  const [c] = await app.sql(`insert into customers (business_id, name) values ($1, 'A') returning id`, [ws.businessId]);
  const ref = { id: '00000000-0000-4000-8000-000000000001', type: 'customer.updated' as const, at: new Date().toISOString(), customer_id: c.id };
  t.is(await dispatchWebhookEvents(app.deps, { business_id: ws.businessId, events: [ref] }), 1);
  t.is(await dispatchWebhookEvents(app.deps, { business_id: ws.businessId, events: [ref] }), 0);
});
