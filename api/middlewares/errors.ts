/**
 * Turns every error into the spec's body. HttpError carries its own status and body; errors
 * raised by Koa and its body parser for client mistakes keep their 4xx status; PostgreSQL
 * down or not answering (within DB_TIMEOUT) is a 503 with Retry-After, so clients and
 * platforms retry; anything else is a 500 with no internals, only the request id. Also logs
 * each request once.
 */
import type { Middleware } from 'koa';
import { isDatabaseUnavailable } from '../../core/adapters/postgres/db-outage.ts';
import { HttpError, PlanRefusal } from '../../core/errors.ts';

/** Seconds a client is asked to wait before retrying during a database outage. */
const OUTAGE_RETRY_AFTER = '5';
import type { Logger } from '../../core/adapters/logger.ts';

/** `billing`: the server sells plans (a plan refusal then ends in its upgrade sentence, else in the operator's). */
export function errorsAndAccessLog(logger: Logger, billing = false): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
      // Unknown routes (404) and the router's 405 set a status without a body: give them the spec's shape.
      if (ctx.status >= 400 && ctx.body == null) {
        const status = ctx.status;
        ctx.body = { detail: status === 404 ? 'Not Found' : httpReason(status) };
        ctx.status = status;
      }
    } catch (caught) {
      let error = caught;
      if (isDatabaseUnavailable(error)) {
        logger.warn({ err: error, request_id: ctx.state.requestId, method: ctx.method, path: ctx.path }, 'database unavailable');
        error = new HttpError(503, { detail: 'Service temporarily unavailable' }, { 'Retry-After': OUTAGE_RETRY_AFTER });
      }
      if (error instanceof HttpError) {
        ctx.status = error.status;
        ctx.body = error instanceof PlanRefusal ? error.bodyFor(billing) : error.body;
        ctx.set(error.headers);
      } else {
        const err = error as { status?: number; expose?: boolean; message?: string };
        if (typeof err.status === 'number' && err.status >= 400 && err.status < 500) {
          ctx.status = err.status;
          ctx.body = { detail: err.expose && err.message ? err.message : httpReason(err.status) };
        } else {
          ctx.status = 500;
          ctx.body = { detail: 'Internal server error', request_id: ctx.state.requestId };
          logger.error({ err: error, request_id: ctx.state.requestId, method: ctx.method, path: ctx.path }, 'unhandled error');
        }
      }
    } finally {
      logger.info(
        { request_id: ctx.state.requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(performance.now() - started) },
        'request',
      );
    }
  };
}

function httpReason(status: number): string {
  return (
    ({ 400: 'Bad Request', 405: 'Method Not Allowed', 413: 'Request body too large', 415: 'Unsupported Media Type' } as Record<number, string>)[status] ??
    'Request error'
  );
}
