/**
 * Customer records (issue #20 items 3, 4, 6): PATCH /customers/{id} with attributes, merging two
 * customers (conversations and platform identities, under concurrent inbound), the export of all
 * of a customer's data, erasure (nothing of the customer left in any table, the search or the
 * storage; an audit row without personal data) and the retention period with its daily job.
 */
import { handleEvents } from '../core/events/pipeline.ts';
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { storeInboundEvents, processInboundEvent } from '../core/commands/inbound.ts';
import { applyRetention, eraseCustomer } from '../core/commands/customers.ts';
import { storageFor } from '../core/adapters/storage-for.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, registerUser, type Workspace } from './helpers/fixtures.ts';
import { waitFor, workerPerTest } from './helpers/worker.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());
const runWorker = workerPerTest(() => app);

const unique = (prefix: string) => `${prefix}${randomBytes(5).toString('hex')}`;

async function channel(businessId: string, type: 'telegram' | 'email' | 'whatsapp'): Promise<string> {
  const [row] = await app.sql(`insert into channels (business_id, type, is_active) values ($1, $2, true) returning id`, [businessId, type]);
  return row.id;
}

type From = { platformUserId: string; name?: string; email?: string; phone?: string };

/** A customer message through the inbound pipeline (stored event, then applied), as a webhook brings it. */
async function inbound(
  businessId: string,
  channelId: string,
  type: string,
  from: From,
  text: string,
  options: { rawBody?: string; attachments?: object[] } = {},
) {
  const externalId = unique('ext-');
  const event = { kind: 'message' as const, externalId, from, text, attachments: (options.attachments ?? []) as never[], sentAt: new Date().toISOString() };
  const [eventId] = await app.deps.db.transaction((tx) =>
    storeInboundEvents(tx, { id: channelId, business_id: businessId, type }, [event], options.rawBody ?? JSON.stringify({ from, text })),
  );
  await processInboundEvent(app.deps.db, eventId!);
  const [row] = await app.sql(
    `select m.id, m.conversation_id, c.customer_id from messages m join conversations c on c.id = m.conversation_id where m.external_id = $1`,
    [externalId],
  );
  return { messageId: row.id as string, conversationId: row.conversation_id as string, customerUuid: row.customer_id as string };
}

const numberOf = async (uuid: string) => Number((await app.sql(`select number from customers where id = $1`, [uuid]))[0].number);
const audit = (businessId: string, action: string) =>
  app.sql(`select * from audit_log where business_id = $1 and action = $2 order by id`, [businessId, action]);

// ---------------------------------------------------------------- PATCH

test('PATCH: name, e-mail, phone and attributes (merged, null removes); audited without values; customer_updated published', async (t) => {
  const ws = await createWorkspace(app);
  const ch = await channel(ws.businessId, 'telegram');
  const { customerUuid } = await inbound(ws.businessId, ch, 'telegram', { platformUserId: 'tg-1', name: 'Tele Gram' }, 'hello');
  const id = await numberOf(customerUuid);
  const first = await app.request('PATCH', `/api/v1/customers/${id}`, {
    token: ws.token,
    body: { name: '  Greta Gram ', email: 'greta@example.com', phone: '+49 151 2345', attributes: { plan: 'gold', orders: 12, vip: true } },
  });
  t.is(first.status, 200, first.text);
  t.like(first.body, { id, uuid: customerUuid, name: 'Greta Gram', email: 'greta@example.com', phone: '+49 151 2345' });
  t.deepEqual(first.body.attributes, { plan: 'gold', orders: 12, vip: true });

  const second = await app.request('PATCH', `/api/v1/customers/${id}`, {
    token: ws.token,
    body: { attributes: { vip: null, orders: 13, since: '2024-01-01' } },
  });
  t.is(second.status, 200, second.text);
  t.deepEqual(second.body.attributes, { plan: 'gold', orders: 13, since: '2024-01-01' });
  t.is(second.body.name, 'Greta Gram', 'omitted fields keep their value');
  const cleared = await app.request('PATCH', `/api/v1/customers/${id}`, { token: ws.token, body: { phone: null } });
  t.is(cleared.body.phone, null);
  t.deepEqual((await app.request('GET', `/api/v1/customers/${id}`, { token: ws.token })).body, cleared.body);

  const rows = await audit(ws.businessId, 'customer.updated');
  t.is(rows.length, 3);
  t.deepEqual(rows[0].details, { fields: ['name', 'email', 'phone', 'attributes'], attribute_keys: ['orders', 'plan', 'vip'] });
  t.is(rows[0].target_type, 'customer');
  t.is(rows[0].target_id, String(id));
  t.false(JSON.stringify(rows).includes('greta'), 'no value in the audit log');

  const event = app.events.filter((e) => e.name === 'customer_updated').find((e) => (e.payload as any).customer_id === customerUuid);
  t.truthy(event);
  t.is((event!.payload as any).customer.id, id);

  // Edited: the platform's profile no longer overwrites it, but fills blanks (the phone cleared above).
  await inbound(ws.businessId, ch, 'telegram', { platformUserId: 'tg-1', name: 'Platform Name', email: 'platform@example.com', phone: '+1 555' }, 'again');
  const after = (await app.request('GET', `/api/v1/customers/${id}`, { token: ws.token })).body;
  t.like(after, { name: 'Greta Gram', email: 'greta@example.com', phone: '+1 555' });
});

