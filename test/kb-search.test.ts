/**
 * Knowledge base indexing and search, through the real API and worker against a fake Ollama:
 * articles are chunked, embedded and marked `indexed`; search ranks within the caller's
 * business only; deletion takes an article out of search at once; Ollama failures leave the
 * article saved and `failed` (permanent at once, transient after the last attempt) and a
 * recreated article indexes; search answers from full text while Ollama is unreachable, and fuses
 * full text with the semantic ranking when it is up.
 *
 * Tests that change the fake's global behaviour (down, failures, missing model) are serial;
 * ava runs them before the concurrent ones.
 */
import test from 'ava';
import { createServer } from 'node:net';
import type { SupervisedRunner as Runner } from '../workers/supervisor.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, registerUser, type Workspace } from './helpers/fixtures.ts';
import { query, startTestWorker, waitFor } from './helpers/worker.ts';
import { startFakeOllama, FAKE_EMBEDDING_SIZE, type FakeOllama } from './fakes/ollama.ts';
import { chunkText, CHUNK_SIZE } from '../core/domain/knowledge-base/search-index.ts';
import { INDEX_MAX_ATTEMPTS } from '../core/jobs.ts';
import { embed, OllamaError } from '../core/adapters/ollama.ts';

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

type Article = { id: number; index_status: string };

async function createArticle(ws: Workspace, title: string, content: string): Promise<Article> {
  const res = await app.request('POST', '/api/v1/kb/articles', { token: ws.token, body: { title, content } });
  if (res.status !== 200) throw new Error(`create article: ${res.status} ${res.text}`);
  return res.body;
}

async function statusOf(id: number): Promise<{ index_status: string; index_error: string | null }> {
  const [row] = await query(app, 'select index_status, index_error from kb_articles where id = $1', [id]);
  return row;
}

async function settled(id: number, status = 'indexed') {
  return waitFor(
    async () => {
      const row = await statusOf(id);
      return row.index_status === status ? row : null;
    },
    20_000,
    `article ${id} ${status}`,
  );
}

async function indexed(ws: Workspace, title: string, content: string): Promise<Article> {
  const article = await createArticle(ws, title, content);
  await settled(article.id);
  return article;
}

const search = (ws: { token: string }, q?: string, limit?: number | string) =>
  app.request('GET', '/api/v1/kb/search', { token: ws.token, query: { q, limit } });

const REFUND =
  'We refund any order within 30 days of delivery. Start a refund from the order page; the money returns to the original card within five business days.';
const PASSWORD =
  'To reset a forgotten password, click "Forgot password" on the sign-in page and follow the link we e-mail you. The link expires after one hour.';
const SHIPPING = 'Parcels ship from our warehouse within two working days. Tracking numbers arrive by e-mail once the courier collects the parcel.';

// ---------------------------------------------------------------- chunking and the client

test('chunkText: a short article is one chunk; a long one is cut along paragraphs with overlap, no chunk over the size', (t) => {
  t.deepEqual(chunkText('  One paragraph.  '), ['One paragraph.']);
  const paragraphs = Array.from({ length: 12 }, (_, i) => `Paragraph ${i} ` + `word${i} `.repeat(20 + i * 3).trim() + '.');
  const chunks = chunkText(paragraphs.join('\n\n'));
  t.true(chunks.length > 3);
  for (const chunk of chunks) t.true(chunk.length <= CHUNK_SIZE, `chunk of ${chunk.length}`);
  // Every paragraph is whole in some chunk; consecutive chunks share the end of the former.
  for (const p of paragraphs)
    t.true(
      chunks.some((c) => c.includes(p)),
      p.slice(0, 20),
    );
  for (let i = 1; i < chunks.length; i += 1) {
    const head = chunks[i]!.split('\n\n')[0]!;
    t.true(chunks[i - 1]!.endsWith(head), `chunk ${i} starts with the end of chunk ${i - 1}`);
  }
});

