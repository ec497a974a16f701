/**
 * Customer records, the rest of issue #20 item 3: typed attribute definitions and PATCH checked
 * against them, notes on a customer (paged, author or admin deletes), customers filtered by
 * attribute (keyset paged, served by the GIN index), CSV export and import, and isolation of the
 * new tables between businesses.
 */
import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, type Workspace } from './helpers/fixtures.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

const definitions = [
  { key: 'plan', label: 'Plan', type: 'list', options: ['free', 'pro', 'enterprise'] },
  { key: 'orders', label: 'Orders', type: 'number' },
  { key: 'renewal', label: 'Renewal date', type: 'date' },
  { key: 'vip', label: 'VIP', type: 'boolean' },
  { key: 'company', label: 'Company', type: 'text' },
];

async function customer(ws: Workspace, name: string, fields: { email?: string; phone?: string; attributes?: object } = {}): Promise<number> {
  const [row] = await app.sql(`insert into customers (business_id, name, email, phone, attributes) values ($1, $2, $3, $4, $5) returning number`, [
    ws.businessId,
    name,
    fields.email ?? null,
    fields.phone ?? null,
    JSON.stringify(fields.attributes ?? {}),
  ]);
  return Number(row.number);
}

const define = (ws: Workspace, attributes: object[], token = ws.token) =>
  app.request('PUT', '/api/v1/settings/customer-attributes', { token, body: { attributes } });

// ---------------------------------------------------------------- definitions

test('attribute definitions: owner/admin replace them, every member reads them, bad lists are 422, audited', async (t) => {
  const ws = await createWorkspace(app);
  const admin = await addMember(app, ws.businessId, 'admin');
  const agent = await addMember(app, ws.businessId, 'agent');
  t.deepEqual((await app.request('GET', '/api/v1/settings/customer-attributes', { token: agent.token })).body, { attributes: [] });
  const put = await define(ws, definitions, admin.token);
  t.is(put.status, 200, put.text);
  t.deepEqual(put.body.attributes, definitions);
  t.deepEqual((await app.request('GET', '/api/v1/settings/customer-attributes', { token: agent.token })).body, { attributes: definitions });

  const refused = await define(ws, [], agent.token);
  t.is(refused.status, 403);
  t.deepEqual(refused.body, { detail: 'Only the owner or an admin can change the customer attributes' });
  const bad: [object[], (string | number)[]][] = [
    [[{ key: 'a', label: 'A', type: 'list' }], ['body', 'attributes', 0, 'options']],
    [[{ key: 'a', label: 'A', type: 'text', options: ['x'] }], ['body', 'attributes', 0, 'options']],
    [[{ key: 'a', label: 'A', type: 'colour' }], ['body', 'attributes', 0, 'type']],
    [[{ key: 'bad key', label: 'A', type: 'text' }], ['body', 'attributes', 0, 'key']],
    [
      [
        { key: 'a', label: 'A', type: 'text' },
        { key: 'a', label: 'B', type: 'number' },
      ],
      ['body', 'attributes', 1, 'key'],
    ],
    [[{ key: 'a', label: 'A', type: 'list', options: ['x', 'x'] }], ['body', 'attributes', 0, 'options']],
  ];
  for (const [list, loc] of bad) {
    const res = await define(ws, list);
    t.is(res.status, 422, JSON.stringify(list));
    t.deepEqual(res.body.detail[0].loc, loc, res.text);
  }
  t.is((await app.request('GET', '/api/v1/settings/customer-attributes', { token: ws.token })).body.attributes.length, 5, 'nothing changed');
  const audit = await app.sql(`select details from audit_log where business_id = $1 and action = 'customer_attributes.updated'`, [ws.businessId]);
  t.deepEqual(
    audit.map((a) => a.details),
    [{ keys: ['plan', 'orders', 'renewal', 'vip', 'company'] }],
  );
});