test('PATCH: 422 for bad values and past the attribute limits, nothing changed; any member may; 404 across businesses; 401', async (t) => {
  const ws = await createWorkspace(app);
  const agent = await addMember(app, ws.businessId, 'agent');
  const [row] = await app.sql(`insert into customers (business_id, name) values ($1, 'Ann') returning number`, [ws.businessId]);
  const id = Number(row.number);
  const bad: [object, (string | number)[]][] = [
    [{ email: 'not-an-address' }, ['body', 'email']],
    [{ name: '' }, ['body', 'name']],
    [{ name: 'x'.repeat(201) }, ['body', 'name']],
    [{ phone: 'call me' }, ['body', 'phone']],
    [{ attributes: { 'bad key': 1 } }, ['body', 'attributes']],
    [{ attributes: { a: 'x'.repeat(501) } }, ['body', 'attributes', 'a']],
    [{ attributes: { a: { nested: true } } }, ['body', 'attributes', 'a']],
    [{ attributes: [1, 2] }, ['body', 'attributes']],
    [{ attributes: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }, ['body', 'attributes']],
  ];
  for (const [body, loc] of bad) {
    const res = await app.request('PATCH', `/api/v1/customers/${id}`, { token: ws.token, body });
    t.is(res.status, 422, JSON.stringify(body));
    t.deepEqual(res.body.detail[0].loc.slice(0, loc.length), loc, JSON.stringify(res.body));
  }
  // Within the body's limit, past the customer's: 30 stored + 30 more.
  const thirty = (p: string) => Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`${p}${i}`, i]));
  t.is((await app.request('PATCH', `/api/v1/customers/${id}`, { token: agent.token, body: { attributes: thirty('a') } })).status, 200, 'an agent may edit');
  const over = await app.request('PATCH', `/api/v1/customers/${id}`, { token: ws.token, body: { attributes: thirty('b') } });
  t.is(over.status, 422);
  t.deepEqual(over.body.detail[0].loc, ['body', 'attributes']);
  const bytes = await app.request('PATCH', `/api/v1/customers/${id}`, {
    token: ws.token,
    body: { attributes: Object.fromEntries(Array.from({ length: 18 }, (_, i) => [`t${i}`, 'y'.repeat(500)])) },
  });
  t.is(bytes.status, 422, 'more than 8 KiB of attributes');
  t.is(Object.keys((await app.request('GET', `/api/v1/customers/${id}`, { token: ws.token })).body.attributes).length, 30);

  const other = await createWorkspace(app);
  const res = await app.request('PATCH', `/api/v1/customers/${id}`, { token: other.token, body: { name: 'Hijack' } });
  t.is(res.status, 404);
  t.deepEqual(res.body, { detail: 'Customer not found' });
  t.is((await app.request('PATCH', `/api/v1/customers/${id}`, { body: { name: 'x' } })).status, 401);
  const loner = await registerUser(app);
  t.is((await app.request('PATCH', `/api/v1/customers/${id}`, { token: loner.token, body: { name: 'x' } })).status, 404);
  t.is((await app.sql(`select name from customers where number = $1`, [id]))[0].name, 'Ann');
});

// ---------------------------------------------------------------- merge

