/**
 * The knowledge base's full-text side: articles ranked by their words, with no model at all,
 * so search answers on a fresh `npm start` where Ollama is unreachable. Same engine as the
 * history search (core/domain/search/): `simple` configuration (any language, words as written),
 * `websearch_to_tsquery` (every word must appear; "phrases", `or`, `-word`), a GIN index on
 * (business_id, search_vector) with the title weighted above the body (sql/migrations/0070_search.sql).
 * Every saved article is searchable at once, indexed for embeddings or not.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../../adapters/postgres/db.ts';
import type { KbMatch } from './search-index.ts';

const START = '\uE000';
const STOP = '\uE001';
/** The passages around the matches, about 100 words in up to three fragments (the model's context, the result's snippet). */
const EXCERPT_OPTIONS = `StartSel=${START}, StopSel=${STOP}, MaxWords=40, MinWords=20, MaxFragments=3, FragmentDelimiter=" … "`;

const row = z.object({ id: z.number(), title: z.string(), excerpt: z.string(), rank: z.number() });

/**
 * The business's articles containing the words of `text`, best first (ts_rank_cd, scaled to
 * 0–1; ties by article id). `content` of each match is its matching passages as plain text;
 * `ordinal` is -1 (not a chunk of the semantic index).
 */
export async function textSearchArticles(q: Queryable, businessId: string, text: string, limit: number): Promise<KbMatch[]> {
  const query = sql.fragment`websearch_to_tsquery('simple'::regconfig, ${text})`;
  const rows = await q.any(sql.type(row)`
    select p.id, p.title, p.rank,
           ts_headline('simple'::regconfig, translate(p.content, ${START + STOP}, ''), ${query}, ${EXCERPT_OPTIONS}) as excerpt
    from (
      select a.id, a.title, a.content, ts_rank_cd(a.search_vector, ${query}, 32)::float8 as rank
      from kb_articles a
      where a.business_id = ${businessId} and a.search_vector @@ ${query}
      order by rank desc, a.id
      limit ${limit}
    ) p
    order by p.rank desc, p.id`);
  return rows.map((r) => ({
    articleId: r.id,
    title: r.title,
    ordinal: -1,
    content: r.excerpt.replaceAll(START, '').replaceAll(STOP, '').replace(/\s+/g, ' ').trim(),
    score: r.rank,
  }));
}
