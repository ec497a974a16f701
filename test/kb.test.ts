import test from 'ava';
import { startTestApp, type TestApp, type TestResponse } from './helpers/app.ts';
import { addMember, createWorkspace, registerUser } from './helpers/fixtures.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

const article = (n: number) => ({ title: `Article ${n}`, content: `How to do thing ${n}.` });

const jobsFor = (articleId: number) => app.sql(`select task_identifier, key from graphile_worker.jobs where key = $1`, [`article:${articleId}`]);

test('create returns the article and enqueues its index job in the same transaction', async (t) => {
  const ws = await createWorkspace(app);
  const res = await app.request('POST', '/api/v1/kb/articles', {
    token: ws.token,
    body: { title: '  Refunds  ', content: 'Refunds take 5 days.', tags: ['billing', 'refunds', 'billing'] },
  });
  t.is(res.status, 200, res.text);
  const business = await app.request('GET', '/api/v1/business', { token: ws.token });
  t.true(Number.isInteger(res.body.id));
  t.like(res.body, {
    business_id: business.body.number,
    title: 'Refunds',
    content: 'Refunds take 5 days.',
    tags: ['billing', 'refunds'],
    index_status: 'pending',
  });
  t.regex(res.body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  t.deepEqual(await jobsFor(res.body.id), [{ task_identifier: 'index_article', key: `article:${res.body.id}` }]);
  const payload = await app.sql(`select payload from graphile_worker._private_jobs where key = $1`, [`article:${res.body.id}`]);
  t.deepEqual(payload[0].payload, { article_id: res.body.id });
});

test('tags default to [] and any member (agent) may create', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const agent = await addMember(app, ws.businessId, 'agent');
  const res = await app.request('POST', '/api/v1/kb/articles', { token: agent.token, body: article(1) });
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body.tags, []);
});

test('list is newest first and scoped to the business', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const other = await createWorkspace(app, { plan: 'Mini' });
  const ids: number[] = [];
  for (const n of [1, 2, 3]) {
    const res = await app.request('POST', '/api/v1/kb/articles', { token: ws.token, body: article(n) });
    ids.push(res.body.id);
  }
  await app.request('POST', '/api/v1/kb/articles', { token: other.token, body: article(9) });
  // Make the order come from created_at, not from ids.
  await app.sql(`update kb_articles set created_at = now() - interval '1 day' where id = $1`, [ids[2]]);
  const list = await app.request('GET', '/api/v1/kb/articles', { token: ws.token });
  t.is(list.status, 200, list.text);
  t.deepEqual(
    list.body.map((a: any) => a.id),
    [ids[1], ids[0], ids[2]],
  );
  t.deepEqual(Object.keys(list.body[0]).sort(), ['business_id', 'content', 'created_at', 'id', 'index_status', 'tags', 'title']);
});

test('Free plan: the 5th article is allowed, the 6th is 402 and leaves no row or job', async (t) => {
  const ws = await createWorkspace(app);
  for (const n of [1, 2, 3, 4, 5]) {
    const res = await app.request('POST', '/api/v1/kb/articles', { token: ws.token, body: article(n) });
    t.is(res.status, 200, `article ${n}: ${res.text}`);
  }
  const sixth = await app.request('POST', '/api/v1/kb/articles', { token: ws.token, body: article(6) });
  t.is(sixth.status, 402, sixth.text);
  t.like(sixth.body, { error: 'limit_exceeded', plan: 'Free', feature: 'kb_articles', current: 5, limit: 5 });
  t.is(typeof sixth.body.message, 'string');
  const rows = await app.sql(`select count(*)::int as n from kb_articles where business_id = $1`, [ws.businessId]);
  t.is(rows[0].n, 5);
  // The refused insert took an id from the sequence: no job may point at an article that does not exist.
  const orphans = await app.sql(
    `select j.key from graphile_worker.jobs j
     where j.task_identifier = 'index_article' and not exists (select 1 from kb_articles a where j.key = 'article:' || a.id)`,
  );
  t.deepEqual(orphans, []);
});

test('Mini plan limit is 25, Pro 1000', async (t) => {
  const mini = await createWorkspace(app, { plan: 'Mini' });
  await app.sql(`insert into kb_articles (business_id, title, content) select $1, 'seed ' || g, 'x' from generate_series(1, 24) g`, [mini.businessId]);
  t.is((await app.request('POST', '/api/v1/kb/articles', { token: mini.token, body: article(25) })).status, 200);
  const over = await app.request('POST', '/api/v1/kb/articles', { token: mini.token, body: article(26) });
  t.is(over.status, 402);
  t.like(over.body, { plan: 'Mini', current: 25, limit: 25 });

  const pro = await createWorkspace(app, { plan: 'Pro' });
  await app.sql(`insert into kb_articles (business_id, title, content) select $1, 'seed ' || g, 'x' from generate_series(1, 999) g`, [pro.businessId]);
  t.is((await app.request('POST', '/api/v1/kb/articles', { token: pro.token, body: article(1000) })).status, 200);
  const proOver = await app.request('POST', '/api/v1/kb/articles', { token: pro.token, body: article(1001) });
  t.is(proOver.status, 402);
  t.like(proOver.body, { plan: 'Pro', current: 1000, limit: 1000 });
});

