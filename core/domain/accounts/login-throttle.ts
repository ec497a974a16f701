/**
 * The login rate limit: ten failed logins for one e-mail from one client address within
 * 15 minutes lock that pair out until the oldest of those failures is 15 minutes old.
 * Failures are rows in Postgres, so every API node sees the same count.
 *
 * An attempt is written as a failure BEFORE its password is checked and withdrawn only when it
 * turns out to be refused by the lock or the password is right. So attempts running in
 * parallel count against each other: the k-th row committed sees at least k−1 others, and no
 * burst of requests gets more than ten passwords checked.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../../adapters/postgres/db.ts';

export const LOGIN_WINDOW_SECONDS = 15 * 60;
export const LOGIN_MAX_FAILURES = 10;

/**
 * Counts the attempt as a failure, then checks the lock: 0 when the password may be checked
 * (settle with loginSucceeded or loginFailed), else the seconds until the pair may try again;
 * a refused attempt is withdrawn, so trying while locked does not extend the lock.
 */
export async function beginLoginAttempt(q: Queryable, email: string, ip: string): Promise<number> {
  const id = await q.oneFirst(sql.type(z.object({ id: z.number() }))`
    insert into login_failures (email, ip) values (${email}, ${ip}) returning id`);
  const earlier = await q.one(sql.type(z.object({ n: z.number(), retry_after: z.number().nullable() }))`
    select count(*)::int as n,
           extract(epoch from (min(at) + make_interval(secs => ${LOGIN_WINDOW_SECONDS}) - now()))::float8 as retry_after
    from (select at from login_failures
          where email = ${email} and ip = ${ip} and id <> ${id}
            and at > now() - make_interval(secs => ${LOGIN_WINDOW_SECONDS})
          order by at desc limit ${LOGIN_MAX_FAILURES}) recent`);
  if (earlier.n < LOGIN_MAX_FAILURES) return 0;
  await q.query(sql.unsafe`delete from login_failures where id = ${id}`);
  return Math.max(1, Math.ceil(earlier.retry_after ?? 1));
}

/** The attempt failed: it stays counted. Failures older than the window are pruned. */
export async function loginFailed(q: Queryable, email: string, ip: string): Promise<void> {
  await q.query(sql.unsafe`delete from login_failures where email = ${email} and ip = ${ip} and at < now() - make_interval(secs => ${LOGIN_WINDOW_SECONDS})`);
}

/** The password was right: this attempt and the pair's earlier failures no longer count. */
export async function loginSucceeded(q: Queryable, email: string, ip: string): Promise<void> {
  await q.query(sql.unsafe`delete from login_failures where email = ${email} and ip = ${ip}`);
}
