/**
 * CORS: public endpoints (widget reads, visitor API, uploaded files) allow any origin; the
 * rest allow only the origins in CORS_ORIGINS. Preflight requests are answered here.
 */
import type { Middleware } from 'koa';

/** A public endpoint: its method and a pattern of its path. */
export type PublicEndpoint = { method: string; path: RegExp };

export function cors(allowedOrigins: string[], publicEndpoints: PublicEndpoint[]): Middleware {
  const allowed = new Set(allowedOrigins);
  return async (ctx, next) => {
    const origin = ctx.get('Origin');
    if (origin) {
      // A preflight asks for the method it is about to use; judge that one, not OPTIONS.
      const method = ctx.method === 'OPTIONS' ? ctx.get('Access-Control-Request-Method').toUpperCase() : ctx.method;
      const isPublic = publicEndpoints.some((e) => e.method === method && e.path.test(ctx.path));
      const allowOrigin = isPublic ? '*' : allowed.has(origin) || allowed.has('*') ? origin : null;
      if (allowOrigin) {
        ctx.set('Access-Control-Allow-Origin', allowOrigin);
        if (allowOrigin !== '*') ctx.vary('Origin');
        ctx.set('Access-Control-Expose-Headers', 'X-Request-Id, X-Next-Cursor, Retry-After');
        if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method')) {
          ctx.set('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS');
          ctx.set('Access-Control-Allow-Headers', ctx.get('Access-Control-Request-Headers') || 'Authorization, Content-Type');
          ctx.set('Access-Control-Max-Age', '600');
          ctx.status = 204;
          return;
        }
      }
    }
    await next();
  };
}