test('merge: conversations and identities move in one go; the other customer is gone; later messages from either identity land on the merged customer', async (t) => {
  const ws = await createWorkspace(app);
  const tg = await channel(ws.businessId, 'telegram');
  const wa = await channel(ws.businessId, 'whatsapp');
  const a = await inbound(ws.businessId, tg, 'telegram', { platformUserId: 'tg-ann', name: 'Ann' }, 'on telegram');
  const b1 = await inbound(ws.businessId, wa, 'whatsapp', { platformUserId: '4915100001', name: 'Ann WhatsApp', email: 'ann@example.com' }, 'by whatsapp');
  await app.sql(`update conversations set status = 'closed' where id = $1`, [b1.conversationId]);
  const b2 = await inbound(ws.businessId, wa, 'whatsapp', { platformUserId: '4915100001' }, 'by whatsapp again');
  t.not(b1.conversationId, b2.conversationId);
  await app.request('PATCH', `/api/v1/customers/${await numberOf(b1.customerUuid)}`, { token: ws.token, body: { attributes: { source: 'mail', tier: 2 } } });
  await app.request('PATCH', `/api/v1/customers/${await numberOf(a.customerUuid)}`, { token: ws.token, body: { attributes: { tier: 1 } } });
  const target = await numberOf(a.customerUuid);
  const source = await numberOf(b1.customerUuid);
  const agent = await addMember(app, ws.businessId, 'agent');
  const before = app.events.length;

  const res = await app.request('POST', `/api/v1/customers/${target}/merge`, { token: agent.token, body: { from_customer_id: source } });
  t.is(res.status, 200, res.text);
  t.is(res.body.conversations_moved, 2);
  t.like(res.body.customer, { id: target, uuid: a.customerUuid, name: 'Ann', email: 'ann@example.com' });
  t.deepEqual(res.body.customer.attributes, { tier: 1, source: 'mail' }, 'the kept record wins; the other fills in');

  const owned = await app.sql(`select id, customer_id from conversations where business_id = $1 order by created_at`, [ws.businessId]);
  t.deepEqual(
    owned.map((c) => c.customer_id),
    [a.customerUuid, a.customerUuid, a.customerUuid],
  );
  t.is((await app.request('GET', `/api/v1/customers/${source}`, { token: ws.token })).status, 404);
  t.deepEqual(
    (await app.request('GET', '/api/v1/customers', { token: ws.token })).body.map((c: any) => c.id),
    [target],
  );
  const history = await app.request('GET', '/api/v1/conversations', { token: ws.token, query: { customer_id: a.customerUuid } });
  t.is(history.body.length, 3);
  const search = await app.request('GET', '/api/v1/search', { token: ws.token, query: { q: 'Ann', type: 'customers' } });
  t.is(search.status, 200);
  t.true(JSON.stringify(search.body).includes(a.customerUuid), 'the kept record is found');
  t.false(JSON.stringify(search.body).includes(b1.customerUuid), 'the merged-away record is not found');

  // Later messages: the WhatsApp identity continues its open conversation, now the merged customer's.
  const later = await inbound(ws.businessId, wa, 'whatsapp', { platformUserId: '4915100001', name: 'Renamed' }, 'after the merge');
  t.is(later.customerUuid, a.customerUuid);
  t.is(later.conversationId, b2.conversationId);
  const tgLater = await inbound(ws.businessId, tg, 'telegram', { platformUserId: 'tg-ann' }, 'telegram again');
  t.is(tgLater.conversationId, a.conversationId);
  t.is(
    (await app.sql(`select count(*)::int as n from customers where business_id = $1 and merged_into is null`, [ws.businessId]))[0].n,
    1,
    'no new customer was made',
  );
  const identity = (await app.sql(`select name, email, attributes, merged_into from customers where id = $1`, [b1.customerUuid]))[0];
  t.deepEqual(identity, { name: '', email: null, attributes: {}, merged_into: a.customerUuid }, 'the merged-away row keeps only its identity');

  const events = app.events.slice(before);
  const merged = events.find((e) => e.name === 'customer_merged' && (e.payload as any).business_id === ws.businessId);
  t.like(merged?.payload as any, { customer_id: a.customerUuid, from_customer_id: b1.customerUuid, conversations_moved: 2 });
  const updated = events
    .filter((e) => e.name === 'conversation_updated')
    .map((e) => (e.payload as any).conversation_id)
    .sort();
  t.true([b1.conversationId, b2.conversationId].every((id) => updated.includes(id)));
  const [row] = await audit(ws.businessId, 'customer.merged');
  t.like(row, { target_type: 'customer', target_id: String(target), actor_user_id: agent.userId });
  t.deepEqual(row.details, { from_customer_id: source, conversations_moved: 2 });

  // A chain: the merged customer merged on carries its merged identity along.
  const c = await inbound(ws.businessId, tg, 'telegram', { platformUserId: 'tg-carl', name: 'Carl' }, 'hi');
  const carl = await numberOf(c.customerUuid);
  t.is((await app.request('POST', `/api/v1/customers/${carl}/merge`, { token: ws.token, body: { from_customer_id: target } })).status, 200);
  const viaMail = await inbound(ws.businessId, wa, 'whatsapp', { platformUserId: '4915100001' }, 'after the second merge');
  t.is(viaMail.customerUuid, c.customerUuid);
});

test('merge: 400 into itself; 404 for either customer of another business or unknown; 422 bad body; nothing moved', async (t) => {
  const ws = await createWorkspace(app);
  const other = await createWorkspace(app);
  const ins = async (businessId: string, name: string) =>
    Number((await app.sql(`insert into customers (business_id, name) values ($1, $2) returning number`, [businessId, name]))[0].number);
  const mine = await ins(ws.businessId, 'Mine');
  const mine2 = await ins(ws.businessId, 'Mine too');
  const theirs = await ins(other.businessId, 'Theirs');
  const merge = (token: string, id: number, from: unknown) => app.request('POST', `/api/v1/customers/${id}/merge`, { token, body: { from_customer_id: from } });
  const self = await merge(ws.token, mine, mine);
  t.is(self.status, 400);
  t.deepEqual(self.body, { detail: 'A customer cannot be merged into itself' });
  t.is((await merge(ws.token, mine, theirs)).status, 404);
  t.is((await merge(ws.token, theirs, mine)).status, 404);
  t.is((await merge(other.token, theirs, mine)).status, 404);
  t.is((await merge(ws.token, mine, 999999999)).status, 404);
  for (const from of ['1', 1.5, 0, null]) t.is((await merge(ws.token, mine, from)).status, 422, String(from));
  t.is((await app.request('POST', `/api/v1/customers/${mine}/merge`, { body: { from_customer_id: mine2 } })).status, 401);
  t.is(
    (await app.sql(`select count(*)::int as n from customers where merged_into is not null and business_id in ($1, $2)`, [ws.businessId, other.businessId]))[0]
      .n,
    0,
  );
});