test('chunkText: a paragraph longer than a chunk is cut by sentences, a word longer than a chunk by characters', (t) => {
  const sentences = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} says something useful.`).join(' ');
  const chunks = chunkText(sentences);
  t.true(chunks.length > 1);
  for (const chunk of chunks) t.true(chunk.length <= CHUNK_SIZE);
  t.true(chunks[0]!.startsWith('Sentence number 0 says'));
  const word = 'x'.repeat(2000);
  const cut = chunkText(word);
  t.true(cut.every((c) => c.length <= CHUNK_SIZE));
  t.is(cut.join('').replace(/\s/g, '').length >= 2000, true);
});

test('embed: an unreachable Ollama is a transient OllamaError', async (t) => {
  const port = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
  const error = await t.throwsAsync(embed({ OLLAMA_URL: `http://127.0.0.1:${port}`, OLLAMA_EMBED_MODEL: 'm', OLLAMA_CHAT_MODEL: 'c' }, ['x']));
  t.true(error instanceof OllamaError);
  t.is((error as OllamaError).kind, 'transient');
  t.is((error as OllamaError).status, null);
});

// ---------------------------------------------------------------- failures (serial: they change the fake for everyone)

test.serial('a model that is not pulled marks the article failed at once, with the reason; the article stays listed', async (t) => {
  const ws = await createWorkspace(app);
  ollama.models.delete('nomic-embed-text');
  try {
    const article = await createArticle(ws, 'Opening hours', 'We are open from nine to five.');
    const row = await settled(article.id, 'failed');
    t.regex(row.index_error ?? '', /404.*not found/);
    // Not retried: the job completes (a retried job would stay, with its attempt and error).
    await waitFor(
      async () => (await query(app, `select 1 from graphile_worker.jobs where key = $1`, [`article:${article.id}`])).length === 0,
      20_000,
      'job completed',
    );
    t.is((await query(app, 'select count(*)::int as n from kb_chunks where article_id = $1', [article.id]))[0].n, 0);
    const list = await app.request('GET', '/api/v1/kb/articles', { token: ws.token });
    t.is(list.body.find((a: { id: number }) => a.id === article.id)?.index_status, 'failed');
  } finally {
    ollama.models.add('nomic-embed-text');
  }
});

test.serial('Ollama down: indexing is retried, the last attempt marks the article failed; recreating it indexes it', async (t) => {
  const ws = await createWorkspace(app);
  ollama.setDown(true);
  let article: Article;
  try {
    article = await createArticle(ws, 'Gift cards', 'Gift cards never expire and can be used for any order.');
    const [job] = await query(app, `select id, max_attempts from graphile_worker.jobs where key = $1`, [`article:${article.id}`]);
    t.is(job.max_attempts, INDEX_MAX_ATTEMPTS);
    const failedOnce = await waitFor(
      async () => {
        const [row] = await query(app, `select id, attempts, last_error from graphile_worker.jobs where key = $1 and attempts = 1 and locked_at is null`, [
          `article:${article.id}`,
        ]);
        return row ?? null;
      },
      20_000,
      'first failed attempt',
    );
    t.regex(failedOnce.last_error, /cannot be reached/);
    t.is((await statusOf(article.id)).index_status, 'pending', 'still pending between attempts');
    // The next attempt is the last one, and it runs now instead of after the backoff.
    await query(app, `select graphile_worker.reschedule_jobs(array[$1::bigint], run_at => now(), max_attempts => 2)`, [failedOnce.id]);
    const row = await settled(article.id, 'failed');
    t.regex(row.index_error ?? '', /cannot be reached/);
    // The job stays, permanently failed (for `parley jobs retry`).
    const after = await waitFor(
      async () => {
        const [job] = await query(
          app,
          `select attempts, max_attempts, last_error from graphile_worker.jobs where id = $1 and locked_at is null and attempts = 2`,
          [failedOnce.id],
        );
        return job ?? null;
      },
      20_000,
      'second attempt recorded',
    );
    t.is(after.max_attempts, 2);
    t.regex(after.last_error, /cannot be reached/);
  } finally {
    ollama.setDown(false);
  }
  const again = await createArticle(ws, 'Gift cards', 'Gift cards never expire and can be used for any order.');
  await settled(again.id);
  const res = await search(ws, 'do gift cards expire');
  t.is(res.status, 200);
  t.deepEqual(
    res.body.map((r: { article_id: number }) => r.article_id),
    [again.id],
  );
});