test('PATCH attributes against the definitions: typed values pass; unknown key and wrong type are 422 naming the field, nothing changed; null removes even an undefined key', async (t) => {
  const ws = await createWorkspace(app);
  const agent = await addMember(app, ws.businessId, 'agent');
  const id = await customer(ws, 'Ann', { attributes: { legacy: 'kept' } });
  // No definitions yet: free-form as before.
  t.is((await app.request('PATCH', `/api/v1/customers/${id}`, { token: agent.token, body: { attributes: { anything: 'goes' } } })).status, 200);
  await define(ws, definitions);
  const ok = await app.request('PATCH', `/api/v1/customers/${id}`, {
    token: agent.token,
    body: { attributes: { plan: 'pro', orders: 3, renewal: '2026-02-28', vip: true, company: 'Acme' } },
  });
  t.is(ok.status, 200, ok.text);
  t.deepEqual(ok.body.attributes, { legacy: 'kept', anything: 'goes', plan: 'pro', orders: 3, renewal: '2026-02-28', vip: true, company: 'Acme' });
  const bad: [object, string][] = [
    [{ colour: 'red' }, 'colour'],
    [{ plan: 'gold' }, 'plan'],
    [{ orders: '3' }, 'orders'],
    [{ renewal: '2026-02-30' }, 'renewal'],
    [{ renewal: 20260228 }, 'renewal'],
    [{ vip: 'yes' }, 'vip'],
    [{ company: 42 }, 'company'],
  ];
  for (const [attributes, key] of bad) {
    const res = await app.request('PATCH', `/api/v1/customers/${id}`, { token: agent.token, body: { attributes: { orders: 4, ...attributes } } });
    t.is(res.status, 422, JSON.stringify(attributes));
    t.deepEqual(
      res.body.detail.map((d: any) => d.loc),
      [['body', 'attributes', key]],
      res.text,
    );
    t.true(res.body.detail[0].msg.includes(key));
  }
  t.is((await app.request('GET', `/api/v1/customers/${id}`, { token: ws.token })).body.attributes.orders, 3, 'nothing changed');
  const cleaned = await app.request('PATCH', `/api/v1/customers/${id}`, { token: agent.token, body: { attributes: { legacy: null, anything: null } } });
  t.is(cleaned.status, 200, cleaned.text);
  t.deepEqual(Object.keys(cleaned.body.attributes).sort(), ['company', 'orders', 'plan', 'renewal', 'vip']);
});

// ---------------------------------------------------------------- notes

