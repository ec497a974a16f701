/** Labels and canned responses (issue #22 items 2 and 3): every endpoint, roles, isolation, paging, events. */
import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, registerUser, type Workspace } from './helpers/fixtures.ts';
import { fillPlaceholders } from '../core/commands/canned-responses.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

const one = async (text: string, params: unknown[] = []): Promise<any> => (await app.sql(text, params))[0];

async function conversation(ws: Workspace, customer?: { name?: string; email?: string | null }): Promise<string> {
  let customerId: string | null = null;
  if (customer)
    customerId = (
      await one(`insert into customers (business_id, name, email) values ($1, $2, $3) returning id`, [
        ws.businessId,
        customer.name ?? '',
        customer.email ?? null,
      ])
    ).id;
  const res = await app.request('POST', '/api/v1/conversations', { token: ws.token, body: { business_id: ws.businessId, customer_id: customerId } });
  if (res.status !== 200) throw new Error(`create conversation failed: ${res.status} ${res.text}`);
  return res.body.id;
}

async function label(ws: Workspace, body: Record<string, unknown>): Promise<any> {
  const res = await app.request('POST', '/api/v1/labels', { token: ws.token, body });
  if (res.status !== 200) throw new Error(`create label failed: ${res.status} ${res.text}`);
  return res.body;
}

async function canned(ws: Workspace, short_code: string, content: string): Promise<any> {
  const res = await app.request('POST', '/api/v1/canned-responses', { token: ws.token, body: { short_code, content } });
  if (res.status !== 200) throw new Error(`create canned response failed: ${res.status} ${res.text}`);
  return res.body;
}

const setLabels = (token: string, conversationId: string, labels: unknown) =>
  app.request('PUT', `/api/v1/conversations/${conversationId}/labels`, { token, body: { labels } });

// ---------- labels

test('labels: create, list in name order, change, delete', async (t) => {
  const ws = await createWorkspace(app);
  const created = await app.request('POST', '/api/v1/labels', {
    token: ws.token,
    body: { name: ' Billing ', color: '#FF0000', description: 'Money questions' },
  });
  t.is(created.status, 200, created.text);
  t.like(created.body, { name: 'Billing', color: '#ff0000', description: 'Money questions' });
  const plain = await label(ws, { name: 'bug' });
  t.like(plain, { name: 'bug', color: '#1f93ff', description: '' });
  await label(ws, { name: 'Account' });

  const list = await app.request('GET', '/api/v1/labels', { token: ws.token });
  t.is(list.status, 200);
  t.deepEqual(
    list.body.map((l: any) => l.name),
    ['Account', 'Billing', 'bug'],
  );
  t.is(list.headers.get('x-next-cursor'), null);

  const patched = await app.request('PATCH', `/api/v1/labels/${plain.id}`, { token: ws.token, body: { name: 'Bug report', color: '#00aa00' } });
  t.is(patched.status, 200, patched.text);
  t.like(patched.body, { id: plain.id, name: 'Bug report', color: '#00aa00', description: '' });

  const deleted = await app.request('DELETE', `/api/v1/labels/${plain.id}`, { token: ws.token });
  t.is(deleted.status, 200);
  t.deepEqual(deleted.body, { detail: 'Label deleted' });
  t.is((await app.request('DELETE', `/api/v1/labels/${plain.id}`, { token: ws.token })).status, 404);
  t.is((await app.request('PATCH', `/api/v1/labels/${plain.id}`, { token: ws.token, body: { name: 'x' } })).status, 404);
});

