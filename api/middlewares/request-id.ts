/** Every response carries X-Request-Id, echoed when the client sent a sane one. */
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';

const acceptable = /^[A-Za-z0-9._:-]{1,128}$/;

export const requestId: Middleware = async (ctx, next) => {
  const sent = ctx.get('X-Request-Id');
  const id = acceptable.test(sent) ? sent : randomUUID();
  ctx.state.requestId = id;
  ctx.set('X-Request-Id', id);
  await next();
};
