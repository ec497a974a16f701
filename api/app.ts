/** Koa wiring: request id → errors and access log → CORS → routes (+ the OpenAPI document). */
import Koa from 'koa';
import Router from '@koa/router';
import type { Deps } from '../core/deps.ts';
import { requestId } from './middlewares/request-id.ts';
import { errorsAndAccessLog } from './middlewares/errors.ts';
import { cors } from './middlewares/cors.ts';
import { mountRoute, type AnyRoute } from './route.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { allRoutes } from './routes/index.ts';
import { sellsPlans } from '../core/domain/plans.ts';

const pathPattern = (path: string) => new RegExp('^' + path.replace(/:[A-Za-z0-9_]+/g, '[^/]+') + '/?$');

export function createApp(deps: Deps, routes: AnyRoute[] = allRoutes): Koa {
  const app = new Koa({ proxy: true });
  const router = new Router();
  for (const route of routes) mountRoute(router, deps, route);
  let document: object | undefined;
  router.get('/api/v1/openapi.json', (ctx) => {
    document ??= buildOpenApiDocument(routes, deps.config.publicUrl);
    ctx.body = document;
  });
  const publicEndpoints = routes.filter((r) => r.publicCors).map((r) => ({ method: r.method.toUpperCase(), path: pathPattern(r.path) }));
  // Every answer, errors included: browsers never guess a type other than the one sent.
  app.use(async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    await next();
  });
  app.use(requestId);
  app.use(errorsAndAccessLog(deps.logger, sellsPlans(deps.config)));
  app.use(cors(deps.config.CORS_ORIGINS, publicEndpoints));
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: false }));
  return app;
}
