/** The knowledge base: list, create (queued for indexing), delete. Search comes with the index. */
import { z } from '../../../core/zod.ts';
import { sql } from '../../../core/db.ts';
import { notFound } from '../../../core/errors.ts';
import { addJob } from '../../../core/jobs.ts';
import { assertMayAddArticle } from '../../../core/plans.ts';
import { defineRoute } from '../../route.ts';
import { noBusiness, requireMembership } from '../../policies.ts';
import { articleColumns, articleRow, articleSchema, presentArticle } from '../../presenters/article.ts';
import { articleParams, createArticleBody, messageResponse } from './schema.ts';

const tags = ['Knowledge base'];

const articleNotFound = () => notFound('Article not found');

export const listArticles = defineRoute({
  method: 'get',
  path: '/api/v1/kb/articles',
  summary: 'The business\'s knowledge base articles, newest first',
  description: 'Any member may read them. Ties on `created_at` are ordered by id, newest first. Caller without a business: 400 (as for create).',
  tags,
  auth: 'user',
  response: z.array(articleSchema),
  errors: [400],
  handler: async ({ caller, deps }) => {
    const { businessId } = requireMembership(caller, noBusiness.organization);
    const rows = await deps.db.any(sql.type(articleRow)`
      select ${articleColumns}
      from kb_articles a join businesses b on b.id = a.business_id
      where a.business_id = ${businessId}
      order by a.created_at desc, a.id desc`);
    return rows.map(presentArticle);
  },
});

export const createArticle = defineRoute({
  method: 'post',
  path: '/api/v1/kb/articles',
  summary: 'Add a knowledge base article',
  description:
    'Any member may add articles. `title` 1–200 and `content` 1–100,000 characters (both trimmed); `tags` at most 20 of 1–50 characters, ' +
    'duplicates dropped, default `[]`. The plan\'s article count reached: 402 `limit_exceeded`/`kb_articles`. ' +
    'The row and its `index_article` job (key `article:<id>`) are written in one transaction; the article starts with `index_status` `pending`. ' +
    'If indexing fails the article stays saved (`failed`) and can be recreated to retry. Caller without a business: 400.',
  tags,
  auth: 'user',
  body: createArticleBody,
  response: articleSchema,
  errors: [400, 402],
  handler: async ({ body, caller, deps }) => {
    const { businessId } = requireMembership(caller, noBusiness.organization);
    const row = await deps.db.transaction(async (tx) => {
      await assertMayAddArticle(tx, businessId);
      const { id } = await tx.one(sql.type(z.object({ id: z.number() }))`
        insert into kb_articles (business_id, title, content, tags, created_by)
        values (${businessId}, ${body.title}, ${body.content}, ${sql.array(body.tags, 'text')}, ${caller.userId})
        returning id`);
      await addJob(tx, 'index_article', { article_id: id }, { jobKey: `article:${id}` });
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
    'an indexing job not yet started is dropped. Unknown id or another business\'s article: 404. Non-integer id: 422.',
  tags,
  auth: 'user',
  params: articleParams,
  response: messageResponse,
  errors: [404],
  handler: async ({ params, caller, deps }) => {
    // Deleting answers 404 for a caller without a business: there is no article of theirs to find.
    const { businessId } = requireMembership(caller, articleNotFound);
    const deleted = await deps.db.transaction(async (tx) => {
      const row = await tx.maybeOne(sql.type(z.object({ id: z.number() }))`
        delete from kb_articles where id = ${params.article_id} and business_id = ${businessId} returning id`);
      if (row) await tx.query(sql.unsafe`select graphile_worker.remove_job(${`article:${row.id}`})`);
      return row !== null;
    });
    if (!deleted) throw articleNotFound();
    return { message: 'Article deleted' };
  },
});

export default [listArticles, createArticle, deleteArticle];
