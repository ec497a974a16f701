/**
 * Live events carry the object a GET returns: `message_created` / `message_updated` the message
 * of GET …/messages, `conversation_created` / `conversation_updated` the entry of GET
 * /conversations, next to the ids, state and `at` they always had (core/events/catalogue.ts);
 * webhooks deliver the same objects (all read by core/reads/).
 */
import test from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import type { JobHelpers } from 'graphile-worker';
import type { ParleyEvent } from '../core/events/bus.ts';
import { processInboundEvent, storeInboundEvents } from '../core/commands/inbound.ts';
import { publishEvents } from '../core/events/live.ts';
import { dispatchWebhookEvents } from '../core/commands/webhooks-out.ts';
import { runCommand } from '../core/commands/run-command.ts';
import { refreshSla } from '../core/commands/sla.ts';
import deliverMessage from '../workers/tasks/deliver_message.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

const eventOf = (name: string, since: number, match: (payload: Record<string, unknown>) => boolean): ParleyEvent => {
  const found = app.events.slice(since).filter((e) => e.name === name && match(e.payload));
  if (found.length !== 1) throw new Error(`${found.length} ${name} events`);
  return found[0]!;
};

const messagesOf = async (ws: Workspace, conversationId: string) =>
  (await app.request('GET', `/api/v1/conversations/${conversationId}/messages`, { token: ws.token })).body as { id: string }[];
const listed = async (ws: Workspace, conversationId: string) =>
  ((await app.request('GET', '/api/v1/conversations', { token: ws.token })).body as { id: string }[]).find((c) => c.id === conversationId);

test('an agent reply: message_created.message is the message GET …/messages shows, conversation_updated.conversation the GET /conversations entry', async (t) => {
  const ws = await createWorkspace(app);
  const conv = (await app.request('POST', '/api/v1/conversations', { token: ws.token, body: { business_id: ws.businessId } })).body;
  const since = app.events.length;
  const sent = await app.request('POST', `/api/v1/conversations/${conv.id}/messages`, { token: ws.token, body: { content: 'Hello there' } });
  t.is(sent.status, 200, sent.text);

  const created = eventOf('message_created', since, (p) => p.message_id === sent.body.id);
  t.deepEqual(
    created.payload.message,
    (await messagesOf(ws, conv.id)).find((m) => m.id === sent.body.id),
  );
  t.like(created.payload, { conversation_id: conv.id, business_id: ws.businessId, sender_type: 'agent', at: sent.body.created_at });
  t.deepEqual(created.payload.message, sent.body, 'and the POST answer');

  const updated = eventOf('conversation_updated', since, (p) => p.conversation_id === conv.id);
  const entry = await listed(ws, conv.id);
  t.deepEqual(updated.payload.conversation, entry);
  t.like(updated.payload, { business_id: ws.businessId, status: 'open', assignee_id: null, assigned_at: null, at: (entry as any).updated_at });
});

test('a customer message: conversation_created and message_created carry the GET objects; delivery: message_updated carries the sent message', async (t) => {
  const ws = await createWorkspace(app);
  const [channel] = await app.sql('select id from channels where business_id = $1 and is_builtin', [ws.businessId]);
  const externalId = `wc-${randomBytes(6).toString('hex')}`;
  const since = app.events.length;
  const [eventId] = await app.deps.db.transaction((tx) =>
    storeInboundEvents(
      tx,
      { id: channel.id, business_id: ws.businessId, type: 'webchat' },
      [
        {
          kind: 'message',
          externalId,
          from: { platformUserId: 'visitor-9', name: 'Vera' },
          text: 'Where is my order?',
          attachments: [],
          sentAt: new Date().toISOString(),
        },
      ],
      null,
    ),
  );
  await publishEvents(app.deps, await processInboundEvent(app.deps.db, eventId!));

  const created = eventOf('message_created', since, (p) => p.business_id === ws.businessId);
  const conversationId = created.payload.conversation_id as string;
  const [customerMessage] = await messagesOf(ws, conversationId);
  t.deepEqual(created.payload.message, customerMessage);
  t.is(created.payload.sender_type, 'customer');
  const opened = eventOf('conversation_created', since, (p) => p.conversation_id === conversationId);
  const entry = await listed(ws, conversationId);
  t.deepEqual(opened.payload.conversation, entry);
  t.is(opened.payload.at, (entry as any).created_at);
  t.deepEqual(eventOf('conversation_updated', since, (p) => p.conversation_id === conversationId).payload.conversation, entry);

  const reply = await app.request('POST', `/api/v1/conversations/${conversationId}/messages`, { token: ws.token, body: { content: 'On its way' } });
  const beforeDelivery = app.events.length;
  const helpers = { job: { id: '0', attempts: 1, max_attempts: 25 }, logger: { debug() {}, info() {}, warn() {}, error() {} } } as unknown as JobHelpers;
  await deliverMessage.run({ conversation_id: conversationId }, app.deps, helpers);
  const delivered = eventOf('message_updated', beforeDelivery, (p) => p.message_id === reply.body.id);
  const shown = (await messagesOf(ws, conversationId)).find((m) => m.id === reply.body.id);
  t.deepEqual(delivered.payload.message, shown);
  t.like(delivered.payload, { delivery_status: 'sent', conversation_id: conversationId, business_id: ws.businessId });
});