test('validation: lengths and tag rules are 422 in the spec shape', async (t) => {
  const ws = await createWorkspace(app);
  const cases: [unknown, string, string][] = [
    [{ content: 'x' }, 'body.title', 'missing'],
    [{ title: '', content: 'x' }, 'body.title', 'string_too_short'],
    [{ title: 'x'.repeat(201), content: 'x' }, 'body.title', 'string_too_long'],
    [{ title: 't', content: '   ' }, 'body.content', 'string_too_short'],
    [{ title: 't', content: 'x'.repeat(100_001) }, 'body.content', 'string_too_long'],
    [{ title: 't', content: 'x', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'body.tags', 'too_long'],
    [{ title: 't', content: 'x', tags: ['y'.repeat(51)] }, 'body.tags.0', 'string_too_long'],
    [{ title: 't', content: 'x', tags: 'billing' }, 'body.tags', 'list_type'],
  ];
  for (const [body, loc, type] of cases) {
    const res = await app.request('POST', '/api/v1/kb/articles', { token: ws.token, body });
    t.is(res.status, 422, `${loc}: ${res.text}`);
    t.deepEqual(
      res.body.detail.map((d: any) => [d.loc.join('.'), d.type]),
      [[loc, type]],
    );
  }
  const edge = await app.request('POST', '/api/v1/kb/articles', {
    token: ws.token,
    body: { title: 'x'.repeat(200), content: 'x'.repeat(100_000), tags: Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(50, 'z')) },
  });
  t.is(edge.status, 200, edge.text);
  const count = await app.sql(`select count(*)::int as n from kb_articles where business_id = $1`, [ws.businessId]);
  t.is(count[0].n, 1);
});

test('no business: 400 on create and list; no token: 401', async (t) => {
  const loner = await registerUser(app, 'Loner');
  const create = await app.request('POST', '/api/v1/kb/articles', { token: loner.token, body: article(1) });
  t.is(create.status, 400);
  t.is(typeof create.body.detail, 'string');
  t.is((await app.request('GET', '/api/v1/kb/articles', { token: loner.token })).status, 400);
  t.is((await app.request('GET', '/api/v1/kb/articles')).status, 401);
  t.is((await app.request('POST', '/api/v1/kb/articles', { body: article(1) })).status, 401);
  t.is((await app.request('DELETE', '/api/v1/kb/articles/1')).status, 401);
});

test('delete: removes row and pending job; other business and unknown ids are 404; non-integer is 422', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const other = await createWorkspace(app, { plan: 'Mini' });
  const mine = (await app.request('POST', '/api/v1/kb/articles', { token: ws.token, body: article(1) })).body;
  const theirs = (await app.request('POST', '/api/v1/kb/articles', { token: other.token, body: article(2) })).body;

  const cross = await app.request('DELETE', `/api/v1/kb/articles/${theirs.id}`, { token: ws.token });
  t.is(cross.status, 404);
  t.is(cross.body.detail, 'Article not found');
  t.is((await app.sql(`select 1 from kb_articles where id = $1`, [theirs.id])).length, 1);
  t.is((await jobsFor(theirs.id)).length, 1);

  t.is((await app.request('DELETE', '/api/v1/kb/articles/999999999', { token: ws.token })).status, 404);
  const bad = await app.request('DELETE', '/api/v1/kb/articles/abc', { token: ws.token });
  t.is(bad.status, 422);
  t.deepEqual(
    bad.body.detail.map((d: any) => [d.loc.join('.'), d.type]),
    [['path.article_id', 'int_parsing']],
  );
  t.is((await app.request('DELETE', '/api/v1/kb/articles/1.5', { token: ws.token })).status, 422);

  const agent = await addMember(app, ws.businessId, 'agent');
  const del = await app.request('DELETE', `/api/v1/kb/articles/${mine.id}`, { token: agent.token });
  t.is(del.status, 200, del.text);
  t.is(typeof del.body.message, 'string');
  t.is((await app.sql(`select 1 from kb_articles where id = $1`, [mine.id])).length, 0);
  t.deepEqual(await jobsFor(mine.id), []);
  t.is((await app.request('DELETE', `/api/v1/kb/articles/${mine.id}`, { token: ws.token })).status, 404);
  const list = await app.request('GET', '/api/v1/kb/articles', { token: ws.token });
  t.deepEqual(list.body, []);
});

test('a deleted article frees its plan slot', async (t) => {
  const ws = await createWorkspace(app);
  const ids: number[] = [];
  for (const n of [1, 2, 3, 4, 5]) ids.push((await app.request('POST', '/api/v1/kb/articles', { token: ws.token, body: article(n) })).body.id);
  t.is((await app.request('POST', '/api/v1/kb/articles', { token: ws.token, body: article(6) })).status, 402);
  t.is((await app.request('DELETE', `/api/v1/kb/articles/${ids[0]}`, { token: ws.token })).status, 200);
  t.is((await app.request('POST', '/api/v1/kb/articles', { token: ws.token, body: article(6) })).status, 200);
});

test('list: keyset pages of `limit`, newest first, with X-Next-Cursor; a bad cursor is 422', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const made: number[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await app.request('POST', '/api/v1/kb/articles', { token: ws.token, body: { title: `Article ${i}`, content: 'Text' } });
    t.is(res.status, 200, res.text);
    made.push(res.body.id);
  }
  const seen: number[] = [];
  let cursor: string | null = null;
  do {
    const res: TestResponse = await app.request('GET', '/api/v1/kb/articles', { token: ws.token, query: { limit: 2, ...(cursor ? { cursor } : {}) } });
    t.is(res.status, 200, res.text);
    seen.push(...res.body.map((a: any) => a.id));
    cursor = res.headers.get('x-next-cursor');
  } while (cursor);
  t.deepEqual(seen, [...made].reverse());
  const uuidCursor = Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000000Z', '6f1c1c64-2a4e-4f36-9a5e-5b6a1c1d2e3f'])).toString('base64url');
  for (const query of [{ cursor: 'garbage' }, { cursor: uuidCursor }, { limit: 0 }]) {
    const res = await app.request('GET', '/api/v1/kb/articles', { token: ws.token, query: query as Record<string, string | number | undefined> });
    t.is(res.status, 422, JSON.stringify(query));
  }
});