test.serial('a 5xx from Ollama is retried and the article then indexes', async (t) => {
  const ws = await createWorkspace(app);
  ollama.failNext(1, 500);
  const article = await createArticle(ws, 'Returns address', 'Send returns to 1 Harbour Road, Leith.');
  const failed = await waitFor(
    async () => {
      const [row] = await query(app, `select id from graphile_worker.jobs where key = $1 and attempts = 1 and locked_at is null`, [`article:${article.id}`]);
      return row ?? null;
    },
    20_000,
    'first failed attempt',
  );
  await query(app, `select graphile_worker.reschedule_jobs(array[$1::bigint], run_at => now())`, [failed.id]);
  await settled(article.id);
  t.is((await statusOf(article.id)).index_error, null);
});

test.serial('Ollama unreachable: search still answers from full text, finding the one article with the word, indexed or not', async (t) => {
  const ws = await createWorkspace(app);
  const refund = await indexed(ws, 'Refunds', REFUND);
  await indexed(ws, 'Passwords', PASSWORD);
  ollama.setDown(true);
  try {
    const before = ollama.embedRequests.length;
    const res = await search(ws, 'refund');
    t.is(res.status, 200);
    t.deepEqual(
      res.body.map((r: { article_id: number }) => r.article_id),
      [refund.id],
    );
    t.regex(res.body[0].snippet, /refund/i);
    t.is(res.body[0].score, 1, 'first in the only ranking that answered');
    t.is(ollama.embedRequests.length, before, 'the fake was down: no embedding reached it');
    // Saved while Ollama is down: never embedded (pending), found by its words at once.
    const pending = await createArticle(ws, 'Gift cards', 'Gift cards never expire and can be used online or in a store.');
    t.is((await statusOf(pending.id)).index_status, 'pending');
    const gift = await search(ws, 'gift cards expire');
    t.is(gift.status, 200);
    t.deepEqual(
      gift.body.map((r: { article_id: number }) => r.article_id),
      [pending.id],
    );
    t.deepEqual((await search(ws, 'xylophone')).body, []);
  } finally {
    ollama.setDown(false);
  }
  ollama.failNext(1, 404, 'model "nomic-embed-text" not found, try pulling it first');
  const refused = await search(ws, 'refund');
  t.is(refused.status, 200, 'a refused embedding (model not installed) answers from full text too');
  t.deepEqual(
    refused.body.map((r: { article_id: number }) => r.article_id),
    [refund.id],
  );
});

test('full text finds words of any language as written (no English stemming or stop words)', async (t) => {
  const ws = await createWorkspace(app);
  const de = await createArticle(ws, 'Rücksendung', 'Die Rücksendung ist innerhalb von 30 Tagen kostenlos. Bitte legen Sie den Lieferschein bei.');
  const ru = await createArticle(ws, 'Доставка', 'Доставка по всей России занимает от трёх до пяти дней.');
  t.deepEqual(
    (await search(ws, 'Lieferschein')).body.map((r: { article_id: number }) => r.article_id),
    [de.id],
  );
  t.deepEqual(
    (await search(ws, 'rücksendung')).body.map((r: { article_id: number }) => r.article_id),
    [de.id],
    'case-insensitive, umlaut kept',
  );
  t.deepEqual(
    (await search(ws, 'доставка')).body.map((r: { article_id: number }) => r.article_id),
    [ru.id],
  );
  t.deepEqual(
    (await search(ws, '"пяти дней"')).body.map((r: { article_id: number }) => r.article_id),
    [ru.id],
    'a quoted phrase',
  );
  t.deepEqual((await search(ws, 'доставка -россии')).body, [], 'an excluded word');
});

test('with embeddings, both rankings are fused: an article with the words and the meaning scores 1, one found by meaning alone is listed too', async (t) => {
  const ws = await createWorkspace(app);
  const refund = await indexed(ws, 'Refund policy', REFUND);
  const shipping = await indexed(ws, 'Shipping times', SHIPPING);
  // Every word in the refund article: first in both rankings.
  const both = await search(ws, 'refund card');
  t.is(both.body[0].article_id, refund.id);
  t.is(both.body[0].score, 1);
  // "xylophone" is in no article, so full text finds nothing; the embedding still relates "parcel" to the shipping article.
  const meaning = await search(ws, 'parcel xylophone');
  t.is(meaning.status, 200);
  t.is(meaning.body[0].article_id, shipping.id);
  t.true(meaning.body[0].score > 0 && meaning.body[0].score <= 1);
});

// ---------------------------------------------------------------- indexing and search

