/**
 * The client's address for per-address limits (the login lockout). X-Forwarded-For is written
 * by whoever sends the request, so only the entries appended by our own proxies are trusted:
 * with TRUST_PROXY_HOPS = 0 (no proxy) it is the socket peer; with N proxies in front it is
 * the address the outermost of them saw. Entries a client prepends never count.
 */
import type { Context } from 'koa';

export function clientAddress(ctx: Context, trustedProxyHops: number): string {
  const peer = ctx.req.socket.remoteAddress ?? 'unknown';
  if (trustedProxyHops <= 0) return peer;
  const forwarded = ctx
    .get('X-Forwarded-For')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const chain = [...forwarded, peer];
  return chain[Math.max(0, chain.length - 1 - trustedProxyHops)];
}