test('merge under concurrent inbound for either identity: every message ends on the merged customer, none on the other', async (t) => {
  const ws = await createWorkspace(app);
  const tg = await channel(ws.businessId, 'telegram');
  const wa = await channel(ws.businessId, 'whatsapp');
  const a = await inbound(ws.businessId, tg, 'telegram', { platformUserId: 'tg-x' }, 'first');
  const b = await inbound(ws.businessId, wa, 'whatsapp', { platformUserId: '15550001' }, 'first');
  const target = await numberOf(a.customerUuid);
  const source = await numberOf(b.customerUuid);
  const sends = Array.from({ length: 12 }, (_, i) =>
    i % 2 === 0
      ? inbound(ws.businessId, wa, 'whatsapp', { platformUserId: '15550001' }, `wa ${i}`)
      : inbound(ws.businessId, tg, 'telegram', { platformUserId: 'tg-x' }, `tg ${i}`),
  );
  const [merged] = await Promise.all([
    app.request('POST', `/api/v1/customers/${target}/merge`, { token: ws.token, body: { from_customer_id: source } }),
    ...sends,
  ]);
  t.is(merged.status, 200, merged.text);
  const owners = await app.sql(`select distinct c.customer_id from messages m join conversations c on c.id = m.conversation_id where m.business_id = $1`, [
    ws.businessId,
  ]);
  t.deepEqual(
    owners.map((o) => o.customer_id),
    [a.customerUuid],
  );
  t.is((await app.sql(`select count(*)::int as n from messages where business_id = $1`, [ws.businessId]))[0].n, 14);
  t.is((await app.sql(`select count(*)::int as n from conversations where business_id = $1`, [ws.businessId]))[0].n, 2, 'one conversation per channel');
});

// ---------------------------------------------------------------- export

test('export: the customer, identities, every conversation and message (notes too), files linked; nothing of anyone else; owner/admin only', async (t) => {
  const ws = await createWorkspace(app);
  const admin = await addMember(app, ws.businessId, 'admin');
  const agent = await addMember(app, ws.businessId, 'agent');
  const tg = await channel(ws.businessId, 'telegram');
  const mail = await channel(ws.businessId, 'email');
  const a = await inbound(ws.businessId, tg, 'telegram', { platformUserId: 'tg-exp', name: 'Expo' }, 'export me', {
    attachments: [{ url: 'https://files.example/photo.jpg', filename: 'photo.jpg', content_type: 'image/jpeg', size: 1234 }],
  });
  const b = await inbound(ws.businessId, mail, 'email', { platformUserId: 'expo@example.com', email: 'expo@example.com' }, 'mail of expo');
  await app.request('POST', `/api/v1/customers/${await numberOf(a.customerUuid)}/merge`, {
    token: ws.token,
    body: { from_customer_id: await numberOf(b.customerUuid) },
  });
  const note = await app.request('POST', `/api/v1/conversations/${a.conversationId}/messages`, {
    token: ws.token,
    body: { content: 'internal note about expo', private: true },
  });
  t.is(note.status, 200, note.text);
  const stranger = await inbound(ws.businessId, tg, 'telegram', { platformUserId: 'tg-other', name: 'Stranger Danger' }, 'not theirs');
  const id = await numberOf(a.customerUuid);

  const res = await app.request('GET', `/api/v1/customers/${id}/export`, { token: admin.token });
  t.is(res.status, 200, res.text);
  t.regex(res.headers.get('content-disposition') ?? '', new RegExp(`customer-${id}\\.json`));
  t.like(res.body.customer, { id, uuid: a.customerUuid, name: 'Expo', email: 'expo@example.com' });
  t.deepEqual(res.body.identities.map((i: any) => [i.channel_type, i.platform_user_id]).sort(), [
    ['email', 'expo@example.com'],
    ['telegram', 'tg-exp'],
  ]);
  t.deepEqual(res.body.conversations.map((c: any) => c.id).sort(), [a.conversationId, b.conversationId].sort());
  const contents = res.body.conversations.flatMap((c: any) => c.messages.map((m: any) => m.content)).sort();
  t.deepEqual(contents, ['export me', 'internal note about expo', 'mail of expo']);
  t.deepEqual(res.body.attachments, [
    {
      conversation_id: a.conversationId,
      message_id: a.messageId,
      url: 'https://files.example/photo.jpg',
      filename: 'photo.jpg',
      content_type: 'image/jpeg',
      size: 1234,
    },
  ]);
  const text = JSON.stringify(res.body);
  t.false(text.includes('Stranger') || text.includes('not theirs') || text.includes(stranger.conversationId), 'nothing of another customer');

  const refused = await app.request('GET', `/api/v1/customers/${id}/export`, { token: agent.token });
  t.is(refused.status, 403);
  t.deepEqual(refused.body, { detail: "Only the owner or an admin can export a customer's data" });
  const other = await createWorkspace(app);
  t.is((await app.request('GET', `/api/v1/customers/${id}/export`, { token: other.token })).status, 404);
  t.is((await app.request('GET', `/api/v1/customers/${await numberOf(b.customerUuid)}/export`, { token: ws.token })).status, 404, 'the merged-away record');
  t.is((await app.request('GET', `/api/v1/customers/${id}/export`)).status, 401);
});

// ---------------------------------------------------------------- erasure

