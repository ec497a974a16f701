/**
 * CORS: public endpoints (widget reads, visitor API, uploaded files) allow any origin; the
 * rest allow only the origins in CORS_ORIGINS. Preflight requests are answered here.
 */
import type { Middleware } from 'koa';

export function cors(allowedOrigins: string[], publicPaths: RegExp[]): Middleware {
  const allowed = new Set(allowedOrigins);
  return async (ctx, next) => {
    const origin = ctx.get('Origin');
    if (origin) {
      const isPublic = publicPaths.some((re) => re.test(ctx.path));
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