test('labels: duplicate names are 400 whatever their case; bad input is 422, never 500', async (t) => {
  const ws = await createWorkspace(app);
  const billing = await label(ws, { name: 'Billing' });
  const other = await label(ws, { name: 'Other' });
  const dup = await app.request('POST', '/api/v1/labels', { token: ws.token, body: { name: 'BILLING' } });
  t.is(dup.status, 400);
  t.deepEqual(dup.body, { detail: 'A label named "BILLING" already exists' });
  const renamed = await app.request('PATCH', `/api/v1/labels/${other.id}`, { token: ws.token, body: { name: 'billing' } });
  t.is(renamed.status, 400);
  // Renaming a label to another spelling of its own name is fine.
  t.is((await app.request('PATCH', `/api/v1/labels/${billing.id}`, { token: ws.token, body: { name: 'BILLING' } })).status, 200);

  for (const body of [
    {},
    { name: '' },
    { name: 'a,b' },
    { name: 'x'.repeat(51) },
    { name: 'ok', color: 'red' },
    { name: 'ok', color: '#12345' },
    { name: 'ok', description: 'd'.repeat(201) },
    { name: 42 },
  ]) {
    const res = await app.request('POST', '/api/v1/labels', { token: ws.token, body });
    t.is(res.status, 422, JSON.stringify(body));
    t.true(Array.isArray(res.body.detail));
  }
  t.is((await app.request('PATCH', '/api/v1/labels/not-a-uuid', { token: ws.token, body: {} })).status, 422);
  t.is((await app.request('GET', '/api/v1/labels', { token: ws.token, query: { cursor: '%%%' } })).status, 422);
  t.is((await app.request('GET', '/api/v1/labels', { token: ws.token, query: { limit: '0' } })).status, 422);
});

test('labels: keyset pages in name order', async (t) => {
  const ws = await createWorkspace(app);
  const names = ['delta', 'Alpha', 'charlie', 'Bravo', 'echo'];
  for (const name of names) await label(ws, { name });
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const res = await app.request('GET', '/api/v1/labels', { token: ws.token, query: cursor ? { limit: '2', cursor } : { limit: '2' } });
    t.is(res.status, 200, res.text);
    t.true(res.body.length <= 2);
    seen.push(...res.body.map((l: any) => l.name));
    cursor = res.headers.get('x-next-cursor') ?? undefined;
  } while (cursor);
  t.deepEqual(seen, ['Alpha', 'Bravo', 'charlie', 'delta', 'echo']);
});

test('labels: roles: any member reads and labels conversations, only the owner or an admin manages labels', async (t) => {
  const ws = await createWorkspace(app);
  const agent = await addMember(app, ws.businessId, 'agent');
  const admin = await addMember(app, ws.businessId, 'admin');
  const vip = await label(ws, { name: 'VIP' });
  const refused = { detail: 'Only the owner or an admin can manage labels' };
  const create = await app.request('POST', '/api/v1/labels', { token: agent.token, body: { name: 'agent-made' } });
  t.deepEqual([create.status, create.body], [403, refused]);
  t.is((await app.request('PATCH', `/api/v1/labels/${vip.id}`, { token: agent.token, body: { color: '#000000' } })).status, 403);
  t.is((await app.request('DELETE', `/api/v1/labels/${vip.id}`, { token: agent.token })).status, 403);
  t.is((await app.request('GET', '/api/v1/labels', { token: agent.token })).status, 200);
  t.is((await app.request('POST', '/api/v1/labels', { token: admin.token, body: { name: 'admin-made' } })).status, 200);

  const conv = await conversation(ws);
  const set = await setLabels(agent.token, conv, ['vip']);
  t.is(set.status, 200, set.text);
  t.deepEqual(set.body, { labels: ['VIP'] });

  const me = await app.request('GET', '/api/v1/auth/me', { token: agent.token });
  t.like(me.body.can, { 'labels.read': true, 'labels.manage': false, 'conversations.label': true, 'canned_responses.manage': true });

  // Without a business: the conversations area's answer.
  const loner = await registerUser(app);
  const none = await app.request('GET', '/api/v1/labels', { token: loner.token });
  t.deepEqual([none.status, none.body], [404, { detail: 'Business not found' }]);
  t.is((await app.request('GET', '/api/v1/labels')).status, 401);
});

