/** Liveness, readiness, the docs page and the decisions page. */
import { readFile } from 'node:fs/promises';
import { z } from '../../../lib/zod.ts';
import { sql } from '../../../core/adapters/postgres/db.ts';
import { serviceUnavailable } from '../../../core/errors.ts';
import { defineRoute } from '../../route.ts';
import { docsContentSecurityPolicy, docsPage } from '../../docs-page.ts';
import { etagOf, sendTagged } from '../../http-cache.ts';
import { buildOnce } from '../../build-once.ts';

export const healthz = defineRoute({
  method: 'get',
  path: '/healthz',
  summary: 'Liveness: the process is up',
  description:
    'For a liveness probe (restart the process when it stops answering). Answers 200 `{"status":"ok"}` as long as the process ' +
    'serves HTTP, without touching PostgreSQL or Redis: a database outage, which a restart would not fix, does not fail it.',
  tags: ['System'],
  auth: 'none',
  response: z.object({ status: z.literal('ok') }),
  handler: async () => ({ status: 'ok' }),
});

export const readyz = defineRoute({
  method: 'get',
  path: '/readyz',
  summary: 'Readiness: the database is reachable',
  description:
    "For a readiness probe or a load balancer's health check (send this process traffic only while it answers 200; " +
    'docker-compose\'s `web` health check is this). Runs `select 1` on PostgreSQL: 200 `{"status":"ready"}` when it answers, ' +
    '503 `{"detail":"Database unreachable"}` when it refuses or does not answer within `DB_TIMEOUT` seconds (default 5), ' +
    'without `Retry-After` (a prober asks again on its own schedule). Redis is not checked: REST answers without it.',
  tags: ['System'],
  auth: 'none',
  response: z.object({ status: z.literal('ready') }),
  errors: [503],
  handler: async ({ deps }) => {
    try {
      await deps.db.oneFirst(sql.type(z.object({ ok: z.number() }))`select 1 as ok`);
    } catch {
      throw serviceUnavailable('Database unreachable');
    }
    return { status: 'ready' };
  },
});

export const docs = defineRoute({
  method: 'get',
  path: '/docs',
  summary: 'Readable API documentation (HTML)',
  description:
    'For people: a self-contained page (no CDN) that loads `/api/v1/openapi.json` and lists every operation by tag with ' +
    'its parameters, body and responses; each `docs/decisions.md#…` a description names links to that topic of `/docs/decisions`. ' +
    'Tools should read the OpenAPI document.',
  tags: ['System'],
  auth: 'none',
  responseContentType: 'text/html',
  response: z.string(),
  handler: async ({ ctx }) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Content-Security-Policy', docsContentSecurityPolicy);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = docsPage;
  },
});

/** The repository's docs/decisions.md, so the links in the OpenAPI document work from a running server too. */
const decisionsFile = new URL('../../../docs/decisions.md', import.meta.url);

type Representation = { body: string; etag: string };
type Decisions = { markdown: Representation; html: Representation & { contentSecurityPolicy: string } };

/**
 * Read and rendered on the first request and kept for the life of the process (the file is part
 * of the release). markdown-it is imported only then, so a process nobody asks for the page
 * never loads it. A failed read is tried again by the next request.
 */
const loadDecisions = buildOnce(
  async (): Promise<Decisions> => {
    const [source, page] = await Promise.all([readFile(decisionsFile, 'utf8'), import('../../decisions-page.ts')]);
    const html = page.decisionsPage(source);
    return {
      markdown: { body: source, etag: etagOf(source) },
      html: { body: html, etag: etagOf(html), contentSecurityPolicy: page.decisionsContentSecurityPolicy },
    };
  },
  'the decisions page',
  'The decisions page is not available right now',
);

export const decisions = defineRoute({
  method: 'get',
  path: '/docs/decisions',
  summary: 'The decisions Parley took where its interface contract was silent (HTML or Markdown)',
  description:
    "The repository's docs/decisions.md: what Parley does where its contract is silent or contradictory, by topic. " +
    'A browser (and any client that does not ask otherwise) gets a `text/html` page whose headings carry the ids that the ' +
    "`docs/decisions.md#…` links of this document name (GitHub's heading anchors), so `/docs/decisions#errors-and-validation` " +
    'opens at that topic. `Accept: text/markdown` gets the Markdown source. Both carry an `ETag` and `Cache-Control: no-cache` ' +
    '(a matching `If-None-Match` is 304) and `Vary: Accept`.',
  tags: ['System'],
  auth: 'none',
  responseContentType: ['text/html', 'text/markdown'],
  errors: [503],
  response: z.string(),
  handler: async ({ ctx, deps }) => {
    const page = await loadDecisions(deps.logger);
    const wantsMarkdown = ctx.accepts('text/html', 'text/markdown') === 'text/markdown';
    const { body, etag } = wantsMarkdown ? page.markdown : page.html;
    ctx.vary('Accept');
    ctx.set('Cache-Control', 'no-cache');
    if (wantsMarkdown) ctx.type = 'text/markdown; charset=utf-8';
    else {
      ctx.type = 'text/html; charset=utf-8';
      ctx.set('Content-Security-Policy', page.html.contentSecurityPolicy);
    }
    sendTagged(ctx, body, etag);
  },
});

export default [healthz, readyz, docs, decisions];
