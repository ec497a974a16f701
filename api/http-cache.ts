/** Entity tags for bodies the server builds itself (bundles, the app shell, the docs pages), and sending them. */
import { createHash } from 'node:crypto';
import type { Context } from 'koa';

/** A strong ETag of some bytes. */
export const etagOf = (bytes: Buffer | string) => `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;

/**
 * If-None-Match: `*` or a list of (possibly weak) entity tags. Compared here rather than with
 * ctx.fresh, which ignores a validator sent with `Cache-Control: no-cache` (what fetch adds to
 * conditional requests); a 304 is right for it.
 */
export function matchesEtag(header: string, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const value = tag.trim();
    return value === '*' || value.replace(/^W\//, '') === etag;
  });
}

/**
 * Sends a body the server built (its type and caching headers already set) with its ETag and
 * `nosniff`; a matching If-None-Match gets 304 and no body. With `gzip` given (null: this body
 * has no compressed copy) the answer varies by Accept-Encoding and the compressed copy goes to
 * clients that take it.
 */
export function sendTagged(ctx: Context, body: Buffer | string, etag: string, options: { gzip?: Buffer | null } = {}): void {
  ctx.set('ETag', etag);
  ctx.set('X-Content-Type-Options', 'nosniff');
  if ('gzip' in options) ctx.vary('Accept-Encoding');
  if (matchesEtag(ctx.get('If-None-Match'), etag)) {
    ctx.status = 304;
    return;
  }
  if (options.gzip && ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = options.gzip;
  } else ctx.body = body;
}
