/**
 * Live events carry the object a GET returns: `message_created` / `message_updated` the message
 * of GET …/messages, `conversation_created` / `conversation_updated` the entry of GET
 * /conversations, next to the ids, state and `at` they always had (core/events/catalogue.ts).
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import type { JobHelpers } from 'graphile-worker';
import type { ParleyEvent } from '../core/events/bus.ts';
import { processInboundEvent, storeInboundEvents } from '../core/commands/inbound.ts';
import { publishEvents } from '../core/events/live.ts';
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
