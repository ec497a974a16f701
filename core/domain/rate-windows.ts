/**
 * Fixed-window rate limits kept in Postgres (table `rate_windows`), so every API node counts
 * the same requests. One upsert per request both counts and reads the window: concurrent
 * requests on one key queue on its row, so a burst never gets more than `limit` through.
 * Called inside the transaction that does the limited work, a refused or failed request rolls
 * its count back.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';

export type RateLimit = {
  /** Requests allowed per window. */
  limit: number;
  /** Window length in seconds. */
  windowSeconds: number;
};

/** Counts one request on `key`: 0 when allowed, else the seconds until its window ends (≥ 1). */
export async function takeRateAllowance(q: Queryable, key: string, rate: RateLimit): Promise<number> {
  const row = await q.one(sql.type(z.object({ count: z.number(), retry_after: z.number() }))`
    insert into rate_windows as w (key, window_start, count) values (${key}, now(), 1)
    on conflict (key) do update set
      window_start = case when w.window_start <= now() - make_interval(secs => ${rate.windowSeconds}) then now() else w.window_start end,
      count = case when w.window_start <= now() - make_interval(secs => ${rate.windowSeconds}) then 1 else w.count + 1 end
    returning count, extract(epoch from (window_start + make_interval(secs => ${rate.windowSeconds}) - now()))::float8 as retry_after`);
  return row.count <= rate.limit ? 0 : Math.max(1, Math.ceil(row.retry_after));
}

/** Deletes up to 100 windows that started over a day ago; skips rows others hold. */
export async function pruneRateWindows(q: Queryable): Promise<void> {
  await q.query(sql.unsafe`
    delete from rate_windows where key in (
      select key from rate_windows where window_start < now() - interval '1 day'
      order by window_start limit 100 for update skip locked)`);
}
