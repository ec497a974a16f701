/**
 * What a successful first step of signing in answers: the contract's access token, or, when the
 * user has two-factor sign-in on, a short-lived challenge for the second step and no token
 * (docs/decisions.md#two-factor-sign-in). Password login, Google sign-in and the password-reset
 * link all end here, so none of them is a way around the second step.
 */
import { issueAccessToken, issuePurposeToken, verifyPurposeToken } from '../../../core/domain/accounts/tokens.ts';
import type { Config } from '../../../core/config.ts';

export const CHALLENGE_PURPOSE = 'two-factor-login';
/** Five minutes to type the code (a fresh challenge is a new password or Google sign-in away). */
export const CHALLENGE_TTL_SECONDS = 5 * 60;

/** An access token of the user's current token generation (older generations are refused). */
export async function tokenFor(config: Config, user: { id: string; token_generation: number }) {
  return { access_token: await issueAccessToken(config.jwtSecret, user.id, config.ACCESS_TOKEN_TTL, user.token_generation), token_type: 'bearer' as const };
}

/** The token, or the challenge when two-factor is on. The challenge is bound to the token generation: ending every session voids it too. */
export async function signInAnswer(config: Config, user: { id: string; token_generation: number; two_factor_enabled: boolean }) {
  if (!user.two_factor_enabled) return tokenFor(config, user);
  const challenge = await issuePurposeToken(config.jwtSecret, CHALLENGE_PURPOSE, user.id, CHALLENGE_TTL_SECONDS, { gen: String(user.token_generation) });
  return { two_factor_required: true as const, challenge_token: challenge, expires_in: CHALLENGE_TTL_SECONDS };
}

/** The user id and token generation a challenge was issued for; null when invalid or expired. */
export async function readChallenge(config: Config, token: string): Promise<{ userId: string; generation: number } | null> {
  const verified = await verifyPurposeToken(config.jwtSecret, CHALLENGE_PURPOSE, token);
  if (!verified || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(verified.sub)) return null;
  const generation = Number(verified.claims.gen);
  if (!Number.isInteger(generation)) return null;
  return { userId: verified.sub, generation };
}
