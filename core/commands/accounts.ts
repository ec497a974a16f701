/** Users: create, find, sign in, verify, sign out. Shared by the auth routes and anything that invites or verifies. */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { enqueue } from '../jobs.ts';
import type { RateLimit } from '../domain/rate-windows.ts';
import { issuePurposeToken } from '../domain/accounts/tokens.ts';
import type { Config } from '../config.ts';
import { rooms } from '../events/bus.ts';
import type { AfterCommit } from './run-command.ts';

export const accountRow = z.object({
  id: z.string(),
  email: z.string(),
  full_name: z.string(),
  password_hash: z.string().nullable(),
  is_verified: z.boolean(),
  is_google_account: z.boolean(),
  avatar_url: z.string().nullable(),
  /** Access tokens of another generation are refused (see migration 0080). */
  token_generation: z.number(),
  /** A sign-in needs a second step (core/commands/two-factor.ts). */
  two_factor_enabled: z.boolean(),
});
export type AccountRow = z.infer<typeof accountRow>;

const accountColumns = sql.fragment`id, email, full_name, password_hash, is_verified, is_google_account, avatar_url, token_generation,
  two_factor_secret is not null as two_factor_enabled`;

export async function findUserByEmail(q: Queryable, email: string): Promise<AccountRow | null> {
  return q.maybeOne(sql.type(accountRow)`select ${accountColumns} from users where email = ${email}`);
}

export async function findUserById(q: Queryable, id: string): Promise<AccountRow | null> {
  return q.maybeOne(sql.type(accountRow)`select ${accountColumns} from users where id = ${id}`);
}

export async function findUserByGoogleSub(q: Queryable, googleSub: string): Promise<AccountRow | null> {
  return q.maybeOne(sql.type(accountRow)`select ${accountColumns} from users where google_sub = ${googleSub}`);
}

/**
 * Marks an existing account as signed in with Google (the e-mail is now proven). An account
 * whose e-mail was never verified may have been registered by someone else first (account
 * pre-hijacking), so linking it drops the password and moves the token generation on: every
 * token issued so far stops working, and the account's live connections are closed after
 * commit (google-sign-in.ts also takes back the team such an account let in); its two-factor
 * setup goes too (the authenticator may be the squatter's: the real owner would be locked out
 * of their own address). A verified account keeps its password, sessions and two-factor.
 * Returns the generation new tokens carry.
 */
export async function linkGoogleAccount(
  q: Queryable,
  userId: string,
  google: { sub: string; picture: string | null },
): Promise<{ generation: number; wasVerified: boolean } & AfterCommit> {
  const linked = await q.one(sql.type(z.object({ was_verified: z.boolean(), token_generation: z.number() }))`
    with before as (select id, is_verified from users where id = ${userId} for update)
    update users u set is_google_account = true, is_verified = true,
           password_hash = case when b.is_verified then u.password_hash else null end,
           token_generation = case when b.is_verified then u.token_generation else u.token_generation + 1 end,
           two_factor_secret = case when b.is_verified then u.two_factor_secret end,
           two_factor_enabled_at = case when b.is_verified then u.two_factor_enabled_at end,
           two_factor_pending_secret = case when b.is_verified then u.two_factor_pending_secret end,
           two_factor_recovery_hashes = case when b.is_verified then u.two_factor_recovery_hashes else '{}' end,
           google_sub = coalesce(u.google_sub, ${google.sub}),
           avatar_url = coalesce(u.avatar_url, ${google.picture}), updated_at = now()
    from before b where u.id = b.id
    returning b.is_verified as was_verified, u.token_generation`);
  if (linked.was_verified) return { generation: linked.token_generation, wasVerified: true };
  return { generation: linked.token_generation, wasVerified: false, disconnectRooms: [rooms.user(userId)] };
}

/**
 * Ends every session of the user: the token generation moves on, so every access token issued
 * so far is refused on every node, and the user's live connections are closed after commit.
 * Returns the new generation (a token issued with it is the only kind that works from now on).
 */