/** Rows of every table (public and graphile_worker) whose text holds `needle`, as `table: count`. */
async function rowsHolding(needle: string): Promise<string[]> {
  const tables = await app.sql(`
    select n.nspname as schema, c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p') and n.nspname in ('public', 'graphile_worker')`);
  const found: string[] = [];
  for (const { schema, name } of tables) {
    const [{ n }] = await app.sql(`select count(*)::int as n from "${schema}"."${name}" t where strpos(t::text, $1) > 0`, [needle]);
    if (n > 0) found.push(`${schema}.${name}: ${n}`);
  }
  return found;
}

test.serial(
  'erasure: owner/admin only; the record disappears at once; the job leaves no row, search hit or file of the customer; the audit holds no personal data',
  async (t) => {
    const ws = await createWorkspace(app, { plan: 'Pro' });
    const agent = await addMember(app, ws.businessId, 'agent');
    const admin = await addMember(app, ws.businessId, 'admin');
    const tg = await channel(ws.businessId, 'telegram');
    const mail = await channel(ws.businessId, 'email');
    const marker = unique('Zyx');
    const phone = `+49${Date.now() % 1_000_000_000}`;
    const a = await inbound(ws.businessId, tg, 'telegram', { platformUserId: `tg-${marker}`, name: `${marker} Person`, phone }, `secret words ${marker}`, {
      rawBody: JSON.stringify({ update: { from: `tg-${marker}`, text: `secret words ${marker}` } }),
    });
    const b = await inbound(
      ws.businessId,
      mail,
      'email',
      { platformUserId: `${marker.toLowerCase()}@example.com`, email: `${marker.toLowerCase()}@example.com` },
      `mail ${marker}`,
    );
    const id = await numberOf(a.customerUuid);
    await app.request('POST', `/api/v1/customers/${id}/merge`, { token: ws.token, body: { from_customer_id: await numberOf(b.customerUuid) } });
    await app.request('PATCH', `/api/v1/customers/${id}`, { token: ws.token, body: { attributes: { note: `attr ${marker}` } } });
    // An agent's file and reply, a private note with a mention, a label; a webhook delivery that carried a message.
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array([1, 2, 3, 4])], { type: 'image/png' }), `${marker}.png`);
    const up = await fetch(`${app.url}/api/v1/conversations/${a.conversationId}/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.token}` },
      body: form,
    });
    const file = (await up.json()) as any;
    t.is(up.status, 200);
    const reply = await app.request('POST', `/api/v1/conversations/${a.conversationId}/messages`, {
      token: ws.token,
      body: { content: `reply to ${marker}`, attachments: [{ url: file.url }] },
    });
    t.is(reply.status, 200, reply.text);
    const members = (await app.request('GET', '/api/v1/team', { token: ws.token })).body;
    const agentMember = (Array.isArray(members) ? members : (members.members ?? [])).find((m: any) => m.user_id === agent.userId || m.email === agent.email);
    await app.request('POST', `/api/v1/conversations/${a.conversationId}/messages`, {
      token: ws.token,
      body: { content: `note on ${marker}`, private: true, ...(agentMember ? { mentions: [agentMember.id ?? agentMember.member_id] } : {}) },
    });
    await app.request('POST', '/api/v1/labels', { token: ws.token, body: { name: 'VIP' } });
    await app.request('PUT', `/api/v1/conversations/${a.conversationId}/labels`, { token: ws.token, body: { labels: ['VIP'] } });
    const [hook] = await app.sql(
      `insert into webhook_endpoints (business_id, url, events, secret_encrypted, active) values ($1, 'https://hooks.example/x', '{message.created}', 'x', false) returning id`,
      [ws.businessId],
    );
    await app.sql(
      `insert into webhook_deliveries (business_id, webhook_id, event_id, event_type, body) values ($1, $2, gen_random_uuid(), 'message.created', $3)`,
      [ws.businessId, hook.id, JSON.stringify({ data: { conversation_id: a.conversationId, content: `secret words ${marker}` } })],
    );
    // Someone else's data, which must all stay.
    const keep = await inbound(ws.businessId, tg, 'telegram', { platformUserId: 'tg-keeper', name: 'Keeper' }, 'keep me');
    const keepWords = await rowsHolding('keep me');
    t.deepEqual(
      (await rowsHolding(marker)).map((r) => r.split(':')[0]).sort(),
      ['public.customers', 'public.inbound_events', 'public.messages', 'public.uploads', 'public.webhook_deliveries'],
      'the customer is in many tables before',
    );
    const fileKey = new URL(file.url).pathname.split('/').pop()!;
    t.is((await app.sql(`select count(*)::int as n from file_chunks where storage_key = $1`, [fileKey]))[0].n, 1);

    const refused = await app.request('DELETE', `/api/v1/customers/${id}`, { token: agent.token });
    t.is(refused.status, 403);
    t.deepEqual(refused.body, { detail: 'Only the owner or an admin can erase a customer' });
    const other = await createWorkspace(app);
    t.is((await app.request('DELETE', `/api/v1/customers/${id}`, { token: other.token })).status, 404);

    const res = await app.request('DELETE', `/api/v1/customers/${id}`, { token: admin.token });
    t.is(res.status, 200, res.text);
    t.deepEqual(res.body, { id, status: 'erasing' });
    // At once: gone from reads, lists and the customer search, and emptied.
    t.is((await app.request('GET', `/api/v1/customers/${id}`, { token: ws.token })).status, 404);
    t.false((await app.request('GET', '/api/v1/customers', { token: ws.token })).body.some((c: any) => c.id === id));
    t.false(
      JSON.stringify((await app.request('GET', '/api/v1/search', { token: ws.token, query: { q: marker, type: 'customers' } })).body).includes(a.customerUuid),
    );
    t.truthy(app.events.find((e) => e.name === 'customer_erased' && (e.payload as any).customer_id === a.customerUuid));
    const [job] = await app.sql(`select payload from graphile_worker._private_jobs where key = $1`, [`erase:${a.customerUuid}`]);
    t.deepEqual(job.payload, { business_id: ws.businessId, customer_id: a.customerUuid });
    const again = await app.request('DELETE', `/api/v1/customers/${id}`, { token: ws.token });
    t.is(again.status, 200, 'a second request while the job runs answers the same');
    t.is((await audit(ws.businessId, 'customer.erasure_requested')).length, 1, 'and records nothing new');

    await runWorker();
    await waitFor(
      async () => {
        const [failed] = await app.sql(`select last_error from graphile_worker._private_jobs where key = $1 and last_error is not null`, [
          `erase:${a.customerUuid}`,
        ]);
        if (failed) throw new Error(`erase_customer failed: ${failed.last_error}`);
        return (await app.sql(`select 1 from customers where id = $1`, [a.customerUuid])).length === 0;
      },
      20_000,
      'erasure',
    );
    await waitFor(async () => (await audit(ws.businessId, 'customer.erased')).length === 1, 20_000, 'audit');

    t.deepEqual(await rowsHolding(marker), [], 'no row of any table holds the customer');
    t.deepEqual(await rowsHolding(marker.toLowerCase()), []);
    t.deepEqual(await rowsHolding(phone), []);
    for (const uuid of [a.customerUuid, b.customerUuid, a.conversationId, b.conversationId, a.messageId]) {
      t.deepEqual(
        (await rowsHolding(uuid)).filter((r) => !r.startsWith('graphile_worker.')),
        [],
        uuid,
      );
    }
    t.is((await app.sql(`select count(*)::int as n from file_chunks where storage_key = $1`, [fileKey]))[0].n, 0, "the file's bytes are gone");
    t.is((await fetch(file.url)).status, 404);
    const search = await app.request('GET', '/api/v1/search', { token: ws.token, query: { q: marker, type: 'messages' } });
    t.false(JSON.stringify(search.body).includes(marker));

    const [requested] = await audit(ws.businessId, 'customer.erasure_requested');
    t.like(requested, { actor_user_id: admin.userId, target_type: 'customer', target_id: String(id) });
    const [erased] = await audit(ws.businessId, 'customer.erased');
    t.like(erased, { actor_type: 'system', target_id: String(id) });
    t.deepEqual(erased.details, { customer_id: id, conversations: 2, messages: 4, files: 1 });

    // Everyone else's data stays.
    const kept = await rowsHolding('keep me');
    t.deepEqual(
      kept.filter((r) => r.startsWith('public.')),
      keepWords.filter((r) => r.startsWith('public.')),
    );
    t.is((await app.request('GET', `/api/v1/customers/${await numberOf(keep.customerUuid)}`, { token: ws.token })).status, 200);
    // Idempotent: the job again, and the route, find nothing.
    t.is(await eraseCustomer(app.deps.db, app.deps.config, { businessId: ws.businessId, customerId: a.customerUuid }), null);
    t.is((await app.request('DELETE', `/api/v1/customers/${id}`, { token: ws.token })).status, 404);
    // The identity writing again is a new customer.
    const back = await inbound(ws.businessId, tg, 'telegram', { platformUserId: `tg-${marker}` }, 'new start');
    t.not(back.customerUuid, a.customerUuid);
  },
);

