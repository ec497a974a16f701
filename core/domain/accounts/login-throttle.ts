/**
 * The login rate limit: ten failed logins for one e-mail from one client address within
 * 15 minutes lock that pair out until the oldest of those failures is 15 minutes old; and
 * LOGIN_MAX_FAILURES_PER_ADDRESS (default fifty) failed logins from one client address, whatever
 * the e-mails, lock that address out
 * the same way (one address trying many accounts). An IPv6 client is its /64 (one subscriber's
 * network; a host picks any address in it); an IPv4-mapped IPv6 address is its IPv4 address.
 * Failures are rows in Postgres, so every API node sees the same count; each attempt also
 * removes a few failures older than the window, so the table stays small.
 *
 * An attempt is written as a failure BEFORE its password is checked and withdrawn only when it
 * turns out to be refused by the lock or the password is right. So attempts running in
 * parallel count against each other: the k-th row committed sees at least k−1 others, and no
 * burst of requests gets more than ten passwords checked.
 */
import { z } from 'zod';
import type { FragmentSqlToken } from 'slonik';
import { sql, type Queryable } from '../../adapters/postgres/db.ts';

export const LOGIN_WINDOW_SECONDS = 15 * 60;
export const LOGIN_MAX_FAILURES = 10;

/** The address failures are counted under: IPv4 as is, IPv6 as its /64 (`2001:db8:1:2::/64`). */
export function loginAddressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const [head, tail] = address.toLowerCase().split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => (g || '0').replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * Seconds until the failures `which` selects lock nobody (the newest `limit` of the window, the
 * attempt `attemptId` left out when given: until the oldest of them leaves the window), at least
 * 1; 0 while there are fewer than `limit`.
 */
const lockWait = (which: FragmentSqlToken, limit: number, attemptId: number | null) => sql.fragment`(
  select case when count(*) >= ${limit}
    then greatest(1, ceil(extract(epoch from (min(at) + make_interval(secs => ${LOGIN_WINDOW_SECONDS}) - now()))))::int
    else 0 end
  from (select at from login_failures
        where ${which} ${attemptId === null ? sql.fragment`` : sql.fragment`and id <> ${attemptId}`} and at > now() - make_interval(secs => ${LOGIN_WINDOW_SECONDS})
        order by at desc limit ${limit}) recent)`;

/**
 * Counts the attempt as a failure, then checks the lock: 0 when the password may be checked
 * (settle with loginSucceeded or loginFailed), else the seconds until the pair may try again;
 * a refused attempt is withdrawn, so trying while locked does not extend the lock.
 */
export async function beginLoginAttempt(q: Queryable, email: string, address: string, maxPerAddress: number): Promise<number> {
  const ip = loginAddressKey(address);
  const id = await q.oneFirst(sql.type(z.object({ id: z.number() }))`
    insert into login_failures (email, ip) values (${email}, ${ip}) returning id`);
  const wait = await q.oneFirst(sql.type(z.object({ wait: z.number() }))`
    select greatest(
      ${lockWait(sql.fragment`email = ${email} and ip = ${ip}`, LOGIN_MAX_FAILURES, id)},
      ${lockWait(sql.fragment`ip = ${ip}`, maxPerAddress, id)}) as wait`);
  if (wait === 0) return 0;
  await q.query(sql.unsafe`delete from login_failures where id = ${id}`);
  return wait;
}

/** The attempt failed: it stays counted. A few failures older than the window (anyone's) are pruned. */
export async function loginFailed(q: Queryable): Promise<void> {
  await q.query(sql.unsafe`
    delete from login_failures where id in (
      select id from login_failures where at < now() - make_interval(secs => ${LOGIN_WINDOW_SECONDS})
      order by at limit 100 for update skip locked)`);
}

/** The password was right: this attempt and the pair's earlier failures no longer count. */
export async function loginSucceeded(q: Queryable, email: string, address: string): Promise<void> {
  await q.query(sql.unsafe`delete from login_failures where email = ${email} and ip = ${loginAddressKey(address)}`);
}

/**
 * The second step of a sign-in (a TOTP or recovery code) is throttled like the password: its
 * failures are rows of the same table under `two-factor:<user id>`, so the pair limit (ten per
 * client address in 15 minutes) and the per-address budget apply as they are; and since whoever
 * reaches the second step already has the password, the account also has a budget across
 * addresses: TWO_FACTOR_MAX_FAILURES_PER_ACCOUNT failures in 15 minutes lock its second step
 * from everywhere until the oldest is 15 minutes old (3 codes of 10⁶ are valid at a time: at
 * 20 guesses per 15 minutes, under 1 in 150 a day for someone who already has the password).
 */
export const TWO_FACTOR_MAX_FAILURES_PER_ACCOUNT = 20;

export const secondStepKey = (userId: string): string => `two-factor:${userId}`;

/** As beginLoginAttempt, for the second step of `userId`'s sign-in; settle with loginSucceeded/loginFailed on secondStepKey. */
export async function beginSecondStepAttempt(q: Queryable, userId: string, address: string, maxPerAddress: number): Promise<number> {
  const key = secondStepKey(userId);
  const accountWait = await q.oneFirst(sql.type(z.object({ wait: z.number() }))`
    select ${lockWait(sql.fragment`email = ${key}`, TWO_FACTOR_MAX_FAILURES_PER_ACCOUNT, null)} as wait`);
  if (accountWait > 0) return accountWait;
  return beginLoginAttempt(q, key, address, maxPerAddress);
}
