/**
 * Two-factor sign-in (TOTP, RFC 6238) for one's own account: the second step of signing in,
 * enrolment, turning it off, new recovery codes. See docs/decisions.md#two-factor-sign-in.
 */
import type { Context } from 'koa';
import { HttpError, badRequest, tooManyRequests } from '../../../core/errors.ts';
import { verifyPassword } from '../../../core/domain/accounts/passwords.ts';
import {
  beginLoginAttempt,
  beginSecondStepAttempt,
  loginFailed,
  loginSucceeded,
  secondStepKey,
  TWO_FACTOR_MAX_FAILURES_PER_ACCOUNT,
  LOGIN_MAX_FAILURES,
} from '../../../core/domain/accounts/login-throttle.ts';
import { base32Encode, otpauthUri } from '../../../core/domain/accounts/totp.ts';
import { findUserById } from '../../../core/commands/accounts.ts';
import {
  beginTwoFactorSetup,
  disableTwoFactor,
  enableTwoFactor,
  regenerateRecoveryCodes,
  twoFactorState,
  useSecondFactor,
  type SecondFactor,
} from '../../../core/commands/two-factor.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import { rooms } from '../../../core/events/bus.ts';
import type { Deps } from '../../../core/deps.ts';
import { defineRoute } from '../../route.ts';
import { clientAddress } from '../../middlewares/client-address.ts';
import {
  messageResponse,
  recoveryCodesResponse,
  tokenResponse,
  twoFactorConfirmBody,
  twoFactorEnableBody,
  twoFactorLoginBody,
  twoFactorSetupResponse,
} from './schema.ts';
import { readChallenge, tokenFor, CHALLENGE_TTL_SECONDS } from './sign-in.ts';

const tags = ['Authentication'];

const throttleText =
  `Wrong codes count like wrong passwords: ${LOGIN_MAX_FAILURES} for one account from one address within 15 minutes, the address's budget across accounts, ` +
  `and ${TWO_FACTOR_MAX_FAILURES_PER_ACCOUNT} for one account from anywhere: 429 with \`Retry-After\`, even for a right code.`;

/**
 * Checks a second factor against the throttle: 429 when locked, false for a wrong (or reused)
 * code, true when it was right (and is now used up).
 */
export async function checkSecondFactor(deps: Deps, ctx: Context, userId: string, factor: SecondFactor): Promise<boolean> {
  const ip = clientAddress(ctx, deps.config.TRUST_PROXY_HOPS);
  const wait = await beginSecondStepAttempt(deps.db, userId, ip, deps.config.LOGIN_MAX_FAILURES_PER_ADDRESS);
  if (wait > 0) throw tooManyRequests('Too many failed attempts. Try again later.', wait);
  const used = await useSecondFactor(deps.db, deps.config.encryptionKey, userId, factor);
  if (!used) {
    await loginFailed(deps.db);
    return false;
  }
  await loginSucceeded(deps.db, secondStepKey(userId), ip);
  return true;
}

/**
 * Proof that the caller is the account's owner and not only someone holding one of its sessions
 * (docs/decisions.md#two-factor-sign-in): the password (checked and throttled as POST
 * /auth/password checks it), or with two-factor on a current code or a recovery code (throttled
 * as the second step is). 400 when wrong; an account without a password and without two-factor
 * has nothing to prove it with and sets a password through the reset link first (400 saying so).
 * What asks for it: turning two-factor on and off, new recovery codes, new API keys and signing
 * out everywhere.
 */
