/**
 * Knowledge base articles: add one (queued for indexing), delete one (out of search at once).
 * Each runs in the caller's transaction. Lock order: the business row (the plan's article
 * count), then the business's kb_index_versions row, last (bumpIndexVersion).
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { enqueue } from '../jobs.ts';
import { bumpIndexVersion } from '../domain/knowledge-base/vector-cache.ts';
import { assertMayAddArticle } from '../domain/plans.ts';

export type AddKbArticleInput = {
  businessId: string;
  /** 1–200 characters, trimmed (checked by the route). */
  title: string;
  /** 1–100,000 characters, trimmed (checked by the route). */
  content: string;
  /** At most 20, without duplicates (checked by the route). */
  tags: string[];
  /** The member adding it (user id). */
  createdBy: string;
};

/**
 * Stores the article `pending` and enqueues its `index_article` job (key `article:<id>`), so the
 * job exists exactly when the row does; returns its id. 402 limit_exceeded/kb_articles when the
 * plan's article count is reached.
 */
export async function addKbArticle(tx: Queryable, input: AddKbArticleInput): Promise<number> {
  await assertMayAddArticle(tx, input.businessId);
  const { id } = await tx.one(sql.type(z.object({ id: z.number() }))`
    insert into kb_articles (business_id, title, content, tags, created_by)
    values (${input.businessId}, ${input.title}, ${input.content}, ${sql.array(input.tags, 'text')}, ${input.createdBy})
    returning id`);
  await enqueue(tx, 'index_article', { article_id: id });
  return id;
}

/**
 * Deletes the article (its index rows go with it), drops an indexing job not yet started and
 * marks the business's index changed, so searches stop finding it at once. False when the
 * article is not the business's.
 */
export async function deleteKbArticle(tx: Queryable, input: { businessId: string; articleId: number }): Promise<boolean> {
  const row = await tx.maybeOne(sql.type(z.object({ id: z.number() }))`
    delete from kb_articles where id = ${input.articleId} and business_id = ${input.businessId} returning id`);
  if (!row) return false;
  await tx.query(sql.unsafe`select graphile_worker.remove_job(${`article:${row.id}`})`);
  // Last, so the business's version row stays locked for one statement; commits with the delete.
  await bumpIndexVersion(tx, input.businessId);
  return true;
}
