/**
 * Where the bytes of files live (agent uploads, customers' media): one interface, three drivers
 * (chosen per row by `storageFor`, core/adapters/storage-for.ts).
 *
 * - `postgres` (default whenever DATABASE_URL is set): the bytes in `file_chunks`, 256 KiB a
 *   row, written in the transaction that records the upload, read back a few chunks at a time.
 *   `web` and `worker` nodes on separate machines see the same files with nothing else to run.
 * - `disk` (default for the embedded `npm start`, and every upload from before migration 0088):
 *   DATA_DIR/uploads/<key>. One machine only.
 * - `s3` (STORAGE_DRIVER=s3): an object per file in S3_BUCKET of any S3-compatible service
 *   (core/adapters/s3-storage.ts).
 *
 * All stream both ways: a 25 MB file never sits in memory whole. Each upload row names its
 * driver (`uploads.driver`), so files written under one setting stay readable under another.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { sql, type Queryable } from './postgres/db.ts';

export type StorageDriver = 'postgres' | 'disk' | 's3';
export const storageDrivers = ['postgres', 'disk', 's3'] as const;

/** Bytes per `file_chunks` row: small enough for a statement each, large enough to be few. */
export const CHUNK_BYTES = 256 * 1024;
/** Chunks read per query when streaming a file out (1 MiB). */
const CHUNKS_PER_READ = 4;

export type StoredFile = { businessId: string; key: string; size: number; chunkSize: number | null };
export type ByteRange = { start: number; end: number };

/** Thrown by `write` when the source is larger than the limit it was given. */
export class FileTooLargeError extends Error {
  readonly limit: number;
  constructor(limit: number) {
    super(`The file is larger than ${Math.round(limit / (1024 * 1024))} MB`);
    this.name = 'FileTooLargeError';
    this.limit = limit;
  }
}

export type FileStorage = {
  readonly driver: StorageDriver;
  /**
   * Writes `source` under `key`; resolves with its size. `q` is the transaction that also
   * inserts the upload row (postgres: the chunks are part of it; the row must come first).
   * More than `limit` bytes throws FileTooLargeError and leaves nothing behind (postgres: roll
   * the transaction back).
   */
  write: (
    q: Queryable,
    file: { businessId: string; key: string },
    source: AsyncIterable<Uint8Array>,
    limit: number,
  ) => Promise<{ size: number; chunkSize: number | null }>;
  /** The bytes, or a range of them (inclusive `end`); null when they are missing. */
  read: (q: Queryable, file: StoredFile, range?: ByteRange) => Promise<Readable | null>;
  /** Removes the bytes (postgres: deleting the upload row does it). */
  remove: (q: Queryable, file: { businessId: string; key: string }) => Promise<void>;
};

/** Counts bytes through, failing past `limit`. */
export async function* limited(source: AsyncIterable<Uint8Array>, limit: number, counter: { size: number }): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    counter.size += chunk.byteLength;
    if (counter.size > limit) throw new FileTooLargeError(limit);
    yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  }
}

/** Regroups a stream into pieces of exactly `size` bytes (the last one shorter). */
async function* rechunk(source: AsyncIterable<Buffer>, size: number): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  let held = 0;
  for await (const chunk of source) {
    let rest = chunk;
    while (held + rest.length >= size) {
      const take = size - held;
      parts.push(rest.subarray(0, take));
      yield Buffer.concat(parts, size);
      parts = [];
      held = 0;
      rest = rest.subarray(take);
    }
    if (rest.length > 0) {
      // Copy: the source may reuse its buffer.
      parts.push(Buffer.from(rest));
      held += rest.length;
    }
  }
  if (held > 0) yield Buffer.concat(parts, held);
}

const chunkRow = z.object({ seq: z.number(), data: z.instanceof(Buffer) });

export const postgresStorage: FileStorage = {
  driver: 'postgres',
  write: async (q, file, source, limit) => {
    const counter = { size: 0 };
    let seq = 0;
    for await (const chunk of rechunk(limited(source, limit, counter), CHUNK_BYTES)) {
      await q.query(sql.unsafe`
        insert into file_chunks (business_id, storage_key, seq, data)
        values (${file.businessId}, ${file.key}, ${seq}, ${sql.binary(chunk)})`);
      seq += 1;
    }
    return { size: counter.size, chunkSize: CHUNK_BYTES };
  },
  read: async (q, file, range) => {
    const chunkSize = file.chunkSize ?? CHUNK_BYTES;
    const start = range?.start ?? 0;
    const end = range?.end ?? file.size - 1;
    const first = Math.floor(start / chunkSize);
    const last = file.size === 0 ? -1 : Math.floor(end / chunkSize);
    let next = first;
    async function* chunks(): AsyncGenerator<Buffer> {
      while (next <= last) {
        const upTo = Math.min(last, next + CHUNKS_PER_READ - 1);
        const rows = await q.any(sql.type(chunkRow)`
          select seq, data from file_chunks
          where storage_key = ${file.key} and business_id = ${file.businessId} and seq between ${next} and ${upTo}
          order by seq`);
        if (rows.length !== upTo - next + 1) throw new Error(`file ${file.key}: chunks ${next}-${upTo} missing`);
        for (const row of rows) {
          const offset = row.seq * chunkSize;
          const from = Math.max(0, start - offset);
          const to = Math.min(row.data.length, end - offset + 1);
          yield row.data.subarray(from, to);
        }
        next = upTo + 1;
      }
    }
    // The first chunk is read before answering, so a missing file is a 404, not a cut-off 200.
    if (last >= first) {
      const probe = await q.maybeOne(sql.type(z.object({ seq: z.number() }))`
        select seq from file_chunks where storage_key = ${file.key} and business_id = ${file.businessId} and seq = ${first}`);
      if (!probe) return null;
    }
    return Readable.from(chunks(), { objectMode: false });
  },
  remove: async (q, file) => {
    await q.query(sql.unsafe`delete from file_chunks where storage_key = ${file.key} and business_id = ${file.businessId}`);
  },
};

export const uploadsDir = (dataDir: string) => path.join(dataDir, 'uploads');
export const diskPath = (dataDir: string, key: string) => path.join(uploadsDir(dataDir), key);

export function diskStorage(dataDir: string): FileStorage {
  return {
    driver: 'disk',
    write: async (_q, file, source, limit) => {
      await mkdir(uploadsDir(dataDir), { recursive: true });
      const target = diskPath(dataDir, file.key);
      // Written beside it, then renamed: a reader never sees half a file.
      const partial = `${target}.partial`;
      const counter = { size: 0 };
      try {
        await pipeline(Readable.from(limited(source, limit, counter)), createWriteStream(partial, { flags: 'wx' }));
        await rename(partial, target);
      } catch (error) {
        await unlink(partial).catch(() => {});
        throw error;
      }
      return { size: counter.size, chunkSize: null };
    },
    read: async (_q, file, range) => {
      const at = diskPath(dataDir, file.key);
      const exists = await stat(at).then(
        (s) => s.isFile(),
        () => false,
      );
      if (!exists) return null;
      return createReadStream(at, range ? { start: range.start, end: range.end } : {});
    },
    remove: async (_q, file) => {
      await unlink(diskPath(dataDir, file.key)).catch(() => {});
    },
  };
}