export async function confirmItIsTheOwner(deps: Deps, ctx: Context, userId: string, body: { password?: string } & SecondFactor): Promise<void> {
  const user = (await findUserById(deps.db, userId))!;
  if (body.password === undefined) {
    if (!user.two_factor_enabled) throw badRequest('Two-factor authentication is off: confirm with your password');
    if (!(await checkSecondFactor(deps, ctx, userId, body))) throw badRequest('Invalid code');
    return;
  }
  if (!user.password_hash) {
    throw badRequest(
      user.two_factor_enabled
        ? 'This account has no password: confirm with a code from your authenticator app'
        : 'This account has no password yet: set one with "Forgot password?" (the link is mailed to you) and confirm with it',
    );
  }
  const ip = clientAddress(ctx, deps.config.TRUST_PROXY_HOPS);
  const wait = await beginLoginAttempt(deps.db, user.email, ip, deps.config.LOGIN_MAX_FAILURES_PER_ADDRESS);
  if (wait > 0) throw tooManyRequests('Too many failed attempts. Try again later.', wait);
  if (!(await verifyPassword(body.password, user.password_hash, deps.config.BCRYPT_ROUNDS))) {
    await loginFailed(deps.db);
    throw badRequest('Incorrect password');
  }
  await loginSucceeded(deps.db, user.email, ip);
}

/** Proof for turning two-factor off or making new recovery codes: as confirmItIsTheOwner, with two-factor on. */
async function confirmIdentity(deps: Deps, ctx: Context, userId: string, body: { password?: string } & SecondFactor): Promise<void> {
  const user = (await findUserById(deps.db, userId))!;
  if (!user.two_factor_enabled) throw badRequest('Two-factor authentication is off');
  await confirmItIsTheOwner(deps, ctx, userId, body);
}

export const loginSecondStep = defineRoute({
  method: 'post',
  path: '/api/v1/auth/login/two-factor',
  summary: 'Second step of signing in: a code from the authenticator app, or a recovery code',
  description:
    'Takes the `challenge_token` from POST /api/v1/auth/login, /auth/google or /auth/password-reset/confirm (valid ' +
    `${CHALLENGE_TTL_SECONDS / 60} minutes, and void once every session of the account is ended) with exactly one of \`code\` (the current 6-digit TOTP code; ` +
    'the codes of the 30-second step before and after are accepted too, each code only once) and `recovery_code` (each works once). ' +
    'Answers the access token. An invalid or expired challenge: 401 `Invalid or expired sign-in challenge`; a wrong, reused or stale code: 401 `Invalid two-factor code`. ' +
    `${throttleText} See docs/decisions.md#two-factor-sign-in.`,
  tags,
  auth: 'none',
  body: twoFactorLoginBody,
  response: tokenResponse,
  errors: [401, 429],
  handler: async ({ body, deps, ctx }) => {
    const challenge = await readChallenge(deps.config, body.challenge_token);
    const user = challenge ? await findUserById(deps.db, challenge.userId) : null;
    if (!challenge || !user || user.token_generation !== challenge.generation || !user.two_factor_enabled) {
      throw new HttpError(401, { detail: 'Invalid or expired sign-in challenge: sign in again' });
    }
    if (!(await checkSecondFactor(deps, ctx, user.id, body))) throw new HttpError(401, { detail: 'Invalid two-factor code' });
    return tokenFor(deps.config, user);
  },
});

export const setup = defineRoute({
  method: 'post',
  path: '/api/v1/auth/two-factor/setup',
  summary: 'Start setting up two-factor sign-in: a new secret for an authenticator app',
  description:
    'Answers a new random secret (160 bits, base32) and its `otpauth://` URI (SHA-1, 6 digits, 30 seconds: what every authenticator app reads, usually as a QR code). ' +
    'It is kept encrypted and turns nothing on until POST /api/v1/auth/two-factor/enable confirms a code from it; calling setup again replaces it. ' +
    'The secret is in no other answer, ever. Already on: 400 (turn it off first). Allowed while the business requires two-factor and it is not set up yet. See docs/decisions.md#two-factor-sign-in.',
  tags,
  auth: 'user',
  response: twoFactorSetupResponse,
  errors: [400],
  handler: async ({ caller, deps }) => {
    const { secret } = await runCommand(deps, async (tx) => ({ secret: await beginTwoFactorSetup(tx, deps.config.encryptionKey, caller.userId) }));
    return { secret: base32Encode(secret), otpauth_uri: otpauthUri(secret, caller.email) };
  },
});

