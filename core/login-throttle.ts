/**
 * The login rate limit: ten failed logins for one e-mail from one client address within
 * 15 minutes lock that pair out until the oldest of those failures is 15 minutes old.
 * Failures are rows in Postgres, so every API node sees the same count.
 */
import { z } from 'zod';
import { sql, type Queryable } from './db.ts';

export const LOGIN_WINDOW_SECONDS = 15 * 60;
export const LOGIN_MAX_FAILURES = 10;

/** Seconds until the pair may try again, or 0 when it may try now. */
export async function loginRetryAfter(q: Queryable, email: string, ip: string): Promise<number> {
  const row = await q.one(sql.type(z.object({ n: z.number(), retry_after: z.number().nullable() }))`
    select count(*)::int as n,
           extract(epoch from (min(at) + make_interval(secs => ${LOGIN_WINDOW_SECONDS}) - now()))::float8 as retry_after
    from (select at from login_failures
          where email = ${email} and ip = ${ip} and at > now() - make_interval(secs => ${LOGIN_WINDOW_SECONDS})
          order by at desc limit ${LOGIN_MAX_FAILURES}) recent`);
  return row.n >= LOGIN_MAX_FAILURES ? Math.max(1, Math.ceil(row.retry_after ?? 1)) : 0;
}

export async function recordLoginFailure(q: Queryable, email: string, ip: string): Promise<void> {
  await q.query(sql.unsafe`insert into login_failures (email, ip) values (${email}, ${ip})`);
  // Keep the table small: failures older than the window no longer count.
  await q.query(sql.unsafe`delete from login_failures where email = ${email} and ip = ${ip} and at < now() - make_interval(secs => ${LOGIN_WINDOW_SECONDS})`);
}

export async function clearLoginFailures(q: Queryable, email: string, ip: string): Promise<void> {
  await q.query(sql.unsafe`delete from login_failures where email = ${email} and ip = ${ip}`);
}
