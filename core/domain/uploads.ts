/**
 * Files agents attach to replies, and customers' media fetched from the platforms. Each file is
 * stored once through the storage driver (core/adapters/storage.ts) under its key, which is 256 random bits: the public URL is a capability (platforms fetch attachments
 * without our token), so it must be unguessable. The uploads row records which business owns
 * it and the type it is served with.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { assertStorageWithinPlan, planOf } from './plans.ts';
import { sql, type Db, type Queryable } from '../adapters/postgres/db.ts';
import { storageDrivers, type FileStorage } from '../adapters/storage.ts';
import { validationError, type ValidationIssue } from '../errors.ts';

/** Largest accepted file: 10 MiB. */
export const maxUploadBytes = 10 * 1024 * 1024;

/**
 * Types a support conversation needs and every browser shows safely. No HTML, SVG or scripts:
 * files are served from the API's own origin.
 */
export const uploadTypesByExtension: Readonly<Record<string, string>> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/opus',
  wav: 'audio/wav',
  weba: 'audio/webm',
  amr: 'audio/amr',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  '3gp': 'video/3gpp',
  ogv: 'video/ogg',
  pdf: 'application/pdf',
  txt: 'text/plain',
  csv: 'text/csv',
  rtf: 'application/rtf',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odp: 'application/vnd.oasis.opendocument.presentation',
};

/** Aliases browsers and platforms send for the same types. */
const typeAliases: Readonly<Record<string, string>> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'audio/mp3': 'audio/mpeg',
  'audio/x-wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/x-m4a': 'audio/mp4',
  'audio/m4a': 'audio/mp4',
  'text/rtf': 'application/rtf',
  'text/comma-separated-values': 'text/csv',
};

export const allowedUploadTypes: ReadonlySet<string> = new Set(Object.values(uploadTypesByExtension));

/**
 * The type a file is stored and served with, or null when it is not accepted. A generic or
 * missing declared type falls back to the file name's extension.
 */
export function uploadContentType(declared: string | null | undefined, filename: string): string | null {
  const bare = (declared ?? '').split(';')[0].trim().toLowerCase();
  const type = typeAliases[bare] ?? bare;
  if (allowedUploadTypes.has(type)) return type;
  if (type === '' || type === 'application/octet-stream') {
    const ext = path.extname(filename).slice(1).toLowerCase();
    return uploadTypesByExtension[ext] ?? null;
  }
  return null;
}

