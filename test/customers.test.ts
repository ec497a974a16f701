import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, registerUser } from './helpers/fixtures.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

/** Customers come from inbound messages; tests write them directly. */
async function insertCustomer(businessId: string, fields: { name?: string; email?: string | null; phone?: string | null; external_id?: string | null } = {}) {
  const rows = await app.sql(
    `insert into customers (business_id, name, email, phone, external_id) values ($1, $2, $3, $4, $5) returning id, number, created_at`,
    [businessId, fields.name ?? '', fields.email ?? null, fields.phone ?? null, fields.external_id ?? null],
  );
  return { uuid: rows[0].id as string, number: Number(rows[0].number), createdAt: (rows[0].created_at as Date).toISOString() };
}

const businessNumber = async (id: string) => Number((await app.sql(`select number from businesses where id = $1`, [id]))[0].number);

test("read: the spec's Customer with integer ids, the uuid beside them", async (t) => {
  const ws = await createWorkspace(app);
  const c = await insertCustomer(ws.businessId, { name: 'Jo Doe', email: 'jo@example.com', phone: '+4915112345', external_id: 'crm-7' });
  const res = await app.request('GET', `/api/v1/customers/${c.number}`, { token: ws.token });
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body, {
    id: c.number,
    business_id: await businessNumber(ws.businessId),
    uuid: c.uuid,
    name: 'Jo Doe',
    email: 'jo@example.com',
    phone: '+4915112345',
    external_id: 'crm-7',
    attributes: {},
    created_at: c.createdAt,
  });
  const bare = await insertCustomer(ws.businessId, { name: 'No Contact' });
  const bareRes = await app.request('GET', `/api/v1/customers/${bare.number}`, { token: ws.token });
  t.like(bareRes.body, { email: null, phone: null, external_id: null });
});

test("read: another business's customer and unknown ids are 404; non-integers 422; no token 401", async (t) => {
  const ws = await createWorkspace(app);
  const other = await createWorkspace(app);
  const theirs = await insertCustomer(other.businessId, { name: 'Theirs' });
  const res = await app.request('GET', `/api/v1/customers/${theirs.number}`, { token: ws.token });
  t.is(res.status, 404);
  t.deepEqual(res.body, { detail: 'Customer not found' });
  t.is((await app.request('GET', '/api/v1/customers/999999999', { token: ws.token })).status, 404);
  for (const bad of ['abc', '1.5', theirs.uuid]) {
    const r = await app.request('GET', `/api/v1/customers/${bad}`, { token: ws.token });
    t.is(r.status, 422, bad);
    t.deepEqual(r.body.detail[0].loc, ['path', 'id']);
    t.is(r.body.detail[0].type, 'int_parsing');
  }
  t.is((await app.request('GET', `/api/v1/customers/${theirs.number}`)).status, 401);
});

test("list: newest first, only the business's customers, paged with X-Next-Cursor", async (t) => {
  const ws = await createWorkspace(app);
  const other = await createWorkspace(app);
  await insertCustomer(other.businessId, { name: 'Foreign' });
  const numbers: number[] = [];
  for (let i = 0; i < 5; i++) numbers.push((await insertCustomer(ws.businessId, { name: `C${i}` })).number);
  const expected = [...numbers].reverse();

  const all = await app.request('GET', '/api/v1/customers', { token: ws.token });
  t.is(all.status, 200, all.text);
  t.deepEqual(
    all.body.map((c: any) => c.id),
    expected,
  );
  t.is(all.headers.get('x-next-cursor'), null);

  const seen: number[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await app.request('GET', '/api/v1/customers/', { token: ws.token, query: { limit: 2, before: cursor ?? undefined } });
    t.is(page.status, 200, page.text);
    seen.push(...page.body.map((c: any) => c.id));
    cursor = page.headers.get('x-next-cursor');
  } while (cursor);
  t.deepEqual(seen, expected);
});

test('list: q searches name, e-mail and phone, case-insensitively, with % and _ taken literally', async (t) => {
  const ws = await createWorkspace(app);
  const other = await createWorkspace(app);
  const maria = await insertCustomer(ws.businessId, { name: 'María Gómez', email: 'maria@shop.example' });
  const bob = await insertCustomer(ws.businessId, { name: 'Bob', email: 'BOB@Example.com', phone: '+1 555 0100' });
  const pct = await insertCustomer(ws.businessId, { name: '100% Legit_Co' });
  await insertCustomer(other.businessId, { name: 'Bob Elsewhere', email: 'bob@other.example' });
  const search = async (q: string) => {
    const res = await app.request('GET', '/api/v1/customers', { token: ws.token, query: { q } });
    t.is(res.status, 200, res.text);
    return res.body.map((c: any) => c.id).sort();
  };
  t.deepEqual(await search('bob'), [bob.number]);
  t.deepEqual(await search('example.COM'), [bob.number]);
  t.deepEqual(await search('555 01'), [bob.number]);
  t.deepEqual(await search('gómez'), [maria.number]);
  t.deepEqual(await search('shop'), [maria.number]);
  t.deepEqual(await search('%'), [pct.number]);
  t.deepEqual(await search('t_C'), [pct.number]);
  t.deepEqual(await search('B_b'), [], '_ is not a wildcard');
  t.deepEqual(await search('nobody'), []);
  t.deepEqual(await search('  '), [bob.number, maria.number, pct.number].sort(), 'a blank q lists everyone');
});

test('list: 422 for a bad limit or cursor; 401; 404 without a business', async (t) => {
  const ws = await createWorkspace(app);
  for (const query of [{ limit: 0 }, { limit: 201 }, { before: 'x' }, { q: 'x'.repeat(201) }]) {
    const res = await app.request('GET', '/api/v1/customers', { token: ws.token, query });
    t.is(res.status, 422, JSON.stringify(query));
    t.is(res.body.detail[0].loc[0], 'query');
  }
  t.is((await app.request('GET', '/api/v1/customers')).status, 401);
  const loner = await registerUser(app);
  t.is((await app.request('GET', '/api/v1/customers', { token: loner.token })).status, 404);
});

test('the trigram indexes exist (pg_trgm is required since 0070_search)', async (t) => {
  const rows = await app.sql(`select indexname from pg_indexes where tablename = 'customers' and indexname like '%trgm%' order by indexname`);
  t.deepEqual(
    rows.map((r) => r.indexname),
    ['customers_business_email_trgm_idx', 'customers_business_name_trgm_idx', 'customers_business_phone_digits_trgm_idx', 'customers_phone_trgm_idx'],
  );
});
