/**
 * One way to declare an endpoint: the same zod schemas validate the request and document it
 * in the OpenAPI registry. A route handler returns the response body (status 200, as
 * decisions.md says for every success); errors are thrown from core/errors.ts.
 *
 *   export default defineRoute({
 *     method: 'get', path: '/api/v1/kb/articles/:article_id', tags: ['Knowledge base'],
 *     summary: 'Read an article', auth: 'user',
 *     params: z.object({ article_id: intParam() }),
 *     response: articleSchema, errors: [401, 404, 422],
 *     handler: async ({ params, caller, deps }) => { ... },
 *   });
 */
import type { Context, Middleware } from 'koa';
import type Router from '@koa/router';
import { HttpMethodEnum, koaBody } from 'koa-body';
import type { OpenAPIRegistry, RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from '../lib/zod.ts';
import type { Deps } from '../core/deps.ts';
import { CallerChanged, HttpError, validationError, type ValidationIssue } from '../core/errors.ts';
import type { Visitor } from '../core/commands/visitors.ts';
import { authenticate, bearerToken, verifyCaller, type Caller } from './middlewares/auth.ts';
import { actingAs } from '../core/events/actor-context.ts';
import type { Actor } from '../core/events/domain-types.ts';
import { assertChecked, forgetCaller, unverifiedGeneration } from './middlewares/remembered-callers.ts';
import { authenticateVisitor } from './middlewares/visitor-auth.ts';
import { toValidationIssues, type Source } from './validation.ts';
import { unsafeInputIssues } from './input-guard.ts';
import { errorResponses } from './openapi-errors.ts';
import { authorize, policies, policyText, scopeOf, type Action, type Member } from './policies.ts';
import { requireVisible } from '../core/domain/team-visibility.ts';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type AnyObject = z.ZodType<Record<string, unknown>>;

/** Who may call: anyone, a user with an access token, or a website visitor with a visitor token. */
export type AuthMode = 'none' | 'user' | 'visitor';

export type HandlerInput<P, Q, B, A extends AuthMode, Pol extends Action | undefined = undefined> = {
  params: P;
  query: Q;
  body: B;
  /** The authenticated user, or the visitor on `visitor` routes; null on public routes. */
  caller: A extends 'user' ? Caller : A extends 'visitor' ? Visitor : null;
  /** The caller's membership, authorized for the route's `policy` (on routes that name one). */
  member: Pol extends Action ? Member : undefined;
  deps: Deps;
  ctx: Context;
  /**
   * On a route with `rememberedCaller`: makes sure the caller is still valid before a write that
   * does not check it in its own statement (auth.ts callerCheck). Elsewhere it does nothing.
   */
  verifyCaller: () => Promise<void>;
};

export type RouteDefinition<P, Q, B, A extends AuthMode, Pol extends Action | undefined = undefined> = {
  method: Method;
  /** Koa path syntax (`/api/v1/things/:thing_id`); shown as `{thing_id}` in OpenAPI. */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: A;
  /**
   * The action of api/policies.ts this route performs (`user` routes of a business): checked
   * after validation and before the handler, which receives the caller's `member`; the
   * OpenAPI description says who may call. Routes for callers without a business name none.
   */
  policy?: Pol;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** Response body schema, for the OpenAPI document. */
  response?: z.ZodType;
  /**
   * Response content type when not JSON (e.g. `text/plain` for webhook handshakes), or the types
   * the route negotiates by `Accept` (the first is what a client gets without asking), each
   * documented with the `response` schema.
   */
  responseContentType?: string | string[];
  /**
   * Other representations of the success response a query parameter selects (content type →
   * schema), e.g. `text/csv` for `?format=csv`: documented after the main one.
   */
  alternateResponses?: Record<string, z.ZodType>;
  /** Error statuses this route can answer, documented with their body shapes. */
  errors?: number[];
  /**
   * How the body is read: `json` (default; `application/json` only, else 415 when the route
   * declares a `body`; the raw text kept at ctx.request.rawBody), or a Koa middleware of the
   * route's own (multipart, raw MIME). Either runs only after authentication.
   */
  bodyParser?: 'json' | Middleware;
  /** Any origin may call it (public widget and visitor endpoints). */
  publicCors?: boolean;
  /** Not part of the API (the agent app's pages): left out of the OpenAPI document. */
  hidden?: boolean;
  /** The success status (default 200; 202 where the work is accepted and done later, e.g. a mail sent). */
  successStatus?: 200 | 202;
  /**
   * The hot path's saving of a query (`user` routes): a caller this process authenticated
   * before with the same token is taken from memory (api/middlewares/remembered-callers.ts),
   * and every write of the handler checks it, in its own statement (`callerCheck(caller)` of
   * api/middlewares/auth.ts) or before it (`verifyCaller()`). A write that finds the caller
   * changed writes nothing and the route runs again after a fresh authentication.
   */
  rememberedCaller?: true;
  handler: (input: HandlerInput<P, Q, B, A, Pol>) => Promise<unknown>;
};

export type AnyRoute = RouteDefinition<any, any, any, AuthMode, Action | undefined>;

export function defineRoute<
  P = Record<string, never>,
  Q = Record<string, never>,
  B = undefined,
  A extends AuthMode = 'user',
  Pol extends Action | undefined = undefined,
>(route: RouteDefinition<P, Q, B, A, Pol>): AnyRoute {
  return route as AnyRoute;
}

/** 1 MiB JSON bodies; raw text kept for webhook signatures. Malformed JSON → 422 json_invalid. */
const jsonBody = koaBody({
  json: true,
  urlencoded: false,
  text: false,
  multipart: false,
  includeUnparsed: true,
  jsonLimit: '1mb',
  formLimit: '1mb',
  textLimit: '1mb',
  jsonStrict: false,
  parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
});

/** Runs a body parser on its own, so errors it throws are classified as body errors only. */
function parseBodyWith(parser: Middleware): (ctx: Context) => Promise<void> {
  return async (ctx) => {
    try {
      await parser(ctx, async () => {});
    } catch (error) {
      if (error instanceof HttpError) throw error;
      const status = (error as { status?: number }).status;
      if (status === 413) throw new HttpError(413, { detail: 'Request body too large' });
      if (status === 415) throw new HttpError(415, { detail: 'Unsupported Media Type' });
      throw validationError([{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }]);
    }
  };
}

/** Bytes follow the headers (an empty `Content-Length: 0` body counts as none). */
const hasBody = (ctx: Context) => ctx.get('Transfer-Encoding') !== '' || Number(ctx.get('Content-Length') || 0) > 0;

/**
 * The body reader of a route. JSON routes refuse any other content type with 415 before reading
 * a byte (a form or text body would otherwise fail every field with 422); a request without a
 * body reads as `{}`, so routes whose fields are all optional work without one.
 */
function bodyReader(route: AnyRoute): (ctx: Context) => Promise<void> {
  if (route.bodyParser && route.bodyParser !== 'json') return parseBodyWith(route.bodyParser);
  const parseJson = parseBodyWith(jsonBody);
  return async (ctx) => {
    if (!hasBody(ctx)) return;
    if (route.body && !ctx.is('application/json')) {
      throw new HttpError(415, { detail: 'Unsupported Media Type: send the body as application/json' });
    }
    await parseJson(ctx);
  };
}

function authenticateCaller(route: AnyRoute, ctx: Context, deps: Deps, remembered: boolean): Promise<Caller | Visitor | null> {
  const auth = route.auth;
  if (auth === 'user') return authenticate(ctx, deps.db, deps.config.jwtSecret, { apiKeys: route.policy !== undefined, remembered });
  if (auth === 'visitor') return authenticateVisitor(ctx, deps);
  return Promise.resolve(null);
}

/** One part of the request: the shared input guard first (NUL, surrogates, depth), then the route's schema. */
function parsePart<T>(schema: z.ZodType<T> | undefined, value: unknown, source: Source, issues: ValidationIssue[]): T {
  if (!schema) return undefined as T;
  const unsafe = unsafeInputIssues(source, value);
  if (unsafe.length > 0) {
    issues.push(...unsafe);
    return undefined as T;
  }
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  issues.push(...toValidationIssues(source, result.error.issues));
  return undefined as T;
}

/**
 * Mounts a route. Authentication comes first, before a byte of the body is read: a request
 * without a valid token is a 401 whatever it carries, and costs no parsing or disk.
 */
export function mountRoute(router: Router, deps: Deps, route: AnyRoute): void {
  const readBody = bodyReader(route);
  const handle: Middleware = async (ctx) => {
    const caller = await authenticateCaller(route, ctx, deps, route.rememberedCaller === true);
    await readBody(ctx);
    const issues: ValidationIssue[] = [];
    const params = parsePart(route.params, ctx.params, 'path', issues);
    const query = parsePart(route.query, ctx.query, 'query', issues);
    const rawBody = (ctx.request as { body?: unknown }).body;
    const body = parsePart(route.body, rawBody === undefined ? {} : rawBody, 'body', issues);
    if (issues.length > 0) throw validationError(issues);
    const run = async (caller: Caller | Visitor | null) => {
      const member = route.policy ? authorize(caller as Caller, route.policy) : undefined;
      // Team-scoped visibility: a conversation the member may not see is 404 on every route that
      // names one in its path, as another business's is (core/domain/team-visibility.ts).
      const conversationId = (params as { conversation_id?: unknown } | undefined)?.conversation_id;
      if (member?.teamScoped && typeof conversationId === 'string') await requireVisible(deps.db, member, conversationId);
      // Both do nothing for a caller not taken from memory (a visitor's, or one authenticated now).
      const verify = () => verifyCaller(deps.db, caller as Caller);
      const handle = () => route.handler({ params, query, body, caller: caller as never, member: member as never, deps, ctx, verifyCaller: verify });
      // The signed-in caller is the actor of the domain events the handler's commands record.
      const actor = route.auth === 'user' && caller ? actorOfCaller(caller as Caller) : null;
      const result = actor ? await actingAs(actor, handle) : await handle();
      assertChecked(caller as Caller, `${route.method.toUpperCase()} ${route.path}`);
      return result;
    };
    let result: unknown;
    try {
      result = await run(caller);
    } catch (error) {
      // A remembered caller changed (signed out, role or team visibility changed…): nothing was
      // written; the request goes as it would have with a fresh authentication. So does a refusal
      // a remembered caller met before any check of it (a role's 403, a 404): it is answered as a
      // fresh caller would be. After a check passed, a refusal is the caller's own.
      const unchecked = caller !== null && unverifiedGeneration(caller as Caller) !== null;
      if (!(error instanceof CallerChanged) && !(unchecked && error instanceof HttpError)) throw error;
      forgetCaller(bearerToken(ctx));
      result = await run(await authenticateCaller(route, ctx, deps, false));
    }
    if (result !== undefined && ctx.body === undefined) {
      ctx.status = route.successStatus ?? 200;
      ctx.body = result;
    }
  };
  router[route.method](route.path, handle);
}

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

export function documentRoute(registry: OpenAPIRegistry, route: AnyRoute): void {
  const request: RouteConfig['request'] = {};
  if (route.params) request.params = route.params as AnyObject as never;
  if (route.query) request.query = route.query as AnyObject as never;
  const takesJson = route.body && (!route.bodyParser || route.bodyParser === 'json');
  // A body whose fields are all optional may be left out altogether.
  if (takesJson) request.body = { content: { 'application/json': { schema: route.body } }, required: !route.body!.safeParse({}).success };
  const statuses = new Set(route.errors ?? []);
  if (route.auth !== 'none') statuses.add(401);
  if (takesJson) [413, 415].forEach((status) => statuses.add(status));
  if (route.params || route.query || route.body) statuses.add(422);
  // Any business route may answer 403: a role the policy refuses, or a member whose business
  // requires two-factor sign-in before they have set it up (api/policies.ts).
  if (route.policy) statuses.add(403);
  // An API key lacking the action's scope is 403; one over its rate limit, 429.
  const keyScope = route.auth === 'user' && route.policy ? scopeOf(route.policy) : null;
  if (keyScope) [403, 429].forEach((status) => statuses.add(status));
  registry.registerPath({
    ...(route.policy ? { 'x-parley-policy': route.policy } : {}),
    method: route.method,
    path: toOpenApiPath(route.path),
    summary: route.summary,
    description: route.policy ? [route.description, policyText(route.policy)].filter(Boolean).join(' ') : route.description,
    tags: route.tags,
    ...(keyScope ? { 'x-parley-api-key-scope': keyScope } : {}),
    security:
      route.auth === 'user' ? [{ bearerAuth: [] }, ...(keyScope ? [{ apiKey: [keyScope] }] : [])] : route.auth === 'visitor' ? [{ visitorToken: [] }] : [],
    request,
    responses: {
      [route.successStatus ?? 200]: {
        description: route.successStatus === 202 ? 'Accepted' : 'Success',
        content: route.response
          ? Object.fromEntries([
              ...[route.responseContentType ?? 'application/json'].flat().map((type) => [type, { schema: route.response! }]),
              ...Object.entries(route.alternateResponses ?? {}).map(([type, schema]) => [type, { schema }]),
            ])
          : undefined,
      },
      ...errorResponses([...statuses].sort()),
    },
  });
}

/** A signed-in caller as the actor of domain events: the member, or the API key standing in for them. */
function actorOfCaller(caller: Caller): Actor {
  if (caller.apiKey)
    return { type: 'api_key', apiKeyId: caller.apiKey.id, userId: caller.userId, name: `API key "${caller.apiKey.name}" (${caller.fullName})` };
  return { type: 'member', userId: caller.userId, name: caller.fullName };
}
