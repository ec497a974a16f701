/**
 * The second step of signing in (two-factor on): password login, Google sign-in and the
 * password-reset link all answer either the access token or a challenge; a challenge waits
 * here until the sign-in page asks for the code (docs/decisions.md#two-factor-sign-in).
 */
import { signal } from '@preact/signals';
import { navigate } from '../router.ts';
import { storeToken } from '../session-token.ts';
import { me, signedIn } from '../session.ts';
import type { TwoFactorChallenge } from '../types.ts';

export type SignInAnswer = { access_token: string } | TwoFactorChallenge;

/** The pending challenge and where to go once signed in; null when no second step is waiting. */
export const pendingChallenge = signal<{ token: string; next: string } | null>(null);

/** Signs in with a token, or (two-factor on) shows the sign-in page's code step. */
export async function afterFirstStep(answer: SignInAnswer, next = '/app/inbox'): Promise<void> {
  if ('access_token' in answer) {
    pendingChallenge.value = null;
    return signedIn(answer.access_token, next);
  }
  // A reset link may be opened while signed in: that session has just ended anyway.
  storeToken(null);
  me.value = null;
  pendingChallenge.value = { token: answer.challenge_token, next };
  navigate('/app/signin', { replace: true });
}

/** What the user typed: a 6-digit code (spaces allowed, as apps show `123 456`) or a recovery code. */
export function secondFactor(typed: string): { code: string } | { recovery_code: string } {
  const compact = typed.replace(/\s/g, '');
  return /^\d{6}$/.test(compact) ? { code: compact } : { recovery_code: typed.trim() };
}
