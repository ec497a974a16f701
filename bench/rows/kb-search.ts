/**
 * Knowledge-base search: 1,000 articles (about 1,200 characters each) created through the API
 * and indexed by the worker with the fake Ollama's embeddings, then `GET /api/v1/kb/search`
 * one request at a time. Baseline: `GET /api/v1/auth/me` on the same process (an authenticated
 * request reading one row: the floor of any read). Goal: p50 ≤ 20 ms.
 */
import { api, createWorkspace } from '../harness/fixtures.ts';
import { closedLoop, describeFailures, type LoadResult, type Request } from '../harness/http-load.ts';
import { size, type Row } from '../harness/row.ts';
import { percentile, waitUntil } from '../harness/stats.ts';
import { result } from '../harness/table.ts';

const TOPICS = [
  'refund',
  'shipping',
  'invoice',
  'password',
  'warranty',
  'subscription',
  'delivery',
  'account',
  'coupon',
  'return',
  'exchange',
  'tracking',
  'payment',
  'privacy',
  'battery',
  'charger',
  'screen',
  'installation',
  'cancellation',
  'upgrade',
];
const WORDS =
  'order customer parcel label courier address country express standard days week month price receipt card bank transfer store online app email phone chat hours weekend holiday stock size colour model serial number box manual cable adapter repair replacement damaged missing late early fee free discount code plan annual monthly trial login reset link device browser cookie data export delete profile settings notification language currency tax vat'.split(
    ' ',
  );

/** A deterministic article about topic `i % 20` of about 1,200 characters in a few paragraphs. */
function article(i: number): { title: string; content: string } {
  let seed = i * 7919 + 17;
  const word = () => WORDS[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % WORDS.length]!;
  const topic = TOPICS[i % TOPICS.length]!;
  const paragraph = () => Array.from({ length: 40 }, (_, k) => (k % 9 === 0 ? topic : word())).join(' ') + '.';
  return { title: `${topic} guide ${i}`, content: [paragraph(), paragraph(), paragraph(), paragraph()].join('\n\n') };
}

export const kbSearch: Row = {
  id: 'kb-search',
  run: async (stack) => {
    const articles = size(stack, 1000, 100);
    const runs = size(stack, 100, 20);
    const { web, worker } = await stack.startWebAndWorker('kb');
    let search: LoadResult;
    let floor: LoadResult;
    try {
      const workspace = await createWorkspace(stack, web, { channels: 0 });
      const body = (i: number) => ({
        method: 'POST',
        path: '/api/v1/kb/articles',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${workspace.token}` },
        body: JSON.stringify(article(i)),
      });
      const created = await closedLoop(web.url, { concurrency: 4, count: articles, maxMs: 600_000, make: body });
      if (created.ok !== articles) throw new Error(`created ${created.ok} of ${articles} articles: ${describeFailures(created.failures)}`);
      await waitUntil(
        async () => {
          const { rows } = await stack.pool.query<{ n: number }>(
            `select count(*)::int as n from kb_articles where business_id = $1 and index_status <> 'pending'`,
            [workspace.businessId],
          );
          return rows[0]!.n >= articles;
        },
        900_000,
        `${articles} articles indexed`,
        200,
      );
      const get = (path: string): Request => ({ method: 'GET', path, headers: { authorization: `Bearer ${workspace.token}` } });
      const queries = ['how do I get a refund for a damaged parcel', 'reset my password link', 'shipping to another country', 'cancel my annual plan'];
      await api(web, 'GET', `/api/v1/kb/search?q=${encodeURIComponent(queries[0]!)}`, { token: workspace.token });
      const sequential = (make: (i: number) => Request) => closedLoop(web.url, { concurrency: 1, count: runs, maxMs: 300_000, make });
      await sequential((i) => get(`/api/v1/kb/search?q=${encodeURIComponent(queries[i % queries.length]!)}`));
      search = await sequential((i) => get(`/api/v1/kb/search?q=${encodeURIComponent(queries[i % queries.length]!)}`));
      floor = await sequential(() => get('/api/v1/auth/me'));
    } finally {
      await worker.stop();
      await web.child.stop();
    }
    return [
      result(
        {
          name: `knowledge-base search, ${articles} articles: p50`,
          figure: percentile(search.latencies, 50),
          unit: 'ms',
          baseline: percentile(floor.latencies, 50),
          baselineLabel: 'GET /auth/me',
          goal: { text: '≤ 20 ms', met: (r) => r.figure <= 20 && search.ok === runs },
          note: [
            `${runs} searches one at a time (after as many to warm up), p99 ${percentile(search.latencies, 99).toFixed(1)} ms`,
            describeFailures(search.failures),
          ]
            .filter(Boolean)
            .join('; '),
        },
        !stack.quick,
      ),
    ];
  },
};