test('an article is cut into chunks, embedded with its title, stored, and marked indexed', async (t) => {
  const ws = await createWorkspace(app);
  const content = Array.from({ length: 6 }, (_, i) => `Section ${i}: ` + 'The warranty covers manufacturing defects for two years. '.repeat(4)).join('\n\n');
  const article = await indexed(ws, 'Warranty terms', content);
  const chunks = await query(app, 'select ordinal, content, model, dims, business_id from kb_chunks where article_id = $1 order by ordinal', [article.id]);
  const expected = chunkText(content);
  t.true(expected.length > 1);
  t.deepEqual(
    chunks.map((c) => c.content),
    expected,
  );
  t.true(chunks.every((c) => c.model === 'nomic-embed-text' && c.dims === FAKE_EMBEDDING_SIZE && c.business_id === ws.businessId));
  const request = ollama.embedRequests.find((r) => r.input.some((i) => i.includes(expected[0]!)));
  t.truthy(request);
  t.is(request!.model, 'nomic-embed-text');
  t.is(request!.input[0], `search_document: Warranty terms\n\n${expected[0]}`);
  const res = await app.request('GET', '/api/v1/kb/articles', { token: ws.token });
  t.is(res.body.find((a: { id: number }) => a.id === article.id).index_status, 'indexed');
});

test('indexing twice replaces the chunks instead of adding to them', async (t) => {
  const ws = await createWorkspace(app);
  const article = await indexed(ws, 'Twice', 'Index me twice and count my chunks.');
  const before = await query(app, 'select id from kb_chunks where article_id = $1', [article.id]);
  await query(app, `select graphile_worker.add_job('index_article', json_build_object('article_id', $1::bigint), job_key => 'article-again:' || $1)`, [
    article.id,
  ]);
  await waitFor(
    async () => (await query(app, `select 1 from graphile_worker.jobs where key = $1`, [`article-again:${article.id}`])).length === 0,
    20_000,
    'second run',
  );
  const after = await query(app, 'select id from kb_chunks where article_id = $1', [article.id]);
  t.is(after.length, before.length);
  t.notDeepEqual(
    after.map((r) => r.id),
    before.map((r) => r.id),
  );
});

test('search ranks the relevant article first, with a snippet and a 0–1 score of four decimals', async (t) => {
  const ws = await createWorkspace(app);
  const refund = await indexed(ws, 'Refund policy', REFUND);
  const password = await indexed(ws, 'Resetting your password', PASSWORD);
  const shipping = await indexed(ws, 'Shipping times', SHIPPING);
  const res = await search(ws, 'How long does a refund for my order take?');
  t.is(res.status, 200);
  t.is(res.body[0].article_id, refund.id);
  t.is(res.body[0].title, 'Refund policy');
  t.true(REFUND.startsWith(res.body[0].snippet.replace(/…$/, '')));
  t.true(res.body[0].snippet.length <= 200);
  for (const r of res.body) {
    t.true(r.score > 0 && r.score <= 1);
    t.is(Math.round(r.score * 10_000) / 10_000, r.score);
  }
  t.true(res.body.every((r: { score: number }, i: number) => i === 0 || r.score <= res.body[i - 1].score));
  const pw = await search(ws, 'forgot my password, reset link');
  t.is(pw.body[0].article_id, password.id);
  const ship = await search(ws, 'when will my parcel ship, tracking');
  t.is(ship.body[0].article_id, shipping.id);
  // Words no article has: nothing at all.
  t.deepEqual((await search(ws, 'xylophone zeppelin')).body, []);
});

test('each article appears once (its best chunk), and limit caps the list', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const long = Array.from({ length: 8 }, (_, i) =>
    `Part ${i}. Battery care: charge the battery fully, keep the battery cool, battery lasts years.`.repeat(3),
  ).join('\n\n');
  const battery = await indexed(ws, 'Battery care', long);
  t.true((await query(app, 'select count(*)::int as n from kb_chunks where article_id = $1', [battery.id]))[0].n > 1);
  for (let i = 0; i < 6; i += 1) await indexed(ws, `Battery note ${i}`, `A battery note number ${i}.`);
  const all = await search(ws, 'battery', 20);
  t.is(all.body.length, 7);
  t.is(new Set(all.body.map((r: { article_id: number }) => r.article_id)).size, 7);
  t.is((await search(ws, 'battery')).body.length, 5, 'default limit 5');
  t.is((await search(ws, 'battery', 2)).body.length, 2);
});