test("labels: tenant isolation: another business's labels are neither listed, changed, nor applied", async (t) => {
  const a = await createWorkspace(app, { name: 'Alpha' });
  const b = await createWorkspace(app, { name: 'Beta' });
  const aLabel = await label(a, { name: 'Shared name' });
  await label(b, { name: 'Shared name' }); // the same name in another business is fine
  const bOnly = await label(b, { name: 'Beta only' });
  t.deepEqual(
    (await app.request('GET', '/api/v1/labels', { token: a.token })).body.map((l: any) => l.id),
    [aLabel.id],
  );
  t.is((await app.request('PATCH', `/api/v1/labels/${bOnly.id}`, { token: a.token, body: { name: 'hijacked' } })).status, 404);
  t.is((await app.request('DELETE', `/api/v1/labels/${bOnly.id}`, { token: a.token })).status, 404);
  t.is((await one(`select name from labels where id = $1`, [bOnly.id])).name, 'Beta only');

  const aConv = await conversation(a);
  const bConv = await conversation(b);
  const foreign = await setLabels(a.token, bConv, ['Shared name']);
  t.deepEqual([foreign.status, foreign.body], [404, { detail: 'Conversation not found' }]);
  const otherName = await setLabels(a.token, aConv, ['Beta only']);
  t.deepEqual([otherName.status, otherName.body], [400, { detail: 'Unknown label: Beta only' }]);
  t.deepEqual((await setLabels(a.token, aConv, ['shared NAME'])).body, { labels: ['Shared name'] });
  const stored = await one(`select business_id, label_id from conversation_labels where conversation_id = $1`, [aConv]);
  t.deepEqual(stored, { business_id: a.businessId, label_id: aLabel.id });
  // B's filter by the same name finds none of A's conversations.
  t.deepEqual((await app.request('GET', '/api/v1/conversations', { token: b.token, query: { label: 'Shared name' } })).body, []);
});

test('conversation labels: set, replace, clear; unknown names are 400 and change nothing; every presentation carries labels', async (t) => {
  const ws = await createWorkspace(app);
  await label(ws, { name: 'Billing' });
  await label(ws, { name: 'urgent' });
  await label(ws, { name: 'Refund' });
  const conv = await conversation(ws);

  const detail0 = await app.request('GET', `/api/v1/conversations/${conv}`, { token: ws.token });
  t.deepEqual(detail0.body.labels, []);

  const set = await setLabels(ws.token, conv, ['urgent', 'billing', 'Billing']);
  t.deepEqual([set.status, set.body], [200, { labels: ['Billing', 'urgent'] }]);
  const unknown = await setLabels(ws.token, conv, ['Refund', 'nope', 'nada']);
  t.deepEqual([unknown.status, unknown.body], [400, { detail: 'Unknown labels: nope, nada' }]);

  const detail = await app.request('GET', `/api/v1/conversations/${conv}`, { token: ws.token });
  t.deepEqual(detail.body.labels, ['Billing', 'urgent']);
  const list = await app.request('GET', '/api/v1/conversations', { token: ws.token });
  t.deepEqual(list.body.find((c: any) => c.id === conv).labels, ['Billing', 'urgent']);

  t.deepEqual((await setLabels(ws.token, conv, ['Refund'])).body, { labels: ['Refund'] });
  t.deepEqual((await setLabels(ws.token, conv, [])).body, { labels: [] });

  for (const body of [{}, { labels: 'Billing' }, { labels: [''] }, { labels: [1] }, { labels: Array.from({ length: 51 }, (_, i) => `l${i}`) }]) {
    const res = await app.request('PUT', `/api/v1/conversations/${conv}/labels`, { token: ws.token, body });
    t.is(res.status, 422, JSON.stringify(body));
  }
  t.is((await setLabels(ws.token, '00000000-0000-4000-8000-000000000000', [])).status, 404);

  // Renaming a label shows everywhere; deleting it removes it from conversations.
  const refund = (await app.request('GET', '/api/v1/labels', { token: ws.token })).body.find((l: any) => l.name === 'Refund');
  await setLabels(ws.token, conv, ['Refund', 'urgent']);
  await app.request('PATCH', `/api/v1/labels/${refund.id}`, { token: ws.token, body: { name: 'Refunds' } });
  t.deepEqual((await app.request('GET', `/api/v1/conversations/${conv}`, { token: ws.token })).body.labels, ['Refunds', 'urgent']);
  await app.request('DELETE', `/api/v1/labels/${refund.id}`, { token: ws.token });
  t.deepEqual((await app.request('GET', `/api/v1/conversations/${conv}`, { token: ws.token })).body.labels, ['urgent']);
});

