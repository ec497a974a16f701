/**
 * Attachments: an agent uploads a file into a conversation (multipart, authenticated), and
 * anyone holding the returned URL reads it back (public: platforms fetch attachments without
 * our token; the 256-bit key in the URL is the credential).
 */
import { HttpError, notFound } from '../../../core/errors.ts';
import { findUpload, isImageType, maxUploadBytes, storeUpload, uploadUrl } from '../../../core/domain/uploads.ts';
import { storageFor } from '../../../core/adapters/storage-for.ts';
import { defineRoute } from '../../route.ts';
import { multipart, uploadedFile } from '../../multipart-upload.ts';
import { findConversation } from './queries.ts';
import { conversationParams, uploadParams, uploadResponse } from './schema.ts';

export const upload = defineRoute({
  method: 'post',
  path: '/api/v1/conversations/:conversation_id/upload',
  summary: 'Upload an attachment',
  description:
    'Multipart form with the file in field `file` (422 when missing or empty), at most 10 MiB (413). Accepted: common image (JPEG, PNG, GIF, WebP, HEIC), audio, video, PDF, ' +
    'plain text/CSV and office documents; a generic `application/octet-stream` is judged by the file extension; anything else (HTML, SVG, scripts, archives…) is 415. ' +
    'Returns `{url, filename, content_type, size}`: pass it in `attachments` of POST …/messages. The URL is absolute and unguessable and is readable without a token. ' +
    "The plan's storage (Free 500 MB, Mini 5 GB, Pro 50 GB of files, customers' media included) full: 402 `limit_exceeded`/`storage`. An upload no message uses is removed after a day. See docs/decisions.md#messages-and-delivery.",
  tags: ['Conversations'],
  auth: 'user',
  policy: 'conversations.reply',
  params: conversationParams,
  bodyParser: multipart,
  response: uploadResponse,
  errors: [402, 404, 413, 415],
  handler: async ({ params, caller, member, deps, ctx }) => {
    const { businessId } = member;
    await findConversation(deps.db, businessId, params.conversation_id);
    const { path: tempPath, filename, contentType } = uploadedFile(ctx);
    const row = await storeUpload(deps.db, storageFor(deps.config.STORAGE_DRIVER, deps.config), {
      limit: maxUploadBytes,
      businessId,
      conversationId: params.conversation_id,
      uploadedBy: caller.userId,
      tempPath,
      filename,
      contentType,
    });
    return { url: uploadUrl(deps.config.publicUrl, row.storage_key), filename: row.filename, content_type: row.content_type, size: row.size };
  },
});

/** `attachment; filename="…"; filename*=UTF-8''…`: an ASCII fallback and the exact name. */
function contentDisposition(kind: 'inline' | 'attachment', filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/** One `bytes=start-end` range (what media players ask for), or null for the whole file. */
function parseRange(header: string, size: number): { start: number; end: number } | null | 'unsatisfiable' {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  let start: number;
  let end: number;
  if (match[1] === '') {
    start = Math.max(0, size - Number(match[2]));
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}

export const serve = defineRoute({
  method: 'get',
  path: '/api/v1/uploads/:storage_key',
  summary: 'Read an uploaded file (public)',
  description:
    'No token: the unguessable URL is the credential. Served with the stored content type, `X-Content-Type-Options: nosniff` and a sandboxing CSP; ' +
    'images inline, everything else as a download (`Content-Disposition: attachment`). Single byte ranges are honoured (206) for media players; the `ETag` is the key (`If-None-Match` answers 304). The bytes come from the storage driver the file was written with (postgres, disk or s3; a range is read as a range), streamed. 404 for an unknown key. See docs/decisions.md#messages-and-delivery.',
  tags: ['Conversations'],
  auth: 'none',
  publicCors: true,
  params: uploadParams,
  responseContentType: 'application/octet-stream',
  errors: [404, 416],
  handler: async ({ params, deps, ctx }) => {
    const row = await findUpload(deps.db, params.storage_key);
    if (!row) throw notFound('File not found');
    const size = row.size;
    const storage = storageFor(row.driver, deps.config);
    const stored = { businessId: row.business_id, key: row.storage_key, size, chunkSize: row.chunk_size };
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', "default-src 'none'; sandbox");
    ctx.set('Content-Disposition', contentDisposition(isImageType(row.content_type) ? 'inline' : 'attachment', row.filename));
    ctx.set('Cache-Control', 'private, max-age=31536000, immutable');
    ctx.set('Accept-Ranges', 'bytes');
    // A key's bytes never change: the key is the entity tag.
    const etag = `"${row.storage_key}"`;
    ctx.set('ETag', etag);
    ctx.type = row.content_type;
    if ((ctx.get('If-None-Match') ?? '').split(',').some((tag) => tag.trim() === etag)) {
      ctx.status = 304;
      return undefined;
    }
    const range = ctx.get('Range') ? parseRange(ctx.get('Range'), size) : null;
    if (range === 'unsatisfiable') throw new HttpError(416, { detail: 'Range not satisfiable' }, { 'Content-Range': `bytes */${size}` });
    if (range) {
      ctx.status = 206;
      ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
      const body = await storage.read(deps.db, stored, range);
      if (!body) throw notFound('File not found');
      ctx.length = range.end - range.start + 1;
      ctx.body = body;
      return undefined;
    }
    const body = await storage.read(deps.db, stored);
    if (!body) throw notFound('File not found');
    ctx.status = 200;
    ctx.length = size;
    ctx.body = body;
    return undefined;
  },
});

export default [upload, serve];