test('erasure on disk storage removes the file from the disk', async (t) => {
  const ws = await createWorkspace(app);
  const tg = await channel(ws.businessId, 'telegram');
  const a = await inbound(ws.businessId, tg, 'telegram', { platformUserId: unique('tg-') }, 'with a disk file');
  const disk = storageFor('disk', app.deps.config);
  const key = randomBytes(32).toString('base64url');
  await app.sql(
    `insert into uploads (business_id, conversation_id, storage_key, filename, content_type, size, driver, source) values ($1, $2, $3, 'f.txt', 'text/plain', 3, 'disk', 'inbound')`,
    [ws.businessId, a.conversationId, key],
  );
  await disk.write(
    app.deps.db,
    { businessId: ws.businessId, key },
    (async function* () {
      yield new Uint8Array([1, 2, 3]);
    })(),
    10,
  );
  const { existsSync } = await import('node:fs');
  const { diskPath } = await import('../core/adapters/storage.ts');
  t.true(existsSync(diskPath(app.deps.config.dataDir, key)));
  t.is((await app.request('DELETE', `/api/v1/customers/${await numberOf(a.customerUuid)}`, { token: ws.token })).status, 200);
  const erased = await eraseCustomer(app.deps.db, app.deps.config, { businessId: ws.businessId, customerId: a.customerUuid });
  t.like(erased, { conversations: 1, messages: 1, files: 1 });
  t.false(existsSync(diskPath(app.deps.config.dataDir, key)));
});

