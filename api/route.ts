/**
 * One way to declare an endpoint: the same zod schemas validate the request and document it
 * in the OpenAPI registry. A route handler returns the response body (status 200, as
 * decisions.md says for every success); errors are thrown from core/errors.ts.
 *
 *   export default defineRoute({
 *     method: 'get', path: '/api/v1/kb/articles/:article_id', tags: ['Knowledge base'],
 *     summary: 'Read an article', auth: 'user',
 *     params: z.object({ article_id: z.coerce.number().int() }),
 *     response: articleSchema, errors: [401, 404, 422],
 *     handler: async ({ params, caller, deps }) => { ... },
 *   });
 */
import type { Context, Middleware } from 'koa';
import type Router from '@koa/router';
import { HttpMethodEnum, koaBody } from 'koa-body';
import type { OpenAPIRegistry, RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from '../core/zod.ts';
import type { Deps } from '../core/deps.ts';
import { HttpError, validationError, type ValidationIssue } from '../core/errors.ts';
import { authenticate, type Caller } from './middlewares/auth.ts';
import { toValidationIssues } from './validation.ts';
import { errorResponses } from './openapi-errors.ts';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type AnyObject = z.ZodType<Record<string, unknown>>;

export type HandlerInput<P, Q, B, A extends 'none' | 'user'> = {
  params: P;
  query: Q;
  body: B;
  /** The authenticated caller; null on public routes. */
  caller: A extends 'user' ? Caller : null;
  deps: Deps;
  ctx: Context;
};

export type RouteDefinition<P, Q, B, A extends 'none' | 'user'> = {
  method: Method;
  /** Koa path syntax (`/api/v1/things/:thing_id`); shown as `{thing_id}` in OpenAPI. */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: A;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** Response body schema, for the OpenAPI document. */
  response?: z.ZodType;
  /** Response content type when not JSON (e.g. `text/plain` for webhook handshakes). */
  responseContentType?: string;
  /** Error statuses this route can answer, documented with their body shapes. */
  errors?: number[];
  /**
   * How the body is read: `json` (default; JSON, forms and text, raw bytes kept at
   * ctx.request.rawBody), or a Koa middleware of the route's own (multipart, raw MIME).
   */
  bodyParser?: 'json' | Middleware;
  /** Any origin may call it (public widget and visitor endpoints). */
  publicCors?: boolean;
  /** Not part of the API (the agent app's pages): left out of the OpenAPI document. */
  hidden?: boolean;
  handler: (input: HandlerInput<P, Q, B, A>) => Promise<unknown>;
};

export type AnyRoute = RouteDefinition<any, any, any, 'none' | 'user'>;

export function defineRoute<P = Record<string, never>, Q = Record<string, never>, B = undefined, A extends 'none' | 'user' = 'user'>(
  route: RouteDefinition<P, Q, B, A>,
): AnyRoute {
  return route as AnyRoute;
}

/** 1 MiB bodies; raw bytes kept for webhook signatures. Malformed JSON → 422 json_invalid. */
const jsonBody = koaBody({
  json: true,
  urlencoded: true,
  text: true,
  multipart: false,
  includeUnparsed: true,
  jsonLimit: '1mb',
  formLimit: '1mb',
  textLimit: '1mb',
  jsonStrict: false,
  parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
});

/** Runs a body parser on its own, so errors it throws are classified as body errors only. */
function parseBodyWith(parser: Middleware): Middleware {
  return async (ctx, next) => {
    try {
      await parser(ctx, async () => {});
    } catch (error) {
      if (error instanceof HttpError) throw error;
      const status = (error as { status?: number }).status;
      if (status === 413) throw new HttpError(413, { detail: 'Request body too large' });
      if (status === 415) throw new HttpError(415, { detail: 'Unsupported Media Type' });
      throw validationError([{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }]);
    }
    await next();
  };
}

function parsePart<T>(schema: z.ZodType<T> | undefined, value: unknown, source: 'body' | 'query' | 'path', issues: ValidationIssue[]): T {
  if (!schema) return undefined as T;
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  issues.push(...toValidationIssues(source, result.error.issues));
  return undefined as T;
}

export function mountRoute(router: Router, deps: Deps, route: AnyRoute): void {
  const bodyParser = parseBodyWith(route.bodyParser && route.bodyParser !== 'json' ? route.bodyParser : jsonBody);
  const handle: Middleware = async (ctx) => {
    const caller = route.auth === 'user' ? await authenticate(ctx, deps.db, deps.config.jwtSecret) : null;
    const issues: ValidationIssue[] = [];
    const params = parsePart(route.params, ctx.params, 'path', issues);
    const query = parsePart(route.query, ctx.query, 'query', issues);
    const rawBody = (ctx.request as { body?: unknown }).body;
    const body = parsePart(route.body, rawBody === undefined ? {} : rawBody, 'body', issues);
    if (issues.length > 0) throw validationError(issues);
    const result = await route.handler({ params, query, body, caller, deps, ctx });
    if (result !== undefined && ctx.body === undefined) {
      ctx.status = 200;
      ctx.body = result;
    }
  };
  router[route.method](route.path, bodyParser, handle);
}

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

export function documentRoute(registry: OpenAPIRegistry, route: AnyRoute): void {
  const request: RouteConfig['request'] = {};
  if (route.params) request.params = route.params as AnyObject as never;
  if (route.query) request.query = route.query as AnyObject as never;
  if (route.body && !route.bodyParser) request.body = { content: { 'application/json': { schema: route.body } }, required: true };
  const statuses = new Set(route.errors ?? []);
  if (route.auth === 'user') statuses.add(401);
  if (route.params || route.query || route.body) statuses.add(422);
  registry.registerPath({
    method: route.method,
    path: toOpenApiPath(route.path),
    summary: route.summary,
    description: route.description,
    tags: route.tags,
    security: route.auth === 'user' ? [{ bearerAuth: [] }] : [],
    request,
    responses: {
      200: {
        description: 'Success',
        content: route.response ? { [route.responseContentType ?? 'application/json']: { schema: route.response } } : undefined,
      },
      ...errorResponses([...statuses].sort()),
    },
  });
}
