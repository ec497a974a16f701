/**
 * Password reset by e-mail. The link's token is a signed, expiring value (purpose
 * `password-reset`) that names the account and the token generation it was issued in: setting
 * a password moves the generation on (accounts.ts setPassword), so a link works once, and so
 * does ending every session. Nothing secret is stored; the mail holds no text a user wrote.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import type { Config } from '../config.ts';
import { issuePurposeToken, verifyPurposeToken } from '../domain/accounts/tokens.ts';
import type { RateLimit } from '../domain/rate-windows.ts';
import { enqueue } from '../jobs.ts';

/** How long a reset link works, in seconds. */
export const PASSWORD_RESET_TTL_SECONDS = 3600;
/** Reset mails per address, and requests per client address, per hour. */
export const PASSWORD_RESET_RATE_PER_ADDRESS: RateLimit = { limit: 3, windowSeconds: 3600 };
export const PASSWORD_RESET_RATE_PER_IP: RateLimit = { limit: 20, windowSeconds: 3600 };

/** Enqueues the reset mail for the account in the caller's transaction. */
export async function enqueuePasswordResetMail(q: Queryable, config: Config, user: { id: string; email: string; token_generation: number }): Promise<void> {
  const token = await issuePurposeToken(config.jwtSecret, 'password-reset', user.id, PASSWORD_RESET_TTL_SECONDS, {
    email: user.email,
    gen: String(user.token_generation),
  });
  const base = (config.APP_URL ?? config.publicUrl).replace(/\/+$/, '');
  await enqueue(q, 'send_email', {
    to: user.email,
    subject: 'Reset your Parley password',
    text:
      `Someone asked to reset the password of the Parley account for this address.\n\n` +
      `To choose a new password, open this link within an hour (it works once):\n\n${base}/reset-password?token=${encodeURIComponent(token)}\n\n` +
      `If it was not you, ignore this mail: your password stays as it is.\n`,
  });
}

/** The account a reset token names, when it is valid, unexpired and unused (same address, same token generation); else null. */
export async function verifyPasswordResetToken(q: Queryable, config: Config, token: string): Promise<string | null> {
  const verified = await verifyPurposeToken(config.jwtSecret, 'password-reset', token);
  if (!verified || !z.uuid().safeParse(verified.sub).success) return null;
  const row = await q.maybeOne(sql.type(z.object({ id: z.string() }))`
    select id from users
    where id = ${verified.sub} and email = ${String(verified.claims.email ?? '')}
      and token_generation::text = ${String(verified.claims.gen ?? '')}
    for update`);
  return row?.id ?? null;
}
