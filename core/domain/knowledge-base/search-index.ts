/**
 * The knowledge base's semantic index: articles are cut into overlapping chunks, each chunk is
 * embedded by Ollama and stored in `kb_chunks` with its vector; a search embeds the question
 * and ranks the business's chunks by cosine similarity.
 *
 * Ranking happens here, in JavaScript, not in SQL: without pgvector, PostgreSQL multiplies two
 * `real[]` through `unnest` at about 2.7 s per 5,000 chunks of 768 dimensions, while reading
 * the same chunks as `bytea` and multiplying them here takes about 0.2 s (measured on
 * PostgreSQL 15). So vectors are stored as little-endian float32 `bytea`, normalised to unit
 * length (the cosine is then a dot product), and only the rows of one business and one
 * embedding model are ever read, and kept decoded between searches (core/domain/knowledge-base/vector-cache.ts).
 */
import { z } from 'zod';
import { sql, type Db, type Queryable } from '../../adapters/postgres/db.ts';
import { bumpIndexVersion, businessVectors, decodeVector, type ChunkVector } from './vector-cache.ts';
import { embed, type OllamaConfig } from '../../adapters/ollama.ts';
import type { Config } from '../../config.ts';

/** Characters per chunk (about 200 tokens): small enough to be one topic, large enough to answer from. */
export const CHUNK_SIZE = 800;
/** Characters repeated from the end of one chunk at the start of the next, so no sentence is only ever seen cut in half. */
export const CHUNK_OVERLAP = 150;
/** Chunks per embedding request. */
const EMBED_BATCH = 16;

/** Greedily joins units into pieces of at most `size` characters. */
function pack(units: string[], size: number, separator: string): string[] {
  const out: string[] = [];
  let current = '';
  for (const unit of units) {
    if (current && current.length + separator.length + unit.length > size) {
      out.push(current);
      current = '';
    }
    current = current ? current + separator + unit : unit;
  }
  if (current) out.push(current);
  return out;
}

/** A paragraph longer than `size`, cut by sentences, then words, then characters. */
function splitLong(text: string, size: number): string[] {
  const sentences = text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);
  const units = sentences.flatMap((sentence) => {
    if (sentence.length <= size) return [sentence];
    const words = sentence.split(/\s+/).flatMap((word) => {
      if (word.length <= size) return [word];
      const slices: string[] = [];
      for (let i = 0; i < word.length; i += size) slices.push(word.slice(i, i + size));
      return slices;
    });
    return pack(words, size, ' ');
  });
  return pack(units, size, ' ');
}

/** The end of a chunk, starting at a word, at most `overlap` characters. */
function tailOf(chunk: string, overlap: number): string {
  if (overlap <= 0 || chunk.length <= overlap) return '';
  const tail = chunk.slice(-overlap);
  const start = tail.search(/\s/);
  return start < 0 ? '' : tail.slice(start).trim();
}

/**
 * Cuts an article's text into chunks of at most `size` characters along paragraphs (long
 * paragraphs along sentences), each after the first starting with the last ~`overlap`
 * characters of the one before.
 */
export function chunkText(text: string, size = CHUNK_SIZE, overlap = CHUNK_OVERLAP): string[] {
  const units = text
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .flatMap((p) => (p.length <= size ? [p] : splitLong(p, size)));
  const chunks: string[] = [];
  let current = '';
  for (const unit of units) {
    if (current && current.length + 2 + unit.length > size) {
      chunks.push(current);
      const tail = tailOf(current, overlap);
      current = tail && tail.length + 2 + unit.length <= size ? tail : '';
    }
    current = current ? `${current}\n\n${unit}` : unit;
  }
  if (current) chunks.push(current);
  return chunks;
}

/**
 * nomic-embed-text is trained with task prefixes and ranks noticeably worse without them;
 * other models take the text as it is.
 */
export function embeddingInput(model: string, kind: 'document' | 'query', text: string): string {
  if (!model.startsWith('nomic-embed-text')) return text;
  return `${kind === 'document' ? 'search_document' : 'search_query'}: ${text}`;
}

/** Unit-length float32, little-endian: the stored form of a vector. A zero vector stays zero (it matches nothing). */
export function encodeVector(values: ArrayLike<number>): Buffer {
  let norm = 0;
  for (let i = 0; i < values.length; i += 1) norm += values[i]! * values[i]!;
  norm = Math.sqrt(norm) || 1;
  const buffer = Buffer.alloc(values.length * 4);
  for (let i = 0; i < values.length; i += 1) buffer.writeFloatLE(values[i]! / norm, i * 4);
  return buffer;
}

const articleRow = z.object({ id: z.number(), business_id: z.string(), title: z.string(), content: z.string() });

export type IndexResult = { status: 'indexed'; chunks: number } | { status: 'gone' };

/**
 * Embeds an article and replaces its chunks in one transaction, then marks it `indexed`. Safe
 * to run twice. Throws OllamaError when Ollama fails (nothing is written then); `gone` when the
 * article was deleted meanwhile.
 */