// ---------------------------------------------------------------- retention

test('retention: setting (owner/admin), 422 out of range; the daily job deletes only old resolved and closed conversations, with their files, and audits the count', async (t) => {
  const ws = await createWorkspace(app);
  const agent = await addMember(app, ws.businessId, 'agent');
  t.deepEqual((await app.request('GET', '/api/v1/settings/retention', { token: agent.token })).body, { days: null });
  const refused = await app.request('PATCH', '/api/v1/settings/retention', { token: agent.token, body: { days: 30 } });
  t.is(refused.status, 403);
  for (const days of [0, 36501, 1.5, '30'])
    t.is((await app.request('PATCH', '/api/v1/settings/retention', { token: ws.token, body: { days } })).status, 422, String(days));
  const set = await app.request('PATCH', '/api/v1/settings/retention', { token: ws.token, body: { days: 30 } });
  t.is(set.status, 200, set.text);
  t.deepEqual(set.body, { days: 30 });
  t.deepEqual((await app.request('GET', '/api/v1/settings/retention', { token: ws.token })).body, { days: 30 });
  const [row] = await audit(ws.businessId, 'retention.updated');
  t.deepEqual(row.details, { days: 30 });

  const tg = await channel(ws.businessId, 'telegram');
  const make = async (who: string, status: string, daysAgo: number) => {
    const m = await inbound(ws.businessId, tg, 'telegram', { platformUserId: who }, `${who} says hi`);
    await app.sql(`update conversations set status = $2, last_message_at = now() - make_interval(days => $3) where id = $1`, [
      m.conversationId,
      status,
      daysAgo,
    ]);
    return m;
  };
  const oldResolved = await make('r-old', 'resolved', 31);
  const oldClosed = await make('c-old', 'closed', 40);
  const oldOpen = await make('o-old', 'open', 90);
  const newResolved = await make('r-new', 'resolved', 29);
  const key = randomBytes(32).toString('base64url');
  await app.sql(
    `insert into uploads (business_id, conversation_id, storage_key, filename, content_type, size, driver) values ($1, $2, $3, 'a.png', 'image/png', 0, 'postgres')`,
    [ws.businessId, oldClosed.conversationId, key],
  );
  // Another business without retention keeps its old conversations.
  const other = await createWorkspace(app);
  const otherTg = await channel(other.businessId, 'telegram');
  const otherOld = await inbound(other.businessId, otherTg, 'telegram', { platformUserId: 'x' }, 'old elsewhere');
  await app.sql(`update conversations set status = 'closed', last_message_at = now() - interval '400 days' where id = $1`, [otherOld.conversationId]);

  t.true((await applyRetention(app.deps.db, app.deps.config)) >= 2);
  const left = (await app.sql(`select id from conversations where business_id = $1`, [ws.businessId])).map((r) => r.id).sort();
  t.deepEqual(left, [oldOpen.conversationId, newResolved.conversationId].sort());
  t.is(
    (
      await app.sql(`select count(*)::int as n from messages where conversation_id = any($1::uuid[])`, [[oldResolved.conversationId, oldClosed.conversationId]])
    )[0].n,
    0,
  );
  t.is((await app.sql(`select count(*)::int as n from uploads where storage_key = $1`, [key]))[0].n, 0);
  t.is((await app.sql(`select count(*)::int as n from customers where business_id = $1`, [ws.businessId]))[0].n, 4, 'customers stay');
  t.is((await app.sql(`select count(*)::int as n from conversations where id = $1`, [otherOld.conversationId]))[0].n, 1);
  const [expired] = await audit(ws.businessId, 'conversations.expired');
  t.deepEqual(expired.details, { days: 30, conversations: 2, messages: 2, files: 1 });
  t.is(await applyRetention(app.deps.db, app.deps.config), 0, 'nothing twice');

  const off = await app.request('PATCH', '/api/v1/settings/retention', { token: ws.token, body: { days: null } });
  t.deepEqual(off.body, { days: null });
});

test('retention: the daily crontab entry exists and runs the task', async (t) => {
  const { crontab } = await import('../workers/crontab.ts');
  const entry = crontab.find((c) => c.task === 'apply_retention');
  t.is(entry?.match, '23 3 * * *');
});

// ---------------------------------------------------------------- isolation

test("isolation: every customer route is 404 for another business's customer", async (t) => {
  const ws: Workspace = await createWorkspace(app);
  const other = await createWorkspace(app);
  const [row] = await app.sql(`insert into customers (business_id, name) values ($1, 'Theirs') returning number`, [other.businessId]);
  const [mineRow] = await app.sql(`insert into customers (business_id, name) values ($1, 'Mine') returning number`, [ws.businessId]);
  const id = Number(row.number);
  const calls: [string, string, object?][] = [
    ['GET', `/api/v1/customers/${id}`],
    ['PATCH', `/api/v1/customers/${id}`, { name: 'x' }],
    ['POST', `/api/v1/customers/${id}/merge`, { from_customer_id: Number(mineRow.number) }],
    ['GET', `/api/v1/customers/${id}/export`],
    ['DELETE', `/api/v1/customers/${id}`],
  ];
  for (const [method, path, body] of calls) {
    const res = await app.request(method, path, { token: ws.token, body });
    t.is(res.status, 404, `${method} ${path}`);
  }
  t.deepEqual((await app.sql(`select name, erasing_at, merged_into from customers where number = $1`, [id]))[0], {
    name: 'Theirs',
    erasing_at: null,
    merged_into: null,
  });
});