/**
 * Reads live in one place (core/reads/): the conversation, message and customer a REST GET
 * returns, the live event carries and a webhook delivers are the same objects, field for field,
 * with their extras (customer, labels, SLA, latest message).
 */
test('one conversation, message and customer everywhere: list entry, single read, live event and webhook body are equal', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const as = { token: ws.token };
  t.is((await app.request('POST', '/api/v1/sla-policies', { ...as, body: { name: 'All', first_response_minutes: 600 } })).status, 200);
  t.is((await app.request('POST', '/api/v1/labels', { ...as, body: { name: 'Billing' } })).status, 200);
  const [channel] = await app.sql('select id from channels where business_id = $1 and is_builtin', [ws.businessId]);
  const since = app.events.length;
  const [eventId] = await app.deps.db.transaction((tx) =>
    storeInboundEvents(
      tx,
      { id: channel.id, business_id: ws.businessId, type: 'webchat' },
      [
        {
          kind: 'message',
          externalId: `wc-${randomBytes(6).toString('hex')}`,
          from: { platformUserId: `visitor-${randomBytes(4).toString('hex')}`, name: 'Sam' },
          text: 'My invoice is wrong',
          attachments: [],
          sentAt: new Date().toISOString(),
        },
      ],
      null,
    ),
  );
  await publishEvents(app.deps, await processInboundEvent(app.deps.db, eventId!));
  const conversationId = eventOf('conversation_created', since, (p) => p.business_id === ws.businessId).payload.conversation_id as string;
  const customerMessage = eventOf('message_created', since, (p) => p.conversation_id === conversationId).payload.message as { id: string };
  const reply = await app.request('POST', `/api/v1/conversations/${conversationId}/messages`, { ...as, body: { content: 'Let me look' } });
  t.is(reply.status, 200, reply.text);
  // The sla_refresh job's own work, done here (no worker in this file).
  await runCommand(app.deps, (tx) => refreshSla(tx, conversationId));
  const single = async () => (await app.request('GET', `/api/v1/conversations/${conversationId}`, as)).body;
  const customerNumber = (await single()).customer.id as number;
  const beforeEdit = app.events.length;
  const edited = await app.request('PATCH', `/api/v1/customers/${customerNumber}`, { ...as, body: { email: 'sam@example.com', attributes: { plan: 'pro' } } });
  t.is(edited.status, 200, edited.text);
  // The last change: its conversation_updated carries the conversation as it now is.
  const beforeLabels = app.events.length;
  t.is((await app.request('PUT', `/api/v1/conversations/${conversationId}/labels`, { ...as, body: { labels: ['billing'] } })).status, 200);

  // Webhook bodies, built now by the dispatch job's own function.
  const hook = await app.request('POST', '/api/v1/webhooks', {
    ...as,
    body: { url: 'http://127.0.0.1:9/hooks/same', events: ['conversation.updated', 'message.created', 'customer.updated'] },
  });
  t.is(hook.status, 200, hook.text);
  const at = new Date().toISOString();
  const refs = [
    { id: randomUUID(), type: 'conversation.updated' as const, at, conversation_id: conversationId },
    { id: randomUUID(), type: 'message.created' as const, at, message_id: customerMessage.id },
    { id: randomUUID(), type: 'message.created' as const, at, message_id: reply.body.id },
    { id: randomUUID(), type: 'customer.updated' as const, at, customer_id: edited.body.uuid },
  ];
  await dispatchWebhookEvents(app.deps, { business_id: ws.businessId, events: refs });
  const bodies = new Map<string, any>();
  for (const row of await app.sql('select event_id, body from webhook_deliveries where webhook_id = $1', [hook.body.id]))
    bodies.set(row.event_id, JSON.parse(row.body).data);
  t.is(bodies.size, refs.length);

  // The conversation: list entry = live event = webhook body = the single read (which has `messages` where the entry has `last_message`).
  const entry = (await listed(ws, conversationId)) as any;
  const read = await single();
  t.deepEqual(entry.labels, ['Billing']);
  t.is(entry.sla?.policy_name, 'All', 'its SLA shows');
  t.like(entry.customer, { email: 'sam@example.com', attributes: { plan: 'pro' } });
  t.deepEqual(eventOf('conversation_updated', beforeLabels, (p) => p.conversation_id === conversationId).payload.conversation, entry);
  t.deepEqual(bodies.get(refs[0]!.id), entry);
  const { last_message, preview_message, ...entryFields } = entry;
  t.deepEqual(preview_message, last_message, 'a person wrote the latest message: it is the preview');
  const { messages, ...readFields } = read;
  t.deepEqual(readFields, entryFields);
  t.deepEqual(messages.at(-1), last_message);

  // Each message: GET …/messages = the single read's = message_created = webhook body.
  const listedMessages = await messagesOf(ws, conversationId);
  t.deepEqual(messages, listedMessages);
  t.deepEqual(eventOf('message_created', since, (p) => p.message_id === customerMessage.id).payload.message, listedMessages[0]);
  t.deepEqual(eventOf('message_created', since, (p) => p.message_id === reply.body.id).payload.message, listedMessages[1]);
  t.deepEqual(bodies.get(refs[1]!.id), listedMessages[0]);
  t.deepEqual(bodies.get(refs[2]!.id), listedMessages[1]);
  t.deepEqual(reply.body, listedMessages[1], 'and the POST answer');

  // The customer: GET /customers/{id} = GET /customers entry = the conversation's = customer_updated = webhook body = the PATCH answer.
  const customer = (await app.request('GET', `/api/v1/customers/${customerNumber}`, as)).body;
  t.deepEqual(
    (await app.request('GET', '/api/v1/customers', as)).body.find((c: { id: number }) => c.id === customerNumber),
    customer,
  );
  t.deepEqual(entry.customer, customer);
  t.deepEqual(eventOf('customer_updated', beforeEdit, (p) => p.business_id === ws.businessId).payload.customer, customer);
  t.deepEqual(bodies.get(refs[3]!.id), customer);
  t.deepEqual(edited.body, customer);

  // The customer export: the same customer, and the same conversation with all its messages.
  const exported = await app.request('GET', `/api/v1/customers/${customerNumber}/export`, as);
  t.is(exported.status, 200, exported.text);
  t.deepEqual(exported.body.customer, customer);
  t.deepEqual(exported.body.conversations, [read]);

  // A reply's conversation_updated, read by the reply's own statement (core/reads/conversations.ts
  // writtenEntry): the entry as GET /conversations then shows it, customer, labels, SLA and the
  // reply as its last message included.
  const beforeReply = app.events.length;
  const second = await app.request('POST', `/api/v1/conversations/${conversationId}/messages`, { ...as, body: { content: 'Fixed it' } });
  t.is(second.status, 200, second.text);
  const afterReply = (await listed(ws, conversationId)) as any;
  t.deepEqual(afterReply.last_message, second.body);
  t.truthy(afterReply.customer && afterReply.sla && afterReply.labels.length, 'the entry has every part');
  t.deepEqual(eventOf('conversation_updated', beforeReply, (p) => p.conversation_id === conversationId).payload.conversation, afterReply);
});