/** A file name safe to store and send back in Content-Disposition: no directories or control characters. */
export function cleanFilename(name: string | null | undefined): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  const cleaned = base
    .replace(/[\u0000-\u001f\u007f"]/g, '')
    .trim()
    .slice(0, 255);
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? 'file' : cleaned;
}

export const isImageType = (contentType: string) => contentType.startsWith('image/');

/** 32 random bytes, base64url: 43 characters. */
export const newStorageKey = () => randomBytes(32).toString('base64url');
export const storageKeyPattern = /^[A-Za-z0-9_-]{43}$/;

const uploadsRoute = '/api/v1/uploads/';

/** The public, absolute URL of a stored upload. */
export const uploadUrl = (publicUrl: string, key: string) => `${publicUrl}${uploadsRoute}${key}`;

/** The storage key in one of our upload URLs, or null for any other URL. */
export function storageKeyOf(publicUrl: string, url: string): string | null {
  const prefix = `${publicUrl}${uploadsRoute}`;
  if (!url.startsWith(prefix)) return null;
  const key = url.slice(prefix.length);
  return storageKeyPattern.test(key) ? key : null;
}

export const uploadRow = z.object({
  id: z.string(),
  business_id: z.string(),
  storage_key: z.string(),
  filename: z.string(),
  content_type: z.string(),
  size: z.number(),
  driver: z.enum(storageDrivers),
  chunk_size: z.number().nullable(),
});
export const uploadColumns = sql.fragment`id, business_id, storage_key, filename, content_type, size, driver, chunk_size`;
export type UploadRow = z.infer<typeof uploadRow>;

/** What a message stores per attachment and a connector sends. */
export type Attachment = { url: string; filename: string; content_type: string; size: number };

export const attachmentOf = (publicUrl: string, row: UploadRow): Attachment => ({
  url: uploadUrl(publicUrl, row.storage_key),
  filename: row.filename,
  content_type: row.content_type,
  size: row.size,
});

/**
 * Stores a file and records it, in the caller's transaction: the row first (the postgres
 * driver's chunks reference it), then the bytes through the configured driver, then the size.
 * A failure rolls the row and the chunks back; the disk driver's file or the s3 driver's object is removed. More than
 * `limit` bytes throws FileTooLargeError (core/adapters/storage.ts).
 */
export async function storeFile(
  tx: Queryable,
  storage: FileStorage,
  input: {
    businessId: string;
    conversationId: string | null;
    uploadedBy: string | null;
    source: 'upload' | 'inbound';
    filename: string;
    contentType: string;
    bytes: AsyncIterable<Uint8Array>;
    limit: number;
  },
): Promise<UploadRow> {
  const key = newStorageKey();
  // Locks the business row: the quota check below counts this business's files one at a time.
  const plan = await planOf(tx, input.businessId, { lock: true });
  await tx.query(sql.unsafe`
    insert into uploads (business_id, conversation_id, storage_key, filename, content_type, size, uploaded_by, driver, source)
    values (${input.businessId}, ${input.conversationId}, ${key}, ${input.filename}, ${input.contentType}, 0, ${input.uploadedBy}, ${storage.driver}, ${input.source})`);
  const file = { businessId: input.businessId, key };
  try {
    const written = await storage.write(tx, file, input.bytes, input.limit);
    const row = await tx.one(sql.type(uploadRow)`
      update uploads set size = ${written.size}, chunk_size = ${written.chunkSize}
      where storage_key = ${key} and business_id = ${input.businessId}
      returning ${uploadColumns}`);
    await assertStorageWithinPlan(tx, input.businessId, plan);
    return row;
  } catch (error) {
    if (storage.driver !== 'postgres') await storage.remove(tx, file).catch(() => {});
    throw error;
  }
}

/** An agent's upload: a temp file the multipart parser wrote, stored in its own transaction. */
export async function storeUpload(
  db: Db,
  storage: FileStorage,
  input: { businessId: string; conversationId: string; uploadedBy: string; tempPath: string; filename: string; contentType: string; limit: number },
): Promise<UploadRow> {
  return db.transaction((tx) => storeFile(tx, storage, { ...input, source: 'upload', bytes: createReadStream(input.tempPath) }));
}

export async function findUpload(q: Queryable, key: string): Promise<UploadRow | null> {
  if (!storageKeyPattern.test(key)) return null;
  return q.maybeOne(sql.type(uploadRow)`
    select ${uploadColumns} from uploads where storage_key = ${key}`);
}

/**
 * A visitor's attachments: a link to a file of this business (its upload) takes the stored name,
 * type and size, whatever the widget said; a link to Parley's uploads that is not this
 * business's is 422 on `body.attachments.<i>.url`; any other http(s) link stays a link as sent.
 */
export async function resolveVisitorAttachments<A extends { url: string }>(
  q: Queryable,
  input: { businessId: string; publicUrl: string; attachments: A[] },
): Promise<(A | Attachment)[]> {
  const ours = input.attachments
    .map((a, i) => ({ i, key: storageKeyOf(input.publicUrl, a.url) }))
    .filter((x): x is { i: number; key: string } => x.key !== null);
  if (ours.length === 0) return input.attachments;
  const resolved = await resolveAttachments(q, {
    businessId: input.businessId,
    publicUrl: input.publicUrl,
    attachments: ours.map(({ i }) => input.attachments[i]!),
  });
  const byIndex = new Map(ours.map(({ i }, n) => [i, resolved[n]!]));
  return input.attachments.map((a, i) => byIndex.get(i) ?? a);
}

/**
 * Checks attachments a client sends with a message: each URL must be an upload of this
 * business. The stored values replace what the client said about name, type and size.
 * 422 on `body.<field>.<i>.url` otherwise.
 */
export async function resolveAttachments(
  q: Queryable,
  input: { businessId: string; publicUrl: string; attachments: { url: string }[]; field?: string },
): Promise<Attachment[]> {
  if (input.attachments.length === 0) return [];
  const keys = input.attachments.map((a) => storageKeyOf(input.publicUrl, a.url));
  const known = keys.filter((k): k is string => k !== null);
  const rows = known.length
    ? await q.any(sql.type(uploadRow)`
        select ${uploadColumns} from uploads
        where business_id = ${input.businessId} and storage_key = any(${sql.array(known, 'text')})`)
    : [];
  const byKey = new Map(rows.map((r) => [r.storage_key, r]));
  const issues: ValidationIssue[] = [];
  const resolved: Attachment[] = [];
  keys.forEach((key, i) => {
    const row = key ? byKey.get(key) : undefined;
    if (!row) {
      issues.push({ loc: ['body', input.field ?? 'attachments', i, 'url'], msg: 'Not a file uploaded to this business', type: 'value_error' });
      return;
    }
    resolved.push(attachmentOf(input.publicUrl, row));
  });
  if (issues.length) throw validationError(issues);
  return resolved;
}
