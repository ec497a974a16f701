/**
 * Knowledge-base search as everyone uses it (GET /api/v1/kb/search and the AI agent): the
 * full-text ranking always, fused with the semantic ranking when embeddings can be had, by
 * reciprocal rank fusion (each article scores Σ 1/(60 + its rank in each list); ranks, not raw
 * scores, are combined, because a cosine and a ts_rank are not comparable). When Ollama cannot
 * be reached, or nothing is embedded yet, the answer is the full-text ranking alone: search
 * never fails for want of a model.
 */
import type { Logger } from '../../adapters/logger.ts';
import type { Queryable } from '../../adapters/postgres/db.ts';
import { OllamaError } from '../../adapters/ollama.ts';
import { searchKnowledgeBase, type KbMatch } from './search-index.ts';
import { textSearchArticles } from './text-search.ts';

/** RRF's constant: 60 as in Cormack, Clarke and Büttcher (2009); it damps the weight of the very top ranks. */
export const RRF_K = 60;

export type HybridOptions = {
  /** Most matches returned. */
  limit: number;
  /** One match per article (search results), or each article's semantic passages (the AI agent's context). */
  perArticle: boolean;
  /** Lowest cosine similarity a semantic passage needs (default: anything above 0); full-text matches need all the words instead. */
  minScore?: number;
  /** Timeout of the query's embedding request, ms. */
  timeoutMs?: number;
};

/**
 * `score` of each match: its fused RRF score scaled to 0–1, 1 being first in every ranking that
 * answered. `semanticError`: why the semantic ranking is missing (Ollama failed), else null.
 */
export type HybridResult = { matches: KbMatch[]; semanticError: OllamaError | null };

/** How many of each ranking are fused: enough that an article second-rate in one list can still rise. */
const CANDIDATES = 20;

export async function hybridSearch(
  q: Queryable,
  config: Parameters<typeof searchKnowledgeBase>[1],
  logger: Pick<Logger, 'warn'>,
  businessId: string,
  text: string,
  options: HybridOptions,
): Promise<HybridResult> {
  const textual = await textSearchArticles(q, businessId, text, Math.max(CANDIDATES, options.limit));
  let semantic: KbMatch[] = [];
  let semanticError: OllamaError | null = null;
  try {
    semantic = await searchKnowledgeBase(q, config, businessId, text, {
      limit: Math.max(CANDIDATES, options.limit) * (options.perArticle ? 1 : 4),
      perArticle: false,
      minScore: options.minScore,
      timeoutMs: options.timeoutMs,
    });
  } catch (error) {
    if (!(error instanceof OllamaError)) throw error;
    logger.warn({ error: error.message }, 'knowledge base search: embeddings unavailable, full-text ranking only');
    semanticError = error;
  }
  return { matches: fuse(textual, semantic, options), semanticError };
}

/**
 * Fuses the article ranking of full text with the passage ranking of embeddings (an article's
 * semantic rank is that of its best passage). Each fused article brings its semantic passages,
 * best first (or only the best with `perArticle`), else its full-text excerpt.
 */
export function fuse(textual: KbMatch[], semantic: KbMatch[], options: Pick<HybridOptions, 'limit' | 'perArticle'>): KbMatch[] {
  const scores = new Map<number, number>();
  const add = (articleId: number, rank: number) => scores.set(articleId, (scores.get(articleId) ?? 0) + 1 / (RRF_K + rank));
  textual.forEach((m, i) => add(m.articleId, i + 1));
  const passages = new Map<number, KbMatch[]>();
  for (const m of semantic) {
    const list = passages.get(m.articleId);
    if (list) list.push(m);
    else {
      passages.set(m.articleId, [m]);
      add(m.articleId, passages.size);
    }
  }
  const lists = (textual.length > 0 ? 1 : 0) + (semantic.length > 0 ? 1 : 0);
  const best = lists / (RRF_K + 1);
  const excerpts = new Map(textual.map((m) => [m.articleId, m]));
  const order = [...scores.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const out: KbMatch[] = [];
  for (const [articleId, score] of order) {
    const scaled = Math.min(1, score / best);
    const own = passages.get(articleId) ?? [excerpts.get(articleId)!];
    for (const m of options.perArticle ? own.slice(0, 1) : own) {
      if (out.length >= options.limit) return out;
      out.push({ ...m, score: scaled });
    }
  }
  return out;
}
