/** Users: create, find, sign in, verify, sign out. Shared by the auth routes and anything that invites or verifies. */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { enqueue } from '../jobs.ts';
import { issuePurposeToken } from '../domain/accounts/tokens.ts';
import type { Config } from '../config.ts';

export const accountRow = z.object({
  id: z.string(),
  email: z.string(),
  full_name: z.string(),
  password_hash: z.string().nullable(),
  is_verified: z.boolean(),
  is_google_account: z.boolean(),
  avatar_url: z.string().nullable(),
});
export type AccountRow = z.infer<typeof accountRow>;

const accountColumns = sql.fragment`id, email, full_name, password_hash, is_verified, is_google_account, avatar_url`;

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
 * Marks an existing account as signed in with Google (the e-mail is now proven). A password
 * set while the address was still unverified may belong to whoever registered the address
 * first (account pre-hijacking), so it is dropped; a verified account keeps its password.
 */
export async function linkGoogleAccount(q: Queryable, userId: string, google: { sub: string; picture: string | null }): Promise<void> {
  await q.query(sql.unsafe`
    update users set is_google_account = true, is_verified = true,
           password_hash = case when is_verified then password_hash else null end,
           google_sub = coalesce(google_sub, ${google.sub}),
           avatar_url = coalesce(avatar_url, ${google.picture}), updated_at = now()
    where id = ${userId}`);
}

/** Inserts a user; null when the e-mail (or the Google account) is already registered. */
export async function insertUser(
  q: Queryable,
  user: { email: string; fullName: string; passwordHash: string | null; isVerified?: boolean; isGoogle?: boolean; googleSub?: string; avatarUrl?: string | null },
): Promise<AccountRow | null> {
  return q.maybeOne(sql.type(accountRow)`
    insert into users (email, full_name, password_hash, is_verified, is_google_account, google_sub, avatar_url)
    values (${user.email}, ${user.fullName}, ${user.passwordHash}, ${user.isVerified ?? false}, ${user.isGoogle ?? false},
            ${user.googleSub ?? null}, ${user.avatarUrl ?? null})
    on conflict do nothing
    returning ${accountColumns}`);
}

const VERIFY_TTL_SECONDS = 3 * 24 * 3600;

/** Enqueues the verification mail (a signed link valid for three days) in the caller's transaction. */
export async function enqueueVerificationMail(q: Queryable, config: Config, user: { id: string; email: string; full_name: string }): Promise<void> {
  const token = await issuePurposeToken(config.jwtSecret, 'verify-email', user.id, VERIFY_TTL_SECONDS, { email: user.email });
  const base = config.APP_URL ?? config.publicUrl;
  const link = `${base.replace(/\/+$/, '')}/verify-email?token=${encodeURIComponent(token)}`;
  await enqueue(q, 'send_email', {
    to: user.email,
    subject: 'Confirm your e-mail address for Parley',
    text: `Hi ${user.full_name},\n\nConfirm your e-mail address by opening this link within three days:\n\n${link}\n\nIf you did not sign up for Parley, ignore this mail.\n`,
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