test('notes: any member adds, lists newest first with keyset pages; author or owner/admin deletes; merge moves them; 404/422', async (t) => {
  const ws = await createWorkspace(app, { name: 'Olive Owner' });
  const agent = await addMember(app, ws.businessId, 'agent', { name: 'Andy Agent' });
  const other = await addMember(app, ws.businessId, 'agent', { name: 'Otto Other' });
  const id = await customer(ws, 'Noted');
  const made: string[] = [];
  for (let i = 1; i <= 5; i += 1) {
    const res = await app.request('POST', `/api/v1/customers/${id}/notes`, { token: agent.token, body: { body: `  note ${i}  ` } });
    t.is(res.status, 200, res.text);
    made.push(res.body.id);
  }
  const first = await app.request('POST', `/api/v1/customers/${id}/notes`, { token: agent.token, body: { body: 'x' } });
  t.like(first.body, { customer_id: id, author_id: agent.userId, author_name: 'Andy Agent', body: 'x' });
  await app.request('DELETE', `/api/v1/customers/${id}/notes/${first.body.id}`, { token: agent.token });

  const page1 = await app.request('GET', `/api/v1/customers/${id}/notes`, { token: other.token, query: { limit: 2 } });
  t.is(page1.status, 200);
  t.deepEqual(
    page1.body.map((n: any) => n.body),
    ['note 5', 'note 4'],
  );
  const cursor = page1.headers.get('x-next-cursor');
  t.truthy(cursor);
  const rest = await app.request('GET', `/api/v1/customers/${id}/notes`, { token: other.token, query: { limit: 10, before: cursor ?? '' } });
  t.deepEqual(
    rest.body.map((n: any) => n.body),
    ['note 3', 'note 2', 'note 1'],
  );
  t.is(rest.headers.get('x-next-cursor'), null);

  const notHis = await app.request('DELETE', `/api/v1/customers/${id}/notes/${made[0]}`, { token: other.token });
  t.is(notHis.status, 403);
  t.deepEqual(notHis.body, { detail: 'Only its author, the owner or an admin can delete a note' });
  t.is((await app.request('DELETE', `/api/v1/customers/${id}/notes/${made[0]}`, { token: agent.token })).status, 200, 'the author may');
  t.is((await app.request('DELETE', `/api/v1/customers/${id}/notes/${made[1]}`, { token: ws.token })).status, 200, 'the owner may');
  t.is((await app.request('DELETE', `/api/v1/customers/${id}/notes/${made[1]}`, { token: ws.token })).status, 404, 'gone');

  t.is((await app.request('POST', `/api/v1/customers/${id}/notes`, { token: agent.token, body: { body: '   ' } })).status, 422);
  t.is((await app.request('POST', `/api/v1/customers/${id}/notes`, { token: agent.token, body: { body: 'y'.repeat(5001) } })).status, 422);
  t.is((await app.request('POST', `/api/v1/customers/999999999/notes`, { token: agent.token, body: { body: 'y' } })).status, 404);

  // A merge brings the other record's notes along.
  const dup = await customer(ws, 'Noted twice');
  await app.request('POST', `/api/v1/customers/${dup}/notes`, { token: agent.token, body: { body: 'on the duplicate' } });
  t.is((await app.request('POST', `/api/v1/customers/${id}/merge`, { token: ws.token, body: { from_customer_id: dup } })).status, 200);
  const after = await app.request('GET', `/api/v1/customers/${id}/notes`, { token: ws.token });
  t.deepEqual(
    after.body.map((n: any) => n.body),
    ['on the duplicate', 'note 5', 'note 4', 'note 3'],
  );
});

// ---------------------------------------------------------------- filter

test('list filtered by attribute: typed values, several filters, keyset pages, 422 for unknown key or wrong type; free-form without definitions', async (t) => {
  const ws = await createWorkspace(app);
  for (let i = 1; i <= 5; i += 1) await customer(ws, `Pro ${i}`, { attributes: { plan: 'pro', orders: i, vip: i % 2 === 0 } });
  await customer(ws, 'Free one', { attributes: { plan: 'free', orders: 2 } });
  await customer(ws, 'Nothing');
  const names = (res: { body: any[] }) => res.body.map((c) => c.name);

  // Free-form: text, and the number or boolean the text spells.
  t.deepEqual(names(await app.request('GET', '/api/v1/customers', { token: ws.token, query: { 'attr.orders': '2' } })), ['Free one', 'Pro 2']);
  t.deepEqual(names(await app.request('GET', '/api/v1/customers', { token: ws.token, query: { 'attr.vip': 'true', 'attr.plan': 'pro' } })), ['Pro 4', 'Pro 2']);

  await define(ws, definitions);
  const pros = await app.request('GET', '/api/v1/customers', { token: ws.token, query: { 'attr.plan': 'pro', limit: 2 } });
  t.is(pros.status, 200, pros.text);
  t.deepEqual(names(pros), ['Pro 5', 'Pro 4']);
  const next = await app.request('GET', '/api/v1/customers', {
    token: ws.token,
    query: { 'attr.plan': 'pro', limit: 2, before: pros.headers.get('x-next-cursor') ?? '' },
  });
  t.deepEqual(names(next), ['Pro 3', 'Pro 2']);
  const last = await app.request('GET', '/api/v1/customers', {
    token: ws.token,
    query: { 'attr.plan': 'pro', limit: 2, before: next.headers.get('x-next-cursor') ?? '' },
  });
  t.deepEqual(names(last), ['Pro 1']);
  t.is(last.headers.get('x-next-cursor'), null);
  t.deepEqual(names(await app.request('GET', '/api/v1/customers', { token: ws.token, query: { 'attr.orders': '2', q: 'free' } })), ['Free one']);

  const unknown = await app.request('GET', '/api/v1/customers', { token: ws.token, query: { 'attr.colour': 'red' } });
  t.is(unknown.status, 422);
  t.deepEqual(unknown.body.detail[0].loc, ['query', 'attr.colour']);
  const wrong = await app.request('GET', '/api/v1/customers', { token: ws.token, query: { 'attr.orders': 'many' } });
  t.is(wrong.status, 422);
  t.deepEqual(wrong.body.detail[0].loc, ['query', 'attr.orders']);
  t.is((await app.request('GET', '/api/v1/customers', { token: ws.token, query: { 'attr.plan': 'gold' } })).status, 422);
});