test('erasure of a website visitor: their rate windows go too, and their visitor token stops working', async (t) => {
  const ws = await createWorkspace(app);
  const widget = (await app.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: 'shop.example' } })).body;
  const session = await app.request('POST', '/api/v1/visitor/sessions', {
    body: { widget_id: widget.id, name: 'Vera Visitor' },
    headers: { origin: 'https://shop.example' },
  });
  t.is(session.status, 200, session.text);
  const token = session.body.visitor_token as string;
  const sent = await app.request('POST', '/api/v1/visitor/messages', {
    token,
    body: { content: 'visitor secret' },
    headers: { origin: 'https://shop.example' },
  });
  t.is(sent.status, 200, sent.text);
  const [customer] = await app.sql(`select id, number from customers where business_id = $1 and name = 'Vera Visitor'`, [ws.businessId]);
  t.true((await rowsHolding(customer.id)).some((r) => r.startsWith('public.rate_windows')));
  t.is((await app.request('DELETE', `/api/v1/customers/${customer.number}`, { token: ws.token })).status, 200);
  await eraseCustomer(app.deps.db, app.deps.config, { businessId: ws.businessId, customerId: customer.id });
  t.deepEqual(
    (await rowsHolding(customer.id)).filter((r) => !r.startsWith('graphile_worker.')),
    [],
  );
  t.deepEqual(await rowsHolding('visitor secret'), []);
  t.is((await app.request('GET', '/api/v1/visitor/messages', { token, headers: { origin: 'https://shop.example' } })).status, 401);
});

test('webhooks: customer.updated, customer.merged and customer.erased are dispatched to subscribed endpoints', async (t) => {
  const { dispatchWebhookEvents } = await import('../core/commands/webhooks-out.ts');
  const ws = await createWorkspace(app);
  await app.sql(
    `insert into webhook_endpoints (business_id, url, events, secret_encrypted) values ($1, 'https://hooks.example/c', '{customer.updated,customer.merged,customer.erased}', 'x')`,
    [ws.businessId],
  );
  const ins = async (name: string) =>
    (await app.sql(`insert into customers (business_id, name) values ($1, $2) returning id, number`, [ws.businessId, name]))[0];
  const keep = await ins('Keep');
  const dup = await ins('Dup');
  await app.request('PATCH', `/api/v1/customers/${keep.number}`, { token: ws.token, body: { name: 'Kept' } });
  await app.request('POST', `/api/v1/customers/${keep.number}/merge`, { token: ws.token, body: { from_customer_id: Number(dup.number) } });
  // The webhooks subscriber turns the recorded events into dispatch jobs (core/events/pipeline.ts).
  const dispatchJobs = async () => {
    const pending = await app.sql(`select id from domain_events where business_id = $1 and handled_at is null order by seq`, [ws.businessId]);
    if (pending.length)
      await handleEvents(
        app.deps,
        pending.map((r) => r.id),
      );
    return (
      await app.sql(
        `select payload from graphile_worker._private_jobs where task_id = (select id from graphile_worker._private_tasks where identifier = 'dispatch_webhooks') and payload->>'business_id' = $1 order by id`,
        [ws.businessId],
      )
    ).flatMap((j) => j.payload.events);
  };
  const refs = await dispatchJobs();
  t.deepEqual(
    refs.map((r: any) => [r.type, r.customer_id]),
    [
      ['customer.updated', keep.id],
      ['customer.merged', keep.id],
    ],
  );
  await dispatchWebhookEvents(app.deps, { business_id: ws.businessId, events: refs });
  const bodies = await app.sql(`select event_type, body from webhook_deliveries where business_id = $1 order by created_at, event_type`, [ws.businessId]);
  t.deepEqual(bodies.map((b) => [b.event_type, JSON.parse(b.body).data.id, JSON.parse(b.body).data.name]).sort(), [
    ['customer.merged', Number(keep.number), 'Kept'],
    ['customer.updated', Number(keep.number), 'Kept'],
  ]);

  await app.request('DELETE', `/api/v1/customers/${keep.number}`, { token: ws.token });
  const erasedRef = (await dispatchJobs()).filter((r: any) => r.type === 'customer.erased');
  t.is(erasedRef.length, 1);
  await app.sql(`delete from webhook_deliveries where business_id = $1`, [ws.businessId]);
  await dispatchWebhookEvents(app.deps, { business_id: ws.businessId, events: erasedRef });
  const [erased] = await app.sql(`select event_type, body from webhook_deliveries where business_id = $1`, [ws.businessId]);
  t.is(erased.event_type, 'customer.erased');
  t.deepEqual(JSON.parse(erased.body).data, { uuid: keep.id });
});
