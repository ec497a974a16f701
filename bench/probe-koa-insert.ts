/**
 * The baseline the reply probe compares with: Koa answering each POST with one `pg` INSERT on
 * the same database (a pool of 10), and nothing else. PORT and DATABASE_URL from the environment.
 */
import Koa from 'koa';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
await pool.query('create table if not exists probe_baseline (id bigint generated always as identity primary key, content text not null, created_at timestamptz not null default now())');
const app = new Koa();
app.use(async (ctx) => {
  const { rows } = await pool.query('insert into probe_baseline (content) values ($1) returning id, created_at', ['Thanks, looking into it']);
  ctx.body = rows[0];
});
app.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
