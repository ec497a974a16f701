/**
 * One webhook delivery per message on WhatsApp (issue "Events drive the desk"): a customer's
 * texts (one delivered by Meta twice), an agent's reply and its delivery status reach a
 * subscribed endpoint exactly once each, signed, with one event id per delivery.
 */
import test from 'ava';
import { query, startTestWorker, waitFor } from './helpers/worker.ts';
import { customerTexts, whatsappConversation, type WhatsAppConversation } from './helpers/whatsapp-conversation.ts';
import { startWebhookReceiver, type WebhookReceiver } from './fakes/webhook-receiver.ts';

let setup: WhatsAppConversation;
let receiver: WebhookReceiver;
test.before(async () => {
  [setup, receiver] = await Promise.all([whatsappConversation(), startWebhookReceiver()]);
});
test.after.always(async () => {
  await setup?.close();
  await receiver?.close();
});

test('WhatsApp: each customer message, reply and delivery update reaches the endpoint once', async (t) => {
  const { app, owner, inbox, conversationId, customerPhone } = setup;
  const hook = await app.request('POST', '/api/v1/webhooks', {
    token: owner.token,
    body: { url: receiver.url('wa'), events: ['message.created', 'message.updated'] },
  });
  t.is(hook.status, 200, hook.text);
  receiver.secrets.set('/hooks/wa', hook.body.secret);
  const worker = await startTestWorker(app);
  try {
    const second = { phoneNumberId: '1066', from: customerPhone, id: 'wamid.second', text: 'Are you there?' };
    await customerTexts(app, second);
    await customerTexts(app, second); // Meta retries: the same message, once
    await waitFor(async () => (await query(app, `select 1 from messages where external_id = 'wamid.second'`)).length === 1);
    const reply = await inbox.reply(conversationId, 'Yes, how can I help?');
    await waitFor(async () => (await query(app, `select delivery_status from messages where id = $1`, [reply.id]))[0].delivery_status === 'sent');
    const created = await query(
      app,
      `select id from messages where conversation_id = $1 and created_at > (select created_at from webhook_endpoints where id = $2)`,
      [conversationId, hook.body.id],
    );
    // Expected: message.created for the customer's text and the reply, message.updated for the reply's `sent`.
    const expected = created.length + 1;
    await waitFor(async () => receiver.verified.filter((r) => r.path === '/hooks/wa').length >= expected, 30_000, 'deliveries');
    await waitFor(
      async () =>
        (
          await query(
            app,
            `select count(*)::int as n from graphile_worker.jobs where task_identifier in ('handle_events', 'dispatch_webhooks', 'deliver_webhook')`,
          )
        )[0].n === 0,
    );
    const bodies = receiver.verified.filter((r) => r.path === '/hooks/wa').map((r) => r.json);
    t.is(bodies.length, expected, JSON.stringify(bodies.map((b) => [b.type, b.data.id])));
    const createdIds = bodies.filter((b) => b.type === 'message.created').map((b) => b.data.id);
    t.deepEqual(createdIds.sort(), created.map((m) => m.id).sort());
    t.deepEqual(
      bodies.filter((b) => b.type === 'message.updated').map((b) => [b.data.id, b.data.delivery_status]),
      [[reply.id, 'sent']],
    );
    t.is(new Set(bodies.map((b) => b.id)).size, bodies.length, 'one event id per delivery');
  } finally {
    await worker.stop();
  }
});