export const enable = defineRoute({
  method: 'post',
  path: '/api/v1/auth/two-factor/enable',
  summary: 'Turn two-factor sign-in on with a code from the new secret',
  description:
    'Confirms that the authenticator app has the secret from setup: a code of it turns two-factor on (that code is then used) and the answer carries ten recovery codes, ' +
    'shown this once (only their hashes are kept). From now on signing in (password, Google or a password-reset link) asks for a code. ' +
    "Needs the account's `password` too (a stolen session alone must not put a second factor the owner does not have in front of their account): wrong: 400, " +
    'and failures count toward the login lockout (429). An account without a password (Google) sets one through the reset link first: 400. ' +
    'No setup started, already on, or a wrong code: 400. Other sessions stay signed in (POST /api/v1/auth/logout-all ends them). See docs/decisions.md#two-factor-sign-in.',
  tags,
  auth: 'user',
  body: twoFactorEnableBody,
  response: recoveryCodesResponse,
  errors: [400, 429],
  handler: async ({ body, caller, deps, ctx }) => {
    await confirmItIsTheOwner(deps, ctx, caller.userId, { password: body.password });
    const before = await twoFactorState(deps.db, caller.userId);
    const enabled = await runCommand(deps, async (tx) => {
      const { recoveryCodes } = await enableTwoFactor(tx, deps.config.encryptionKey, caller.userId, body.code);
      // A member who had to set it up gets the business's live events again: their connections
      // reconnect (and now join the business), this tab's too.
      return { recoveryCodes, ...(before.setup_required ? { disconnectRooms: [rooms.user(caller.userId)] } : {}) };
    });
    return { recovery_codes: enabled.recoveryCodes };
  },
});

export const disable = defineRoute({
  method: 'post',
  path: '/api/v1/auth/two-factor/disable',
  summary: 'Turn two-factor sign-in off',
  description:
    'Needs exactly one of `password` (accounts with one), `code` (a current TOTP code) or `recovery_code` (one lost device: sign in with a recovery code, turn it off, set it up again). ' +
    'Wrong: 400. ' +
    throttleText +
    ' The secret and every recovery code are forgotten. ' +
    'Allowed while the business requires two-factor: the member is then asked to set it up again before using the business (its routes answer 403). ' +
    'Off already: 400. See docs/decisions.md#two-factor-sign-in.',
  tags,
  auth: 'user',
  body: twoFactorConfirmBody,
  response: messageResponse,
  errors: [400, 429],
  handler: async ({ body, caller, deps, ctx }) => {
    await confirmIdentity(deps, ctx, caller.userId, body);
    await runCommand(deps, async (tx) => {
      await disableTwoFactor(tx, caller.userId);
      const after = await twoFactorState(tx, caller.userId);
      // Under the business's requirement the user's live connections lose the business's events.
      return after.setup_required ? { disconnectRooms: [rooms.user(caller.userId)] } : {};
    });
    return { message: 'Two-factor authentication is off' };
  },
});

export const recoveryCodes = defineRoute({
  method: 'post',
  path: '/api/v1/auth/two-factor/recovery-codes',
  summary: 'Make new recovery codes (the earlier ones stop working)',
  description:
    'Needs exactly one of `password`, `code` or `recovery_code`, as turning it off does (400 when wrong; ' +
    throttleText +
    '). ' +
    'Answers ten new codes, shown this once; every earlier code stops working. Two-factor off: 400. See docs/decisions.md#two-factor-sign-in.',
  tags,
  auth: 'user',
  body: twoFactorConfirmBody,
  response: recoveryCodesResponse,
  errors: [400, 429],
  handler: async ({ body, caller, deps, ctx }) => {
    await confirmIdentity(deps, ctx, caller.userId, body);
    const made = await runCommand(deps, (tx) => regenerateRecoveryCodes(tx, caller.userId));
    return { recovery_codes: made.recoveryCodes };
  },
});

export default [loginSecondStep, setup, enable, disable, recoveryCodes];