test('the attribute filter is served by the GIN index', async (t) => {
  const ws = await createWorkspace(app);
  await app.sql(
    `insert into customers (business_id, name, attributes) select $1, 'c' || g, jsonb_build_object('plan', case when g % 300 = 0 then 'pro' else 'free' end) from generate_series(1, 3000) g`,
    [ws.businessId],
  );
  await app.sql('analyze customers');
  // The test database is small enough for a sequential scan to win: take that option away and see which index the planner picks.
  const { sql } = await import('../core/adapters/postgres/db.ts');
  const plan = await app.deps.db.transaction(async (tx) => {
    await tx.query(sql.unsafe`set local enable_seqscan = off`);
    return tx.any(sql.unsafe`explain (format json) select cu.number from customers cu
      where cu.business_id = ${ws.businessId} and cu.merged_into is null and cu.erasing_at is null and cu.attributes @> ${sql.jsonb({ plan: 'pro' })}
      order by cu.number desc limit 51`);
  });
  t.true(JSON.stringify(plan).includes('customers_attributes_idx'), JSON.stringify(plan));
  const res = await app.request('GET', '/api/v1/customers', { token: ws.token, query: { 'attr.plan': 'pro' } });
  t.is(res.body.length, 10);
});

// ---------------------------------------------------------------- CSV

const upload = async (token: string, csv: string | Buffer, name = 'customers.csv') => {
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), name);
  const res = await fetch(`${app.url}/api/v1/customers/import`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  return { status: res.status, body: (await res.json()) as any };
};

test('CSV export: every customer with attributes as columns, formulas escaped; owner/admin only', async (t) => {
  const ws = await createWorkspace(app);
  await define(ws, definitions.slice(0, 2));
  await customer(ws, 'Ann, "the first"', { email: 'ann@example.com', attributes: { plan: 'pro', orders: 3, legacy: 'x' } });
  await customer(ws, '=HYPERLINK("evil")', { phone: '+1 555' });
  const res = await fetch(`${app.url}/api/v1/customers/export.csv`, { headers: { authorization: `Bearer ${ws.token}` } });
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type')!, /^text\/csv/);
  t.regex(res.headers.get('content-disposition')!, /^attachment; filename="parley-customers-\d{4}-\d{2}-\d{2}\.csv"$/);
  const text = await res.text();
  const lines = text.split('\r\n');
  t.is(lines[0], 'id,uuid,name,email,phone,external_id,created_at,attr.plan,attr.orders,attr.legacy');
  t.true(lines[1]!.includes('"Ann, ""the first"""'));
  t.true(lines[1]!.endsWith(',pro,3,x'));
  t.true(lines[2]!.includes(`"'=HYPERLINK(""evil"")"`), lines[2]);
  t.is(lines.length, 4);
  const agent = await addMember(app, ws.businessId, 'agent');
  t.is((await app.request('GET', '/api/v1/customers/export.csv', { token: agent.token })).status, 403);
});