test("search never shows another business's articles", async (t) => {
  const a = await createWorkspace(app);
  const b = await createWorkspace(app);
  const mine = await indexed(a, 'Loyalty points', 'Loyalty points are earned on every purchase and expire after a year.');
  const theirs = await indexed(b, 'Loyalty points', 'Loyalty points are earned on every purchase and expire after a year.');
  const resA = await search(a, 'loyalty points expire', 20);
  t.deepEqual(
    resA.body.map((r: { article_id: number }) => r.article_id),
    [mine.id],
  );
  const resB = await search(b, 'loyalty points expire', 20);
  t.deepEqual(
    resB.body.map((r: { article_id: number }) => r.article_id),
    [theirs.id],
  );
});

test('a deleted article is out of search at once, its chunks gone with it', async (t) => {
  const ws = await createWorkspace(app);
  const article = await indexed(ws, 'Student discount', 'Students get a discount of ten percent with a valid student card.');
  const keep = await indexed(ws, 'Senior discount', 'Seniors get a discount of ten percent too.');
  t.true((await search(ws, 'student discount')).body.some((r: { article_id: number }) => r.article_id === article.id));
  const del = await app.request('DELETE', `/api/v1/kb/articles/${article.id}`, { token: ws.token });
  t.is(del.status, 200);
  const res = await search(ws, 'student discount');
  t.is(res.status, 200);
  t.false(res.body.some((r: { article_id: number }) => r.article_id === article.id));
  t.true(res.body.some((r: { article_id: number }) => r.article_id === keep.id));
  t.is((await query(app, 'select count(*)::int as n from kb_chunks where article_id = $1', [article.id]))[0].n, 0);
});

test('a business with nothing indexed gets [] without asking Ollama', async (t) => {
  const ws = await createWorkspace(app);
  const q = `unindexed-question-${ws.businessId}`;
  const res = await search(ws, q);
  t.is(res.status, 200);
  t.deepEqual(res.body, []);
  t.false(ollama.embedRequests.some((r) => r.input.some((i) => i.includes(q))));
});

test('the query is embedded with the search prefix of the model', async (t) => {
  const ws = await createWorkspace(app);
  await indexed(ws, 'Prefix', 'Prefix check article.');
  const q = `prefix check ${ws.businessId}`;
  await search(ws, q);
  t.true(ollama.embedRequests.some((r) => r.input.length === 1 && r.input[0] === `search_query: ${q}`));
});

test('search validation: q required and not blank, limit 1–20 (422); no business 400; no token 401', async (t) => {
  const ws = await createWorkspace(app);
  const missing = await search(ws);
  t.is(missing.status, 422);
  t.deepEqual(
    missing.body.detail.map((d: { loc: string[]; type: string }) => [d.loc, d.type]),
    [[['query', 'q'], 'missing']],
  );
  const blank = await search(ws, '   ');
  t.is(blank.status, 422);
  t.deepEqual(blank.body.detail[0].loc, ['query', 'q']);
  t.is(blank.body.detail[0].type, 'string_too_short');
  for (const limit of ['21', '0', 'abc', '2.5']) {
    const res = await search(ws, 'refund', limit);
    t.is(res.status, 422, `limit ${limit}`);
    t.deepEqual(res.body.detail[0].loc, ['query', 'limit']);
  }
  t.is((await search(ws, 'refund', 20)).status, 200);
  const loner = await registerUser(app);
  const none = await search(loner, 'refund');
  t.is(none.status, 400);
  t.deepEqual(none.body, { detail: 'Organization not found' });
  const anon = await app.request('GET', '/api/v1/kb/search', { query: { q: 'refund' } });
  t.is(anon.status, 401);
  t.deepEqual(anon.body, { detail: 'Not authenticated' });
});

test('the search route is documented as answering without a model (no 503)', async (t) => {
  const res = await app.request('GET', '/api/v1/openapi.json');
  t.is(res.status, 200);
  const op = res.body.paths['/api/v1/kb/search']?.get;
  t.truthy(op);
  t.falsy(op.responses['503']);
  t.regex(op.description, /full text/);
  t.regex(op.description, /reciprocal rank fusion/);
});
