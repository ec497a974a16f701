/** The knowledge base: list, create (queued for indexing), delete, search (full text, fused with semantic search when embeddings are available). */
import { z } from '../../../lib/zod.ts';
import { sql } from '../../../core/adapters/postgres/db.ts';
import { notFound } from '../../../core/errors.ts';
import { addKbArticle, deleteKbArticle } from '../../../core/commands/articles.ts';
import { hybridSearch } from '../../../core/domain/knowledge-base/hybrid-search.ts';
import { defineRoute } from '../../route.ts';
import { articleColumns, articleRow, articleSchema, presentArticle } from '../../presenters/article.ts';
import { articleParams, createArticleBody, listArticlesQuery, messageResponse, searchQuery, searchResult } from './schema.ts';
import { cursorColumn, encodeCursor, keysetPage } from '../../cursor.ts';
import { runCommand } from '../../../core/commands/run-command.ts';

const tags = ['Knowledge base'];

const articleNotFound = () => notFound('Article not found');

export const listArticles = defineRoute({
  method: 'get',
  path: '/api/v1/kb/articles',
  summary: "The business's knowledge base articles, newest first",
  description:
    'Any member may read them. Ties on `created_at` are ordered by id, newest first. `limit` 1–200 (default 50); when more exist, the ' +
    '`X-Next-Cursor` response header holds the value to pass as `cursor` for the next page. Caller without a business: 400 (as for create). ' +
    'See docs/decisions.md#knowledge-base-and-ai.',
  tags,
  auth: 'user',
  policy: 'kb.read',
  query: listArticlesQuery,
  response: z.array(articleSchema),
  errors: [400],
  handler: async ({ member, deps, query, ctx }) => {
    const { businessId } = member;
    const rows = await deps.db.any(sql.type(articleRow.extend({ cursor_at: z.string(), cursor_id: z.string() }))`
      select ${articleColumns}, ${cursorColumn(sql.fragment`a.created_at`)} as cursor_at, a.id::text as cursor_id
      from kb_articles a join businesses b on b.id = a.business_id
      where a.business_id = ${businessId}
        ${query.cursor ? sql.fragment`and (a.created_at, a.id) < (${query.cursor.at}::timestamptz, ${query.cursor.id}::bigint)` : sql.fragment``}
      order by a.created_at desc, a.id desc
      limit ${query.limit + 1}`);
    const page = keysetPage(ctx, rows, query.limit, (last) => encodeCursor({ at: last.cursor_at, id: last.cursor_id }));
    return page.map(presentArticle);
  },
});

export const createArticle = defineRoute({
  method: 'post',
  path: '/api/v1/kb/articles',
  summary: 'Add a knowledge base article',
  description:
    'Any member may add articles. `title` 1–200 and `content` 1–100,000 characters (both trimmed); `tags` at most 20 of 1–50 characters, ' +
    "duplicates dropped, default `[]`. The plan's article count reached: 402 `limit_exceeded`/`kb_articles`. " +
    'The row and its `index_article` job (key `article:<id>`) are written in one transaction; the article starts with `index_status` `pending`. ' +
    'Indexing is retried while Ollama is unreachable or failing (5xx), up to 8 attempts over about half an hour; a refusal (e.g. the embedding ' +
    'model is not installed) fails at once. If indexing fails the article stays saved (`failed`) and can be recreated to retry. Caller without a business: 400. See docs/decisions.md#knowledge-base-and-ai.',
  tags,
  auth: 'user',
  policy: 'kb.write',
  body: createArticleBody,
  response: articleSchema,
  errors: [400, 402],
  handler: async ({ body, caller, member, deps }) => {
    const { businessId } = member;
    const row = await runCommand(deps, async (tx) => {
      const id = await addKbArticle(tx, { businessId, title: body.title, content: body.content, tags: body.tags, createdBy: caller.userId });
      return tx.one(sql.type(articleRow)`
        select ${articleColumns} from kb_articles a join businesses b on b.id = a.business_id where a.id = ${id}`);
    });
    return presentArticle(row);
  },
});

export const deleteArticle = defineRoute({
  method: 'delete',
  path: '/api/v1/kb/articles/:article_id',
  summary: 'Delete a knowledge base article',
  description:
    'Any member may delete. Removal is permanent and takes the article out of search at once (its index rows go with it); ' +
    "an indexing job not yet started is dropped. Unknown id or another business's article: 404. Non-integer id: 422. See docs/decisions.md#knowledge-base-and-ai.",
  tags,
  auth: 'user',
  policy: 'kb.delete',
  params: articleParams,
  response: messageResponse,
  errors: [404],
  handler: async ({ params, member, deps }) => {
    const { businessId } = member;
    const { deleted } = await runCommand(deps, async (tx) => ({ deleted: await deleteKbArticle(tx, { businessId, articleId: params.article_id }) }));
    if (!deleted) throw articleNotFound();
    return { message: 'Article deleted' };
  },
});

/** Whitespace collapsed, at most `max` characters, cut at a word when there is one. */
function snippetOf(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** How long a search waits for the query's embedding before answering with the full-text ranking alone. */
const SEARCH_EMBED_TIMEOUT_MS = 5_000;

export const searchArticles = defineRoute({
  method: 'get',
  path: '/api/v1/kb/search',
  summary: "Search the business's knowledge base (full text, fused with semantic search when embeddings are available)",
  description:
    'Any member may search. Always answers, with or without a model: the articles whose title or text contains every word of `q` (full text in any language, ' +
    'words compared as written; `"a phrase"`, `or`, `-word` as in a search box), ranked by how often and how close together they appear, title above body; ' +
    'every saved article is found this way at once, whether or not it is indexed for embeddings. When the configured Ollama embedding model answers and ' +
    'articles are indexed, the query is also compared with every indexed passage (chunks of about 800 characters) and the two rankings are fused by ' +
    'reciprocal rank fusion, so an article found by meaning without the exact words is listed too. When Ollama cannot be reached (or does not answer within ' +
    '5 seconds) the full-text ranking is the answer. Each article appears once, with its best passage as `snippet` (about 200 characters), best first (ties by article id); ' +
    '`score` is the fused rank score scaled to 0–1 (1: first in every ranking that answered). The list may be shorter than `limit` (1–20, default 5) or empty. ' +
    'A deleted article disappears from the results at once. `q` missing or blank: 422. Caller without a business: 400. See docs/decisions.md#knowledge-base-and-ai.',
  tags,
  auth: 'user',
  policy: 'kb.read',
  query: searchQuery,
  response: z.array(searchResult),
  errors: [400],
  handler: async ({ query, member, deps }) => {
    const { matches } = await hybridSearch(deps.db, deps.config, deps.logger, member.businessId, query.q, {
      limit: query.limit,
      perArticle: true,
      timeoutMs: SEARCH_EMBED_TIMEOUT_MS,
    });
    return matches.map((m) => ({ article_id: m.articleId, title: m.title, snippet: snippetOf(m.content), score: Math.round(m.score * 10_000) / 10_000 }));
  },
});

export default [listArticles, createArticle, deleteArticle, searchArticles];
