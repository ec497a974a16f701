/**
 * Baseline of the agent reply: Koa with the same body parser, and one INSERT per request on a
 * pool made by core/adapters/postgres/db.ts exactly as Parley's (slonik, same size), into a table of its own.
 * `POST /reply {content}` → 200 `{id}`. Listens on PORT; prints "ready".
 */
import Koa from 'koa';
import { koaBody } from 'koa-body';
import { z } from 'zod';
import { createDb, sql } from '../../core/adapters/postgres/db.ts';

const db = await createDb(process.env.DATABASE_URL!);
await db.query(sql.unsafe`
  create table if not exists bench_baseline_replies (
    id uuid primary key default gen_random_uuid(), content text not null, created_at timestamptz not null default now())`);

const app = new Koa();
app.use(koaBody());
app.use(async (ctx) => {
  const content = String((ctx.request.body as { content?: unknown } | undefined)?.content ?? '');
  const row = await db.one(sql.type(z.object({ id: z.string() }))`insert into bench_baseline_replies (content) values (${content}) returning id`);
  ctx.body = row;
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
process.on('SIGTERM', () => server.close(() => db.end().then(() => process.exit(0))));
