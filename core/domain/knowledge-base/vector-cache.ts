/**
 * A per-process cache of each business's decoded chunk vectors, so a search reads one counter
 * instead of every chunk's `bytea` (parsing and decoding ~2,000 vectors of 768 float32 cost
 * most of a search's ~50 ms over 1,000 articles; see README "Performance").
 *
 * Exactness: every transaction that changes a business's `kb_chunks` bumps its row of
 * `kb_index_versions` as its last statement (bumpIndexVersion), so the change and the new
 * version commit together. A search reads the version first and uses the cached vectors only
 * when they were loaded under that same version; otherwise it reloads them. The version read
 * before a load may be older than the data loaded, never newer, so a stale entry can only cause
 * one extra reload, never a stale answer.
 *
 * Isolation: entries are keyed by business id and model and are only ever filled by a query
 * scoped to that business. Memory: least recently searched business evicted first, at most
 * KB_SEARCH_CACHE_MIB MiB of vectors per process; a business larger than the cap is not cached.
 */
import { endianness } from 'node:os';
import { z } from 'zod';
import { sql, type Queryable } from '../../adapters/postgres/db.ts';

/** One chunk's position and unit-length vector. */
export type ChunkVector = { id: number; articleId: number; ordinal: number; vector: Float32Array };

type Entry = { version: number; chunks: ChunkVector[]; bytes: number };

/** Bytes a chunk costs besides its vector (object, typed-array header, map slot): a rough, safe figure. */
const CHUNK_OVERHEAD_BYTES = 200;

const LITTLE_ENDIAN = endianness() === 'LE';

/** The stored little-endian float32 bytes as a Float32Array (a copy: the buffer belongs to the driver). */
export function decodeVector(buffer: Buffer): Float32Array {
  const vector = new Float32Array(buffer.length / 4);
  if (LITTLE_ENDIAN) new Uint8Array(vector.buffer).set(buffer);
  else for (let i = 0; i < vector.length; i += 1) vector[i] = buffer.readFloatLE(i * 4);
  return vector;
}

/** Marks a business's index changed. Call it as the last statement of the transaction that changed it. */
export async function bumpIndexVersion(q: Queryable, businessId: string): Promise<void> {
  await q.query(sql.unsafe`
    insert into kb_index_versions (business_id, version) values (${businessId}, 1)
    on conflict (business_id) do update set version = kb_index_versions.version + 1`);
}

/** Least-recently-used map of entries, bounded in bytes. */
export class VectorCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private readonly capBytes: number;

  constructor(capBytes: number) {
    this.capBytes = capBytes;
  }

  get size(): { businesses: number; bytes: number } {
    return { businesses: this.entries.size, bytes: this.bytes };
  }

  get(key: string, version: number): ChunkVector[] | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.chunks;
  }

  set(key: string, version: number, chunks: ChunkVector[]): void {
    this.remove(key);
    const bytes = chunks.reduce((sum, c) => sum + c.vector.byteLength + CHUNK_OVERHEAD_BYTES, 0);
    if (bytes > this.capBytes) return;
    for (const oldest of this.entries.keys()) {
      if (this.bytes + bytes <= this.capBytes) break;
      this.remove(oldest);
    }
    this.entries.set(key, { version, chunks, bytes });
    this.bytes += bytes;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}

let shared: VectorCache | undefined;

/** The process's cache, made on first use with the configured cap. */
function processCache(capMiB: number): VectorCache {
  shared ??= new VectorCache(capMiB * 1024 * 1024);
  return shared;
}

const versionRow = z.object({ version: z.coerce.number() });
const vectorRow = z.object({ id: z.number(), article_id: z.number(), ordinal: z.number(), embedding: z.instanceof(Buffer) });

/**
 * One business's chunk vectors of one model: from the process cache when the index has not
 * changed since they were loaded, else read (and cached) now.
 */
export async function businessVectors(q: Queryable, businessId: string, model: string, capMiB: number): Promise<ChunkVector[]> {
  const { version } = await q.one(sql.type(versionRow)`
    select coalesce((select version from kb_index_versions where business_id = ${businessId}), 0) as version`);
  const cache = processCache(capMiB);
  const key = `${businessId}\u0000${model}`;
  const cached = cache.get(key, version);
  if (cached) return cached;
  const rows = await q.any(sql.type(vectorRow)`
    select id, article_id, ordinal, embedding from kb_chunks
    where business_id = ${businessId} and model = ${model}`);
  const chunks = rows.map((row) => ({ id: row.id, articleId: row.article_id, ordinal: row.ordinal, vector: decodeVector(row.embedding) }));
  cache.set(key, version, chunks);
  return chunks;
}
