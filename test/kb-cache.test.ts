/**
 * Search with the per-process vector cache warm (core/domain/knowledge-base/vector-cache.ts): every change to a
 * business's index (article indexed, re-indexed, deleted) shows in the very next search, and a
 * business's cached vectors never serve another business. The API and the worker share this
 * process, as in a single-process deployment, so the cache is warm whenever a test searches twice.
 */
import test from 'ava';
import type { SupervisedRunner as Runner } from '../workers/supervisor.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { query, startTestWorker, waitFor } from './helpers/worker.ts';
import { startFakeOllama, type FakeOllama } from './fakes/ollama.ts';
import { VectorCache, type ChunkVector } from '../core/domain/knowledge-base/vector-cache.ts';

let app: TestApp;
let ollama: FakeOllama;
let worker: Runner;

test.before(async () => {
  ollama = await startFakeOllama();
  app = await startTestApp({ env: { OLLAMA_URL: ollama.url } });
  worker = await startTestWorker(app, { only: ['index_article'] });
});

test.after.always(async () => {
  await worker?.stop();
  await app?.close();
  await ollama?.close();
});

type Hit = { article_id: number; title: string; snippet: string; score: number };

async function indexed(ws: Workspace, title: string, content: string): Promise<number> {
  const res = await app.request('POST', '/api/v1/kb/articles', { token: ws.token, body: { title, content } });
  if (res.status !== 200) throw new Error(`create article: ${res.status} ${res.text}`);
  const id: number = res.body.id;
  await waitFor(
    async () => (await query(app, `select 1 from kb_articles where id = $1 and index_status = 'indexed'`, [id])).length === 1,
    20_000,
    `article ${id} indexed`,
  );
  return id;
}

async function search(ws: Workspace, q: string, limit = 20): Promise<Hit[]> {
  const res = await app.request('GET', '/api/v1/kb/search', { token: ws.token, query: { q, limit } });
  if (res.status !== 200) throw new Error(`search: ${res.status} ${res.text}`);
  return res.body;
}

const ids = (hits: Hit[]) => hits.map((h) => h.article_id);

/** Searches twice and checks both answers agree: the second one comes from the warm cache. */
async function warm(ws: Workspace, q: string): Promise<number[]> {
  const first = ids(await search(ws, q));
  const second = ids(await search(ws, q));
  if (JSON.stringify(first) !== JSON.stringify(second)) throw new Error(`warm search changed: ${first} → ${second}`);
  return second;
}

test('with the cache warm, a newly indexed article appears in the next search', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const refund = await indexed(ws, 'Refund policy', 'We refund any order within 30 days of delivery.');
  t.deepEqual(await warm(ws, 'gift card balance refund'), [refund]);
  const gift = await indexed(ws, 'Gift cards', 'A gift card balance never expires; check the gift card balance on the account page.');
  t.deepEqual(ids(await search(ws, 'gift card balance refund')), [gift, refund]);
});

test('with the cache warm, a deleted article is gone at once and the next best takes its place', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const students = await indexed(ws, 'Student discount', 'Students get a student discount of ten percent with a valid student card.');
  const seniors = await indexed(ws, 'Senior discount', 'Seniors get a discount of ten percent too.');
  t.deepEqual(await warm(ws, 'student discount'), [students, seniors]);
  t.deepEqual(ids(await search(ws, 'student discount', 1)), [students]);
  const del = await app.request('DELETE', `/api/v1/kb/articles/${students}`, { token: ws.token });
  t.is(del.status, 200);
  // limit 1: the deleted article must not even take the only slot and leave the list empty.
  t.deepEqual(ids(await search(ws, 'student discount', 1)), [seniors]);
  t.deepEqual(ids(await search(ws, 'student discount')), [seniors]);
});

test('with the cache warm, a re-indexed article ranks by its new content', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const hours = await indexed(ws, 'Store hours', 'Our store opens at nine on weekdays and at ten on weekends.');
  const pallets = await indexed(ws, 'Warehouse', 'Pallets leave the warehouse every morning.');
  t.deepEqual(await warm(ws, 'warehouse pallets forklift'), [pallets]);
  await query(app, `update kb_articles set content = 'Forklift drivers stack warehouse pallets: forklift, forklift, pallets.' where id = $1`, [hours]);
  await query(app, `select graphile_worker.add_job('index_article', json_build_object('article_id', $1::bigint), job_key => 'reindex:' || $1)`, [hours]);
  await waitFor(async () => (await query(app, `select 1 from graphile_worker.jobs where key = $1`, [`reindex:${hours}`])).length === 0, 20_000, 're-index');
  t.deepEqual(ids(await search(ws, 'warehouse pallets forklift')), [hours, pallets]);
  t.deepEqual(ids(await search(ws, 'opens weekdays weekends')), [], 'the old text is no longer searchable');
});

test('with both caches warm, each business only ever sees its own articles', async (t) => {
  const a = await createWorkspace(app, { plan: 'Mini' });
  const b = await createWorkspace(app, { plan: 'Mini' });
  const text = 'Loyalty points are earned on every purchase and expire after a year.';
  const mine = await indexed(a, 'Loyalty points', text);
  const theirs = await indexed(b, 'Loyalty points', text);
  t.deepEqual(await warm(a, 'loyalty points expire'), [mine]);
  t.deepEqual(await warm(b, 'loyalty points expire'), [theirs]);
  const theirsToo = await indexed(b, 'Loyalty tiers', 'Loyalty points unlock gold and silver tiers.');
  t.deepEqual(ids(await search(a, 'loyalty points expire')), [mine]);
  t.deepEqual(new Set(ids(await search(b, 'loyalty points expire'))), new Set([theirs, theirsToo]));
  const empty = await createWorkspace(app);
  t.deepEqual(await warm(empty, 'loyalty points expire'), []);
});

// ---------------------------------------------------------------- the cache itself

const chunks = (n: number, dims = 256): ChunkVector[] =>
  Array.from({ length: n }, (_, i) => ({ id: i, articleId: i, ordinal: 0, vector: new Float32Array(dims) }));

test('VectorCache: a version change misses; the least recently searched business goes first; the cap in bytes holds', (t) => {
  const one = chunks(10); // 10 × (1 KiB + overhead)
  const perEntry = 10 * (1024 + 200);
  const cache = new VectorCache(perEntry * 2);
  cache.set('a', 1, one);
  t.is(cache.get('a', 1), one);
  t.is(cache.get('a', 2), undefined, 'another version never hits');
  cache.set('b', 1, chunks(10));
  t.truthy(cache.get('a', 1)); // a is now the most recent
  cache.set('c', 1, chunks(10));
  t.is(cache.get('b', 1), undefined, 'b, least recently searched, was evicted');
  t.truthy(cache.get('a', 1));
  t.truthy(cache.get('c', 1));
  t.deepEqual(cache.size, { businesses: 2, bytes: perEntry * 2 });
  cache.set('huge', 1, chunks(30));
  t.is(cache.get('huge', 1), undefined, 'a business larger than the cap is not cached');
  t.deepEqual(cache.size, { businesses: 2, bytes: perEntry * 2 });
  cache.set('a', 2, chunks(5));
  t.is(cache.get('a', 1), undefined);
  t.deepEqual(cache.size, { businesses: 2, bytes: perEntry * 2 - 5 * (1024 + 200) });
});