test('CSV export streams more than one batch', async (t) => {
  const ws = await createWorkspace(app);
  await app.sql(`insert into customers (business_id, name) select $1, 'c' || g from generate_series(1, 1203) g`, [ws.businessId]);
  const res = await fetch(`${app.url}/api/v1/customers/export.csv`, { headers: { authorization: `Bearer ${ws.token}` } });
  const lines = (await res.text()).trim().split('\r\n');
  t.is(lines.length, 1204);
  t.is(new Set(lines.map((l) => l.split(',')[0])).size, 1204, 'no customer twice');
});

test('CSV import: upsert by e-mail, else phone, else create; per-row errors reported, valid rows applied; limits; round trip of the export', async (t) => {
  const ws = await createWorkspace(app);
  await define(ws, definitions);
  const ann = await customer(ws, 'Ann', { email: 'Ann@Example.com', attributes: { company: 'Old' } });
  const bob = await customer(ws, 'Bob', { phone: '+1 (555) 010-0200' });
  const csv = [
    'name,email,phone,attr.plan,attr.orders,attr.vip,attr.renewal',
    'Ann Updated,ann@example.com,,pro,7,yes,2026-01-31',
    'Bobby,,15550100200,free,,,',
    'New Person,new@example.com,,enterprise,1,false,',
    'Bad Plan,bad@example.com,,gold,1,,',
    'Bad Row,not-an-email,,,,,',
    'No Contact,,,,,,',
    'Too,few',
  ].join('\n');
  const res = await upload(ws.token, csv);
  t.is(res.status, 200, JSON.stringify(res.body));
  t.is(res.body.created, 1);
  t.is(res.body.updated, 2);
  t.deepEqual(
    res.body.errors.map((e: any) => [e.line, e.column]),
    [
      [5, 'attr.plan'],
      [6, 'email'],
      [7, null],
      [8, null],
    ],
  );
  const read = async (n: number) => (await app.request('GET', `/api/v1/customers/${n}`, { token: ws.token })).body;
  t.like(await read(ann), { name: 'Ann Updated', email: 'ann@example.com' }, 'matched case-insensitively, stored as the file gives it');
  t.deepEqual((await read(ann)).attributes, { company: 'Old', plan: 'pro', orders: 7, vip: true, renewal: '2026-01-31' });
  t.like(await read(bob), { name: 'Bobby', phone: '15550100200' }, 'matched by its digits, stored as the file gives it');
  const created = (await app.request('GET', '/api/v1/customers', { token: ws.token, query: { q: 'new@example.com' } })).body;
  t.is(created.length, 1);
  t.deepEqual(created[0].attributes, { plan: 'enterprise', orders: 1, vip: false });
  t.is((await app.request('GET', '/api/v1/customers', { token: ws.token, query: { q: 'bad@example.com' } })).body.length, 0, 'bad rows not applied');
  const [audit] = await app.sql(`select details from audit_log where business_id = $1 and action = 'customers.imported'`, [ws.businessId]);
  t.deepEqual(audit.details, { created: 1, updated: 2, rows_with_errors: 4 });

  // Whole-file refusals: nothing applied.
  const before = (await app.sql(`select count(*)::int as n from customers where business_id = $1`, [ws.businessId]))[0].n;
  const unknownColumn = await upload(ws.token, 'name,email,shoe_size\nX,x@example.com,44\n');
  t.is(unknownColumn.status, 422);
  t.deepEqual(unknownColumn.body.detail[0].loc, ['body', 'file']);
  t.is((await upload(ws.token, 'name\nNobody\n')).status, 422, 'no email or phone column');
  t.is((await upload(ws.token, 'name,email\n')).status, 422, 'no rows');
  t.is((await upload(ws.token, `email\n${Array.from({ length: 5001 }, (_, i) => `p${i}@example.com`).join('\n')}\n`)).status, 422, 'too many rows');
  t.is((await upload(ws.token, Buffer.alloc(2 * 1024 * 1024 + 10, 'a'))).status, 413);
  t.is((await app.sql(`select count(*)::int as n from customers where business_id = $1`, [ws.businessId]))[0].n, before);

  // Round trip: the export imports back without errors and changes nothing.
  const exported = await (await fetch(`${app.url}/api/v1/customers/export.csv`, { headers: { authorization: `Bearer ${ws.token}` } })).text();
  const again = await upload(ws.token, exported);
  t.is(again.status, 200, JSON.stringify(again.body));
  t.deepEqual(again.body.errors, []);
  t.is(again.body.created, 0);
  t.deepEqual((await read(ann)).attributes, { company: 'Old', plan: 'pro', orders: 7, vip: true, renewal: '2026-01-31' });

  const agent = await addMember(app, ws.businessId, 'agent');
  t.is((await upload(agent.token, 'email\na@example.com\n')).status, 403);
});

