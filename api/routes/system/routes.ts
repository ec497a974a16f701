/** Liveness, readiness, the OpenAPI document, the docs page and the decisions page. */
import { readFile } from 'node:fs/promises';
import { z } from '../../../core/zod.ts';
import { sql } from '../../../core/adapters/postgres/db.ts';
import { serviceUnavailable } from '../../../core/errors.ts';
import { defineRoute } from '../../route.ts';
import { docsPage } from '../../docs-page.ts';

export const healthz = defineRoute({
  method: 'get',
  path: '/healthz',
  summary: 'Liveness: the process is up',
  tags: ['System'],
  auth: 'none',
  response: z.object({ status: z.literal('ok') }),
  handler: async () => ({ status: 'ok' }),
});

export const readyz = defineRoute({
  method: 'get',
  path: '/readyz',
  summary: 'Readiness: the database is reachable',
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
  tags: ['System'],
  auth: 'none',
  responseContentType: 'text/html',
  response: z.string(),
  handler: async ({ ctx }) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = docsPage;
  },
});

/** The repository's docs/decisions.md, so the links in the OpenAPI document work from a running server too. */
const decisionsFile = new URL('../../../docs/decisions.md', import.meta.url);

export const decisions = defineRoute({
  method: 'get',
  path: '/docs/decisions',
  summary: 'The decisions Parley took where its interface contract was silent (Markdown)',
  description: 'The repository\'s docs/decisions.md as `text/markdown`: what Parley does where its contract is silent or contradictory, by topic.',
  tags: ['System'],
  auth: 'none',
  responseContentType: 'text/markdown',
  response: z.string(),
  handler: async ({ ctx }) => {
    ctx.type = 'text/markdown; charset=utf-8';
    ctx.body = await readFile(decisionsFile, 'utf8');
  },
});

export default [healthz, readyz, docs, decisions];