export async function endAllSessions(q: Queryable, userId: string): Promise<{ generation: number } & AfterCommit> {
  const generation = await q.oneFirst(sql.type(z.object({ token_generation: z.number() }))`
    update users set token_generation = token_generation + 1, updated_at = now() where id = ${userId} returning token_generation`);
  return { generation, disconnectRooms: [rooms.user(userId)] };
}

/** Sets a new password (bcrypt hash) and ends every session; `verified` marks the e-mail proven (a mailed reset link was opened). */
export async function setPassword(
  q: Queryable,
  userId: string,
  passwordHash: string,
  options: { verified?: boolean } = {},
): Promise<{ generation: number } & AfterCommit> {
  await q.query(sql.unsafe`
    update users set password_hash = ${passwordHash}, is_verified = is_verified or ${options.verified ?? false}, updated_at = now()
    where id = ${userId}`);
  return endAllSessions(q, userId);
}

/** Inserts a user; null when the e-mail (or the Google account) is already registered. */
export async function insertUser(
  q: Queryable,
  user: {
    email: string;
    fullName: string;
    passwordHash: string | null;
    isVerified?: boolean;
    isGoogle?: boolean;
    googleSub?: string;
    avatarUrl?: string | null;
  },
): Promise<AccountRow | null> {
  return q.maybeOne(sql.type(accountRow)`
    insert into users (email, full_name, password_hash, is_verified, is_google_account, google_sub, avatar_url)
    values (${user.email}, ${user.fullName}, ${user.passwordHash}, ${user.isVerified ?? false}, ${user.isGoogle ?? false},
            ${user.googleSub ?? null}, ${user.avatarUrl ?? null})
    on conflict do nothing
    returning ${accountColumns}`);
}

const VERIFY_TTL_SECONDS = 3 * 24 * 3600;

/** Verification mails on request (`POST /auth/verify-email/send`): per account and per address. */
export const VERIFY_RESEND_RATE_PER_USER: RateLimit = { limit: 3, windowSeconds: 3600 };
export const VERIFY_RESEND_RATE_PER_ADDRESS: RateLimit = { limit: 5, windowSeconds: 24 * 3600 };

/**
 * Enqueues the verification mail (a signed link valid for three days) in the caller's
 * transaction. The address has not agreed to anything yet, so the mail carries no text its
 * recipient did not write: no name, only Parley's words and the link.
 */
export async function enqueueVerificationMail(q: Queryable, config: Config, user: { id: string; email: string }): Promise<void> {
  const token = await issuePurposeToken(config.jwtSecret, 'verify-email', user.id, VERIFY_TTL_SECONDS, { email: user.email });
  const base = config.APP_URL ?? config.publicUrl;
  const link = `${base.replace(/\/+$/, '')}/verify-email?token=${encodeURIComponent(token)}`;
  await enqueue(q, 'send_email', {
    to: user.email,
    subject: 'Confirm your e-mail address for Parley',
    text: `Hello,\n\nSomeone signed up for Parley with this address. To confirm it, open this link within three days:\n\n${link}\n\nIf it was not you, ignore this mail: nothing happens without the link.\n`,
  });
}

/**
 * Marks the user's e-mail verified when the address is still the one the link was issued for
 * (a user id that is not a uuid finds nobody); false when nothing matched.
 */
export async function markEmailVerified(q: Queryable, userId: string | null, email: string): Promise<boolean> {
  const row = await q.maybeOne(sql.type(z.object({ id: z.string() }))`
    update users set is_verified = true, updated_at = now()
    where id = ${userId} and email = ${email}
    returning id`);
  return row !== null;
}

/**
 * Refuses an access token (by `jti`) until it would have expired (`exp`, Unix seconds), and
 * prunes revocations of tokens that have expired since (nothing can present those any more).
 */
export async function revokeAccessToken(q: Queryable, token: { jti: string; exp: number }): Promise<void> {
  await q.query(sql.unsafe`
    insert into revoked_tokens (jti, expires_at) values (${token.jti}, to_timestamp(${token.exp}))
    on conflict (jti) do nothing`);
  await q.query(sql.unsafe`delete from revoked_tokens where expires_at < now()`);
}