// ---------------------------------------------------------------- isolation

test("isolation: another business's definitions, notes, filters, export and import never cross", async (t) => {
  const ws = await createWorkspace(app);
  const other = await createWorkspace(app);
  await define(other, [{ key: 'secret_plan', label: 'Secret', type: 'text' }]);
  const theirs = await customer(other, 'Theirs', { email: 'shared@example.com', attributes: { secret_plan: 'x' } });
  const note = await app.request('POST', `/api/v1/customers/${theirs}/notes`, { token: other.token, body: { body: 'their note' } });

  t.deepEqual((await app.request('GET', '/api/v1/settings/customer-attributes', { token: ws.token })).body, { attributes: [] });
  t.is((await app.request('GET', `/api/v1/customers/${theirs}/notes`, { token: ws.token })).status, 404);
  t.is((await app.request('POST', `/api/v1/customers/${theirs}/notes`, { token: ws.token, body: { body: 'hijack' } })).status, 404);
  t.is((await app.request('DELETE', `/api/v1/customers/${theirs}/notes/${note.body.id}`, { token: ws.token })).status, 404);
  const mine = await customer(ws, 'Mine');
  t.is((await app.request('DELETE', `/api/v1/customers/${mine}/notes/${note.body.id}`, { token: ws.token })).status, 404, 'their note id under my customer');
  t.deepEqual((await app.request('GET', '/api/v1/customers', { token: ws.token, query: { 'attr.secret_plan': 'x' } })).body, []);
  const exported = await (await fetch(`${app.url}/api/v1/customers/export.csv`, { headers: { authorization: `Bearer ${ws.token}` } })).text();
  t.false(exported.includes('Theirs') || exported.includes('secret_plan'));
  const imported = await upload(ws.token, 'name,email\nMine Too,shared@example.com\n');
  t.is(imported.body.created, 1, 'the same e-mail in another business is not matched');
  t.is((await app.sql(`select name from customers where number = $1`, [theirs]))[0].name, 'Theirs');
  t.is((await app.request('GET', `/api/v1/customers/${theirs}/notes`, { token: other.token })).body.length, 1);
});

test('erasure removes the notes on the customer', async (t) => {
  const { eraseCustomer } = await import('../core/commands/customers.ts');
  const ws = await createWorkspace(app);
  const id = await customer(ws, 'Forget me');
  await app.request('POST', `/api/v1/customers/${id}/notes`, { token: ws.token, body: { body: 'a personal detail' } });
  const [row] = await app.sql(`select id from customers where number = $1`, [id]);
  t.is((await app.request('DELETE', `/api/v1/customers/${id}`, { token: ws.token })).status, 200);
  await eraseCustomer(app.deps.db, app.deps.config, { businessId: ws.businessId, customerId: row.id });
  t.deepEqual(await app.sql(`select id from customer_notes where business_id = $1`, [ws.businessId]), []);
});