test('conversation labels: conversation_updated fires on a change (with labels), not on a no-op; updated_at is kept', async (t) => {
  const ws = await createWorkspace(app);
  await label(ws, { name: 'VIP' });
  const conv = await conversation(ws);
  const before = (await app.request('GET', `/api/v1/conversations/${conv}`, { token: ws.token })).body.updated_at;

  const mark = app.events.length;
  t.is((await setLabels(ws.token, conv, ['VIP'])).status, 200);
  const events = app.events.slice(mark).filter((e) => e.name === 'conversation_updated' && e.payload.conversation_id === conv);
  t.is(events.length, 1);
  t.deepEqual(events[0]!.rooms, [`business:${ws.businessId}`]);
  t.deepEqual((events[0]!.payload as any).conversation.labels, ['VIP']);

  const again = app.events.length;
  await setLabels(ws.token, conv, ['vip']);
  t.is(
    app.events.slice(again).filter((e) => e.name === 'conversation_updated' && e.payload.conversation_id === conv).length,
    0,
    'the same set again: no event',
  );

  const cleared = app.events.length;
  await setLabels(ws.token, conv, []);
  const clearEvents = app.events.slice(cleared).filter((e) => e.name === 'conversation_updated' && e.payload.conversation_id === conv);
  t.is(clearEvents.length, 1);
  t.deepEqual((clearEvents[0]!.payload as any).conversation.labels, []);

  t.is((await app.request('GET', `/api/v1/conversations/${conv}`, { token: ws.token })).body.updated_at, before);
});

test('GET /conversations?label= filters, case-insensitively, with keyset paging and the other filters', async (t) => {
  const ws = await createWorkspace(app);
  await label(ws, { name: 'Billing' });
  await label(ws, { name: 'Other' });
  const labelled: string[] = [];
  for (let i = 0; i < 7; i++) {
    const id = await conversation(ws);
    await app.sql(`update conversations set updated_at = now() - ($2 || ' minutes')::interval where id = $1`, [id, String(i * 2)]);
    if (i % 2 === 0 || i === 5) {
      await setLabels(ws.token, id, ['Billing']);
      labelled.push(id);
    } else await setLabels(ws.token, id, ['Other']);
  }
  const seen: string[] = [];
  let before: string | undefined;
  let pages = 0;
  do {
    const res = await app.request('GET', '/api/v1/conversations', { token: ws.token, query: { label: 'billing', limit: '2', ...(before ? { before } : {}) } });
    t.is(res.status, 200, res.text);
    for (const c of res.body) t.true(c.labels.includes('Billing'));
    seen.push(...res.body.map((c: any) => c.id));
    before = res.headers.get('x-next-cursor') ?? undefined;
    pages++;
  } while (before);
  t.deepEqual(seen, labelled, 'every labelled conversation once, newest first');
  t.is(pages, 3);

  await app.request('PUT', `/api/v1/conversations/${labelled[0]}/resolve`, { token: ws.token });
  const open = await app.request('GET', '/api/v1/conversations', { token: ws.token, query: { label: 'Billing', status: 'open' } });
  t.deepEqual(
    open.body.map((c: any) => c.id),
    labelled.slice(1),
  );
  t.deepEqual((await app.request('GET', '/api/v1/conversations', { token: ws.token, query: { label: 'no such label' } })).body, []);
  t.is((await app.request('GET', '/api/v1/conversations', { token: ws.token, query: { label: 'x'.repeat(51) } })).status, 422);
});

// ---------- canned responses

test('canned responses: create, list, search by short code and content, change, delete', async (t) => {
  const ws = await createWorkspace(app);
  const created = await app.request('POST', '/api/v1/canned-responses', {
    token: ws.token,
    body: { short_code: 'refund', content: '  Your refund is on its way.  ' },
  });
  t.is(created.status, 200, created.text);
  t.like(created.body, { short_code: 'refund', content: 'Your refund is on its way.' });
  await canned(ws, 'Hello', 'Hi {{customer.name}}, how can I help?');
  await canned(ws, 'shipping', 'Orders ship within 2 days (100% tracked).');

  const all = await app.request('GET', '/api/v1/canned-responses', { token: ws.token });
  t.deepEqual(
    all.body.map((c: any) => c.short_code),
    ['Hello', 'refund', 'shipping'],
  );
  const byCode = await app.request('GET', '/api/v1/canned-responses', { token: ws.token, query: { q: 'REF' } });
  t.deepEqual(
    byCode.body.map((c: any) => c.short_code),
    ['refund'],
  );
  const byContent = await app.request('GET', '/api/v1/canned-responses', { token: ws.token, query: { q: 'help' } });
  t.deepEqual(
    byContent.body.map((c: any) => c.short_code),
    ['Hello'],
  );
  const literal = await app.request('GET', '/api/v1/canned-responses', { token: ws.token, query: { q: '100%' } });
  t.deepEqual(
    literal.body.map((c: any) => c.short_code),
    ['shipping'],
    'LIKE wildcards are literal',
  );
  t.deepEqual((await app.request('GET', '/api/v1/canned-responses', { token: ws.token, query: { q: '_' } })).body, []);

  const patched = await app.request('PATCH', `/api/v1/canned-responses/${created.body.id}`, { token: ws.token, body: { content: 'Refunded today.' } });
  t.like(patched.body, { id: created.body.id, short_code: 'refund', content: 'Refunded today.' });
  const deleted = await app.request('DELETE', `/api/v1/canned-responses/${created.body.id}`, { token: ws.token });
  t.deepEqual([deleted.status, deleted.body], [200, { detail: 'Canned response deleted' }]);
  t.is((await app.request('DELETE', `/api/v1/canned-responses/${created.body.id}`, { token: ws.token })).status, 404);
});

