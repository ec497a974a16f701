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
import { queryWords } from '../search/highlight.ts';
import { chunkText, type KbMatch } from './search-index.ts';

const row = z.object({ id: z.number(), title: z.string(), content: z.string(), rank: z.number() });

/** The article's passage (a chunk as the semantic index cuts them) holding the most query words; the first on a tie. */
function bestPassage(content: string, words: Set<string>): { ordinal: number; text: string } {
  const chunks = chunkText(content);
  let best = { ordinal: 0, text: chunks[0] ?? content, hits: -1 };
  chunks.forEach((text, ordinal) => {
    const hits = text
      .toLowerCase()
      .split(/[^\p{L}\p{M}\p{N}_]+/u)
      .filter((w) => words.has(w)).length;
    if (hits > best.hits) best = { ordinal, text, hits };
  });
  return best;
}

/**
 * The business's articles containing the words of `text`, best first (ts_rank_cd, scaled to
 * 0–1; ties by article id). `content` of each match is its passage (about 800 characters) with
 * the most query words, as the semantic index would cut it.
 */
export async function textSearchArticles(q: Queryable, businessId: string, text: string, limit: number): Promise<KbMatch[]> {
  const query = sql.fragment`websearch_to_tsquery('simple'::regconfig, ${text})`;
  const rows = await q.any(sql.type(row)`
    select a.id, a.title, a.content, ts_rank_cd(a.search_vector, ${query}, 32)::float8 as rank
    from kb_articles a
    where a.business_id = ${businessId} and a.search_vector @@ ${query}
    order by rank desc, a.id
    limit ${limit}`);
  const words = queryWords(text);
  return rows.map((r) => {
    const passage = bestPassage(r.content, words);
    return { articleId: r.id, title: r.title, ordinal: passage.ordinal, content: passage.text, score: r.rank };
  });
}
