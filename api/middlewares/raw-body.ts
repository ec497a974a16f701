/**
 * Webhook bodies: the exact bytes (signatures are computed over them) at ctx.state.rawBody,
 * and, for JSON and form bodies, the parsed value at ctx.request.body. Malformed JSON is a 400
 * for a platform, not the API's 422; an oversized body is a 413.
 */
import type { Middleware } from 'koa';
import { HttpError, badRequest } from '../../core/errors.ts';

export function rawBody(limitBytes: number): Middleware {
  return async (ctx, next) => {
    const declared = Number(ctx.get('Content-Length') || 0);
    if (declared > limitBytes) throw new HttpError(413, { detail: 'Request body too large' });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of ctx.req) {
      size += (chunk as Buffer).length;
      if (size > limitBytes) throw new HttpError(413, { detail: 'Request body too large' });
      chunks.push(chunk as Buffer);
    }
    const raw = Buffer.concat(chunks);
    ctx.state.rawBody = raw;
    const type = ctx.request.type;
    let body: unknown = {};
    if (raw.length > 0 && type === 'application/json') {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        throw badRequest('Malformed JSON body');
      }
    } else if (type === 'application/x-www-form-urlencoded') {
      body = Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
    }
    (ctx.request as { body?: unknown }).body = body;
    await next();
  };
}
