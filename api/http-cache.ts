/** Entity tags for bodies the server builds itself (bundles, the app shell). */
import { createHash } from 'node:crypto';

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
