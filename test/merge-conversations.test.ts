/**
 * POST /conversations/{id}/merge (issue #20 item 5): another conversation of the same customer
 * moves in (messages in time order, uploads, labels, queued replies through this drain), the
 * other is closed, a system note in each; errors, roles and isolation.
 */
import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, type Workspace } from './helpers/fixtures.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

async function customer(ws: Workspace, name = 'Rita Repeat'): Promise<string> {
  const [row] = await app.sql(`insert into customers (business_id, name) values ($1, $2) returning id`, [ws.businessId, name]);
  return row.id;
}

/** A conversation of the customer on the built-in webchat channel, with customer messages at the given minutes ago. */
async function conversation(ws: Workspace, customerId: string, minutesAgo: number[]): Promise<string> {
  const [channel] = await app.sql(`select id from channels where business_id = $1 and is_builtin`, [ws.businessId]);
  const [c] = await app.sql(
    `insert into conversations (business_id, customer_id, channel_id, channel_type, last_message_at) values ($1, $2, $3, 'webchat', now()) returning id`,
    [ws.businessId, customerId, channel.id],
  );
  for (const m of minutesAgo) {
    await app.sql(
      `insert into messages (business_id, conversation_id, sender_type, content, channel_id, created_at) values ($1, $2, 'customer', $3, $4, now() - make_interval(mins => $5))`,
      [ws.businessId, c.id, `said ${m} minutes ago`, channel.id, m],
    );
  }
  return c.id;
}

const merge = (ws: Workspace, into: string, from: unknown, token = ws.token) =>
  app.request('POST', `/api/v1/conversations/${into}/merge`, { token, body: { from_conversation_id: from } });

test("the other conversation's messages move in, in time order; it is closed; a system note in each; labels come along", async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const rita = await customer(ws);
  const into = await conversation(ws, rita, [50, 30, 10]);
  const from = await conversation(ws, rita, [40, 20]);
  const [label] = await app.sql(`insert into labels (business_id, name, color) values ($1, 'vip', '#ff0000') returning id`, [ws.businessId]);
  await app.sql(`insert into conversation_labels (business_id, conversation_id, label_id) values ($1, $2, $3)`, [ws.businessId, from, label.id]);
  const before = app.events.length;
  const res = await merge(ws, into, from);
  t.is(res.status, 200, res.text);
  t.is(res.body.id, into);
  const thread = await app.request('GET', `/api/v1/conversations/${into}/messages`, { token: ws.token });
  const customerLines = thread.body.filter((m: any) => m.sender_type === 'customer').map((m: any) => m.content);
  t.deepEqual(
    customerLines,
    [50, 40, 30, 20, 10].map((m) => `said ${m} minutes ago`),
  );
  t.is(thread.body.at(-1).content, 'Another conversation of this customer was merged into this one (2 messages moved).');
  t.is(thread.body.at(-1).sender_type, 'system');
  const other = await app.request('GET', `/api/v1/conversations/${from}`, { token: ws.token });
  t.is(other.body.status, 'closed');
  const left = await app.request('GET', `/api/v1/conversations/${from}/messages`, { token: ws.token });
  t.deepEqual(
    left.body.map((m: any) => m.sender_type),
    ['system'],
  );
  t.is(left.body[0].content, 'This conversation was merged into another conversation of this customer; its messages are there now.');
  t.deepEqual((await app.request('GET', `/api/v1/conversations/${into}`, { token: ws.token })).body.labels, ['vip']);
  const updated = app.events
    .slice(before)
    .filter((e) => e.name === 'conversation_updated')
    .map((e) => e.payload.conversation_id);
  t.true(updated.includes(into) && updated.includes(from));
});

test("a reply the other conversation still had queued goes out through this one's delivery drain", async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const rita = await customer(ws);
  const into = await conversation(ws, rita, [5]);
  const from = await conversation(ws, rita, [8]);
  const sent = await app.request('POST', `/api/v1/conversations/${from}/messages`, { token: ws.token, body: { content: 'On its way' } });
  t.is(sent.status, 200, sent.text);
  t.is((await merge(ws, into, from)).status, 200);
  const [moved] = await app.sql(`select conversation_id, delivery_status from messages where id = $1`, [sent.body.id]);
  t.deepEqual(moved, { conversation_id: into, delivery_status: 'queued' });
  const jobs = await app.sql(`select key from graphile_worker.jobs where key = $1`, [`deliver:${into}`]);
  t.is(jobs.length, 1, "this conversation's drain is armed");
});

test("refusals: itself and another customer's are 400, another business's or unknown 404, a bad id 422; nothing moves", async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const other = await createWorkspace(app, { plan: 'Pro' });
  const rita = await customer(ws);
  const into = await conversation(ws, rita, [3]);
  const stranger = await conversation(ws, await customer(ws, 'Sam Stranger'), [2]);
  const foreign = await conversation(other, await customer(other), [1]);
  t.deepEqual([(await merge(ws, into, into)).status, (await merge(ws, into, into)).body], [400, { detail: 'A conversation cannot be merged into itself' }]);
  const mixed = await merge(ws, into, stranger);
  t.deepEqual([mixed.status, mixed.body], [400, { detail: 'Only conversations of the same customer can be merged' }]);
  t.is((await merge(ws, into, foreign)).status, 404);
  t.is((await merge(other, foreign, into, other.token)).status, 404);
  t.is((await merge(ws, into, '6f1c1c64-2a4e-4f36-9a5e-5b6a1c1d2e3f')).status, 404);
  const bad = await merge(ws, into, 'nope');
  t.is(bad.status, 422);
  t.is((await app.request('POST', `/api/v1/conversations/${into}/merge`, { body: { from_conversation_id: stranger } })).status, 401);
  const counts = await app.sql(`select conversation_id, count(*)::int as n from messages where conversation_id = any($1) group by 1`, [
    [into, stranger, foreign],
  ]);
  t.is(counts.length, 3, 'every conversation keeps its own messages');
  t.true(counts.every((r: any) => r.n === 1));
});

test('any member may merge (an agent too)', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const agent = await addMember(app, ws.businessId, 'agent');
  const rita = await customer(ws);
  const into = await conversation(ws, rita, [3]);
  const from = await conversation(ws, rita, [2]);
  t.is((await merge(ws, into, from, agent.token)).status, 200);
});