export async function indexArticle(db: Db, config: OllamaConfig, articleId: number): Promise<IndexResult> {
  const article = await db.maybeOne(sql.type(articleRow)`select id, business_id, title, content from kb_articles where id = ${articleId}`);
  if (!article) return { status: 'gone' };
  const chunks = chunkText(article.content);
  const model = config.OLLAMA_EMBED_MODEL;
  const vectors: number[][] = [];
  for (let i = 0; i < chunks.length; i += EMBED_BATCH) {
    // The title travels with every chunk: a chunk in the middle of an article rarely names its topic.
    const inputs = chunks.slice(i, i + EMBED_BATCH).map((chunk) => embeddingInput(model, 'document', `${article.title}\n\n${chunk}`));
    vectors.push(...(await embed(config, inputs)));
  }
  return db.transaction(async (tx) => {
    const present = await tx.exists(sql.unsafe`select 1 from kb_articles where id = ${articleId} for update`);
    if (!present) return { status: 'gone' } as const;
    await tx.query(sql.unsafe`delete from kb_chunks where article_id = ${articleId}`);
    for (const [ordinal, content] of chunks.entries()) {
      const vector = vectors[ordinal]!;
      await tx.query(sql.unsafe`
        insert into kb_chunks (article_id, business_id, ordinal, content, model, dims, embedding)
        values (${articleId}, ${article.business_id}, ${ordinal}, ${content}, ${model}, ${vector.length}, ${sql.binary(encodeVector(vector))})`);
    }
    await tx.query(sql.unsafe`update kb_articles set index_status = 'indexed', index_error = null where id = ${articleId}`);
    await bumpIndexVersion(tx, article.business_id);
    return { status: 'indexed', chunks: chunks.length } as const;
  });
}

/** Marks an article `failed` with the reason, unless an earlier run already indexed it. */
export async function markIndexFailed(q: Queryable, articleId: number, reason: string): Promise<void> {
  await q.query(sql.unsafe`
    update kb_articles set index_status = 'failed', index_error = ${reason.slice(0, 1000)}
    where id = ${articleId} and index_status <> 'indexed'`);
}

/** One ranked chunk. `score` is the cosine similarity, 0–1 (negative similarities never rank). */
export type KbMatch = { articleId: number; title: string; ordinal: number; content: string; score: number };

export type SearchOptions = {
  /** Most matches returned. */
  limit: number;
  /** Keep only each article's best chunk (search results) or every chunk (the AI agent's context). */
  perArticle: boolean;
  /** Lowest score kept (default: anything above 0). */
  minScore?: number;
  /** Timeout of the query's embedding request, ms. */
  timeoutMs?: number;
};

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += a[i]! * b[i]!;
  return sum;
}

/** Ranks one business's chunks against a query vector (chunks of other dimensions never compare). */
async function rankChunks(q: Queryable, businessId: string, chunks: ChunkVector[], query: Float32Array, options: SearchOptions): Promise<KbMatch[]> {
  const minScore = options.minScore ?? 0;
  let hits = chunks
    .filter((chunk) => chunk.vector.length === query.length)
    .map((chunk) => ({ id: chunk.id, articleId: chunk.articleId, ordinal: chunk.ordinal, score: Math.min(1, dot(query, chunk.vector)) }))
    .filter((hit) => hit.score > 0 && hit.score >= minScore)
    .sort((a, b) => b.score - a.score || a.articleId - b.articleId || a.ordinal - b.ordinal);
  if (options.perArticle) {
    const seen = new Set<number>();
    hits = hits.filter((hit) => !seen.has(hit.articleId) && seen.add(hit.articleId));
  }
  hits = hits.slice(0, options.limit);
  if (hits.length === 0) return [];
  const texts = await q.any(sql.type(z.object({ id: z.number(), title: z.string(), content: z.string() }))`
    select c.id, a.title, c.content from kb_chunks c join kb_articles a on a.id = c.article_id
    where c.id = any(${sql.array(
      hits.map((h) => h.id),
      'int8',
    )}) and c.business_id = ${businessId}`);
  const byId = new Map(texts.map((t) => [t.id, t]));
  // A chunk deleted since the vectors were read (its article was deleted or re-indexed) is dropped.
  return hits.flatMap((hit) => {
    const text = byId.get(hit.id);
    return text ? [{ articleId: hit.articleId, title: text.title, ordinal: hit.ordinal, content: text.content, score: hit.score }] : [];
  });
}

/**
 * Searches one business's knowledge base for `text`. A business with nothing indexed gets []
 * without asking Ollama; otherwise an Ollama failure is thrown as OllamaError.
 */
export async function searchKnowledgeBase(
  q: Queryable,
  config: OllamaConfig & Pick<Config, 'KB_SEARCH_CACHE_MIB'>,
  businessId: string,
  text: string,
  options: SearchOptions,
): Promise<KbMatch[]> {
  const model = config.OLLAMA_EMBED_MODEL;
  const chunks = await businessVectors(q, businessId, model, config.KB_SEARCH_CACHE_MIB);
  if (chunks.length === 0) return [];
  const [vector] = await embed(config, [embeddingInput(model, 'query', text)], { timeoutMs: options.timeoutMs });
  return rankChunks(q, businessId, chunks, decodeVector(encodeVector(vector!)), options);
}