test('canned responses: a duplicate short code is 400 whatever its case; bad input 422', async (t) => {
  const ws = await createWorkspace(app);
  const first = await canned(ws, 'thanks', 'Thank you!');
  const second = await canned(ws, 'bye', 'Goodbye!');
  const dup = await app.request('POST', '/api/v1/canned-responses', { token: ws.token, body: { short_code: 'THANKS', content: 'x' } });
  t.deepEqual([dup.status, dup.body], [400, { detail: 'A canned response with the short code "THANKS" already exists' }]);
  t.is((await app.request('PATCH', `/api/v1/canned-responses/${second.id}`, { token: ws.token, body: { short_code: 'Thanks' } })).status, 400);
  t.is((await app.request('PATCH', `/api/v1/canned-responses/${first.id}`, { token: ws.token, body: { short_code: 'Thanks' } })).status, 200);
  for (const body of [
    {},
    { short_code: 'a b', content: 'x' },
    { short_code: '', content: 'x' },
    { short_code: 'ok', content: '   ' },
    { short_code: 'ok', content: 'x'.repeat(10_001) },
    { short_code: 'x'.repeat(51), content: 'x' },
  ]) {
    t.is((await app.request('POST', '/api/v1/canned-responses', { token: ws.token, body })).status, 422, JSON.stringify(body).slice(0, 80));
  }
  t.is((await app.request('GET', '/api/v1/canned-responses', { token: ws.token, query: { cursor: 'not base64 !' } })).status, 422);
});

test('canned responses: keyset pages, with and without q', async (t) => {
  const ws = await createWorkspace(app);
  for (const code of ['e1', 'b1', 'D1', 'a1', 'c1', 'zz']) await canned(ws, code, code === 'zz' ? 'other' : 'common text');
  for (const q of [undefined, 'common']) {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await app.request('GET', '/api/v1/canned-responses', {
        token: ws.token,
        query: { limit: '2', ...(q ? { q } : {}), ...(cursor ? { cursor } : {}) },
      });
      t.is(res.status, 200, res.text);
      seen.push(...res.body.map((c: any) => c.short_code));
      cursor = res.headers.get('x-next-cursor') ?? undefined;
    } while (cursor);
    t.deepEqual(seen, q ? ['a1', 'b1', 'c1', 'D1', 'e1'] : ['a1', 'b1', 'c1', 'D1', 'e1', 'zz']);
  }
});

test('canned responses: render fills known placeholders, empties missing values, keeps unknown ones', async (t) => {
  const ws = await createWorkspace(app, { name: 'Ana Owner' });
  await app.sql(`update businesses set name = 'Acme' where id = $1`, [ws.businessId]);
  const agent = await addMember(app, ws.businessId, 'agent', { name: 'Bo Agent' });
  const template = await canned(
    ws,
    'greet',
    'Hi {{customer.name}} ({{ customer.email }}), {{agent.name}} from {{business.name}}. {{order.id}} {{customer.phone}} {{ unknown }} {customer.name}',
  );
  const withCustomer = await conversation(ws, { name: 'Casey', email: 'casey@example.com' });
  const rendered = await app.request('POST', `/api/v1/canned-responses/${template.id}/render`, { token: agent.token, body: { conversation_id: withCustomer } });
  t.is(rendered.status, 200, rendered.text);
  t.is(rendered.body.content, 'Hi Casey (casey@example.com), Bo Agent from Acme. {{order.id}} {{customer.phone}} {{ unknown }} {customer.name}');
  t.like(rendered.body, { id: template.id, short_code: 'greet' });

  const noEmail = await conversation(ws, { name: 'Dee', email: null });
  t.is(
    (await app.request('POST', `/api/v1/canned-responses/${template.id}/render`, { token: ws.token, body: { conversation_id: noEmail } })).body.content,
    'Hi Dee (), Ana Owner from Acme. {{order.id}} {{customer.phone}} {{ unknown }} {customer.name}',
  );
  const noCustomer = await conversation(ws);
  t.is(
    (await app.request('POST', `/api/v1/canned-responses/${template.id}/render`, { token: ws.token, body: { conversation_id: noCustomer } })).body.content,
    'Hi  (), Ana Owner from Acme. {{order.id}} {{customer.phone}} {{ unknown }} {customer.name}',
  );
  // Nothing was stored: the canned response keeps its placeholders.
  t.is((await one(`select content from canned_responses where id = $1`, [template.id])).content, template.content);

  t.is((await app.request('POST', `/api/v1/canned-responses/${template.id}/render`, { token: ws.token, body: {} })).status, 422);
  t.is(
    (
      await app.request('POST', `/api/v1/canned-responses/${template.id}/render`, {
        token: ws.token,
        body: { conversation_id: '00000000-0000-4000-8000-000000000000' },
      })
    ).status,
    404,
  );
});

test('fillPlaceholders: one pass, values are not filled again', (t) => {
  const values = { 'customer.first_name': null, 'customer.name': '{{agent.name}}', 'customer.email': null, 'agent.name': 'Ana', 'business.name': '$& $1' };
  t.is(
    fillPlaceholders('{{customer.name}}|{{customer.email}}|{{agent.name}}|{{business.name}}|{{constructor}}|{{toString}}', values),
    '{{agent.name}}||Ana|$& $1|{{constructor}}|{{toString}}',
  );
});

test('canned responses: any member manages them; isolation across businesses', async (t) => {
  const a = await createWorkspace(app);
  const b = await createWorkspace(app);
  const agent = await addMember(app, a.businessId, 'agent');
  const mine = await app.request('POST', '/api/v1/canned-responses', { token: agent.token, body: { short_code: 'agent', content: 'by an agent' } });
  t.is(mine.status, 200, mine.text);
  t.is((await app.request('PATCH', `/api/v1/canned-responses/${mine.body.id}`, { token: agent.token, body: { content: 'edited' } })).status, 200);
  const ownerView = await app.request('GET', '/api/v1/canned-responses', { token: a.token });
  t.deepEqual(
    ownerView.body.map((c: any) => c.content),
    ['edited'],
  );

  const bConv = await conversation(b, { name: 'Secret Customer', email: 'secret@example.com' });
  const bCanned = await canned(b, 'agent', 'B {{customer.name}}'); // the same short code in another business is fine
  t.deepEqual(
    (await app.request('GET', '/api/v1/canned-responses', { token: a.token })).body.map((c: any) => c.id),
    [mine.body.id],
  );
  t.is((await app.request('PATCH', `/api/v1/canned-responses/${bCanned.id}`, { token: a.token, body: { content: 'x' } })).status, 404);
  t.is((await app.request('DELETE', `/api/v1/canned-responses/${bCanned.id}`, { token: agent.token })).status, 404);
  t.is((await app.request('POST', `/api/v1/canned-responses/${bCanned.id}/render`, { token: a.token, body: { conversation_id: bConv } })).status, 404);
  // A's own template cannot read B's customer through B's conversation.
  const leak = await app.request('POST', `/api/v1/canned-responses/${mine.body.id}/render`, { token: a.token, body: { conversation_id: bConv } });
  t.deepEqual([leak.status, leak.body], [404, { detail: 'Conversation not found' }]);

  const loner = await registerUser(app);
  t.is((await app.request('GET', '/api/v1/canned-responses', { token: loner.token })).status, 404);
  t.is((await app.request('POST', '/api/v1/canned-responses', { token: loner.token, body: { short_code: 'x', content: 'y' } })).status, 404);
  t.is((await app.request('GET', '/api/v1/canned-responses')).status, 401);
});
