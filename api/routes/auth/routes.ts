/** Register, login, Google sign-in, logout, profile, e-mail verification. */
import { z } from '../../../lib/zod.ts';
import { sql } from '../../../core/adapters/postgres/db.ts';
import { HttpError, badRequest, serviceUnavailable, tooManyRequests, validationError } from '../../../core/errors.ts';
import { verifyPurposeToken } from '../../../core/domain/accounts/tokens.ts';
import { hashPassword, verifyPassword } from '../../../core/domain/accounts/passwords.ts';
import { GoogleKeysUnavailable, verifyGoogleIdToken, type GoogleIdentity } from '../../../core/adapters/google.ts';
import { beginLoginAttempt, loginFailed, loginSucceeded } from '../../../core/domain/accounts/login-throttle.ts';
import {
  VERIFY_RESEND_RATE_PER_ADDRESS,
  VERIFY_RESEND_RATE_PER_USER,
  endAllSessions,
  enqueueVerificationMail,
  findUserByEmail,
  findUserById,
  insertUser,
  markEmailVerified,
  revokeAccessToken,
  setPassword,
} from '../../../core/commands/accounts.ts';
import { googleSignIn } from '../../../core/commands/google-sign-in.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import {
  enqueuePasswordResetMail,
  PASSWORD_RESET_RATE_PER_ADDRESS,
  PASSWORD_RESET_RATE_PER_IP,
  PASSWORD_RESET_TTL_SECONDS,
  verifyPasswordResetToken,
} from '../../../core/commands/password-reset.ts';
import { takeRateAllowance } from '../../../core/domain/rate-windows.ts';
import { defineRoute } from '../../route.ts';
import { abilities } from '../../policies.ts';
import { clientAddress } from '../../middlewares/client-address.ts';
import { presentUser } from '../../presenters/user.ts';
import { businessColumns, businessRow, presentBusiness } from '../../presenters/business.ts';
import {
  changePasswordBody,
  googleBody,
  loginBody,
  loginResponse,
  meResponse,
  ownerProofBody,
  messageResponse,
  passwordResetBody,
  passwordResetConfirmBody,
  registerBody,
  tokenResponse,
  verifyEmailBody,
} from './schema.ts';
import { rooms } from '../../../core/events/bus.ts';
import { signInAnswer, tokenFor } from './sign-in.ts';
import { twoFactorState } from '../../../core/commands/two-factor.ts';
import twoFactorRoutes, { checkSecondFactor, confirmItIsTheOwner } from './two-factor.ts';

const tags = ['Authentication'];

/** What the first step of signing in says when two-factor is on (the contract's answer is unchanged for everyone else). */
const secondStepText =
  'With two-factor sign-in on, the answer is 200 `{two_factor_required: true, challenge_token, expires_in}` and no token: the token comes from POST /api/v1/auth/login/two-factor. See docs/decisions.md#two-factor-sign-in.';

export const register = defineRoute({
  method: 'post',
  path: '/api/v1/auth/register',
  summary: 'Create an account',
  description:
    'E-mail is trimmed and lower-cased. A verification mail is sent. An e-mail already registered gives 400 `Email already registered`. See docs/decisions.md#accounts-and-tokens.',
  tags,
  auth: 'none',
  body: registerBody,
  response: tokenResponse,
  errors: [400],
  handler: async ({ body, deps }) => {
    const passwordHash = await hashPassword(body.password, deps.config.BCRYPT_ROUNDS);
    const user = await runCommand(deps, async (tx) => {
      const created = await insertUser(tx, { email: body.email, fullName: body.full_name, passwordHash });
      if (!created) throw badRequest('Email already registered');
      await enqueueVerificationMail(tx, deps.config, created);
      return created;
    });
    return tokenFor(deps.config, user);
  },
});

export const login = defineRoute({
  method: 'post',
  path: '/api/v1/auth/login',
  summary: 'Sign in with e-mail and password',
  description:
    'Wrong e-mail or password: 401 `Incorrect email or password`. Ten failures for one e-mail from one address within 15 minutes: 429 with `Retry-After`, even for the right password. The address is the connecting peer, or behind TRUST_PROXY_HOPS proxies the one the outermost proxy saw; X-Forwarded-For entries a client adds itself are ignored. See docs/decisions.md#accounts-and-tokens and docs/decisions.md#rate-and-size-limits. ' +
    secondStepText,
  tags,
  auth: 'none',
  body: loginBody,
  response: loginResponse,
  errors: [401, 429],
  handler: async ({ body, deps, ctx }) => {
    const ip = clientAddress(ctx, deps.config.TRUST_PROXY_HOPS);
    const wait = await beginLoginAttempt(deps.db, body.email, ip, deps.config.LOGIN_MAX_FAILURES_PER_ADDRESS);
    if (wait > 0) throw tooManyRequests('Too many failed login attempts. Try again later.', wait);
    const user = await findUserByEmail(deps.db, body.email);
    const ok = await verifyPassword(body.password, user?.password_hash ?? null, deps.config.BCRYPT_ROUNDS);
    if (!user || !ok) {
      await loginFailed(deps.db);
      throw new HttpError(401, { detail: 'Incorrect email or password' });
    }
    await loginSucceeded(deps.db, body.email, ip);
    return signInAnswer(deps.config, user);
  },
});

export const google = defineRoute({
  method: 'post',
  path: '/api/v1/auth/google',
  summary: 'Sign in with a Google ID token',
  description:
    "Verifies the token against Google's keys, issuer, audience (GOOGLE_CLIENT_ID), expiry and `email_verified`. A new e-mail creates a verified account; a known Google account (by its `sub`) or a known e-mail signs in and is marked `is_google_account` and verified. Linking to an account whose e-mail was never verified takes back what whoever registered the address first could hold: its password, every token issued before (refused from now on, live connections closed) and the other members of a workspace it owns (removed; the owner invites again those they know). Invalid token: 401 `Invalid Google token`; not configured: 400; Google's keys unreachable (so no token can be judged): 503. See docs/decisions.md#accounts-and-tokens. " +
    'Linking an unverified account also turns its two-factor sign-in off (whoever set it up had not proven the address). ' +
    secondStepText,
  tags,
  auth: 'none',
  body: googleBody,
  response: loginResponse,
  errors: [400, 401, 503],
  handler: async ({ body, deps }) => {
    const clientId = deps.config.GOOGLE_CLIENT_ID;
    if (!clientId) throw badRequest('Google sign-in is not configured');
    let identity: GoogleIdentity | null;
    try {
      identity = await verifyGoogleIdToken(body.id_token, clientId, deps.config.GOOGLE_JWKS_URL);
    } catch (error) {
      if (!(error instanceof GoogleKeysUnavailable)) throw error;
      deps.logger.warn({ err: error.cause, jwks_url: deps.config.GOOGLE_JWKS_URL }, 'Google JWKS unavailable');
      throw serviceUnavailable('Google sign-in is temporarily unavailable');
    }
    if (!identity) throw new HttpError(401, { detail: 'Invalid Google token' });
    const signedIn = await runCommand(deps, (tx) => googleSignIn(tx, identity));
    const user = (await findUserById(deps.db, signedIn.userId))!;
    return signInAnswer(deps.config, { ...user, token_generation: signedIn.generation });
  },
});

export const logout = defineRoute({
  method: 'post',
  path: '/api/v1/auth/logout',
  summary: 'Revoke the current access token',
  description:
    "The token's `jti` is refused from now until the token would have expired, and live (Socket.IO) connections opened with it are closed. See docs/decisions.md#accounts-and-tokens.",
  tags,
  auth: 'user',
  response: messageResponse,
  handler: async ({ caller, deps }) => {
    await revokeAccessToken(deps.db, { jti: caller.jti, exp: caller.exp });
    // Sockets opened with this token stop receiving events now, not at its expiry.
    deps.events.disconnect({ rooms: [rooms.session(caller.jti)] });
    return { message: 'Logged out' };
  },
});

export const me = defineRoute({
  method: 'get',
  path: '/api/v1/auth/me',
  summary: 'The signed-in user, their business and role',
  description:
    'What a client reads after signing in (and on every start with a kept token) to know who it is and where to go: `user` (the account, ' +
    'with `is_verified`), `business` (the workspace the user is an active member of, or `null` before they create or join one), ' +
    '`onboarding_complete` (`true` exactly when `business` is not null: send the user to onboarding while it is `false`) and `team_role` ' +
    '(`owner`, `admin` or `agent` in that business, `null` without one) and `can`: every action of the policy table (api/policies.ts) with whether this caller may do it, which is what a client uses to decide what to show (e.g. `widgets.manage` for widget editing). ' +
    '`two_factor`: whether the user has two-factor sign-in on, their recovery codes left, whether their business requires it, and `setup_required` (required and not on: ' +
    'every route of the business answers 403 and `can` is all `false` but `team.leave` until it is set up; see docs/decisions.md#two-factor-sign-in). ' +
    'A missing, expired or revoked token: 401. See docs/decisions.md#accounts-and-tokens.',
  tags,
  auth: 'user',
  response: meResponse,
  handler: async ({ caller, deps }) => {
    const user = (await findUserById(deps.db, caller.userId))!;
    const twoFactor = await twoFactorState(deps.db, caller.userId);
    const business = caller.member
      ? await deps.db.maybeOne(sql.type(businessRow)`select ${businessColumns} from businesses b where b.id = ${caller.member.businessId}`)
      : null;
    return {
      user: presentUser(user),
      business: business ? presentBusiness(business) : null,
      onboarding_complete: business !== null,
      team_role: business ? caller.member!.role : null,
      can: abilities(business ? caller.member!.role : null, { twoFactorSetupRequired: twoFactor.setup_required }),
      two_factor: twoFactor,
    };
  },
});

export const sendVerification = defineRoute({
  method: 'post',
  path: '/api/v1/auth/verify-email/send',
  summary: 'Send (again) the e-mail verification link',
  description:
    'Mails a signed link valid for three days; without SMTP_URL the mail is written to the log. Already verified: 400. ' +
    `At most ${VERIFY_RESEND_RATE_PER_USER.limit} an hour per account and ${VERIFY_RESEND_RATE_PER_ADDRESS.limit} a day per address: 429 with \`Retry-After\`. ` +
    'The mail carries no user-written text (the address has not agreed to anything yet). See docs/decisions.md#accounts-and-tokens.',
  tags,
  auth: 'user',
  response: messageResponse,
  errors: [400, 429],
  handler: async ({ caller, deps }) => {
    await runCommand(deps, async (tx) => {
      const user = (await findUserById(tx, caller.userId))!;
      if (user.is_verified) throw badRequest('Email already verified');
      const wait = Math.max(
        await takeRateAllowance(tx, `verify-email:user:${user.id}`, VERIFY_RESEND_RATE_PER_USER),
        await takeRateAllowance(tx, `verify-email:address:${user.email}`, VERIFY_RESEND_RATE_PER_ADDRESS),
      );
      if (wait > 0) throw tooManyRequests('Too many verification e-mails. Try again later.', wait);
      await enqueueVerificationMail(tx, deps.config, user);
      return {};
    });
    return { message: 'Verification email sent' };
  },
});

export const confirmVerification = defineRoute({
  method: 'post',
  path: '/api/v1/auth/verify-email',
  summary: 'Confirm an e-mail address with the token from the link',
  description: "No bearer token needed: the link's token identifies the user. Invalid or expired: 400. See docs/decisions.md#accounts-and-tokens.",
  tags,
  auth: 'none',
  body: verifyEmailBody,
  response: messageResponse,
  errors: [400],
  handler: async ({ body, deps }) => {
    const verified = await verifyPurposeToken(deps.config.jwtSecret, 'verify-email', body.token);
    const updated = verified
      ? await markEmailVerified(deps.db, z.uuid().safeParse(verified.sub).success ? verified.sub : null, String(verified.claims.email ?? ''))
      : false;
    if (!updated) throw badRequest('Invalid or expired verification token');
    return { message: 'Email verified' };
  },
});

export const requestPasswordReset = defineRoute({
  method: 'post',
  path: '/api/v1/auth/password-reset',
  summary: 'Mail a password-reset link',
  description:
    'Always 202 with the same body, whether or not an account has this address (the answer tells nobody who has an account). ' +
    `For an account, a single-use link to \`APP_URL/reset-password?token=…\` valid ${PASSWORD_RESET_TTL_SECONDS / 60} minutes is mailed. ` +
    `At most ${PASSWORD_RESET_RATE_PER_ADDRESS.limit} requests an hour per address and ${PASSWORD_RESET_RATE_PER_IP.limit} per client address: 429 with \`Retry-After\`. See docs/decisions.md#accounts-and-tokens.`,
  tags,
  auth: 'none',
  body: passwordResetBody,
  response: messageResponse,
  successStatus: 202,
  errors: [429],
  handler: async ({ body, deps, ctx }) => {
    const ip = clientAddress(ctx, deps.config.TRUST_PROXY_HOPS);
    await runCommand(deps, async (tx) => {
      const wait = Math.max(
        await takeRateAllowance(tx, `password-reset:address:${body.email}`, PASSWORD_RESET_RATE_PER_ADDRESS),
        await takeRateAllowance(tx, `password-reset:ip:${ip}`, PASSWORD_RESET_RATE_PER_IP),
      );
      if (wait > 0) throw tooManyRequests('Too many password reset requests. Try again later.', wait);
      const user = await findUserByEmail(tx, body.email);
      if (user) await enqueuePasswordResetMail(tx, deps.config, user);
      return {};
    });
    return { message: 'If an account uses this address, a link to choose a new password is on its way.' };
  },
});

export const confirmPasswordReset = defineRoute({
  method: 'post',
  path: '/api/v1/auth/password-reset/confirm',
  summary: 'Choose a new password with the token from the reset link',
  description:
    "No bearer token needed: the link's token identifies the account. The password follows the registration rules (422). " +
    'A token that is invalid, expired or already used (every password change and sign-out-everywhere voids it): 400. ' +
    "With two-factor sign-in on, the account's second factor is asked before anything changes (a mailbox is not a second factor): without `code` or `recovery_code` the answer is 422 " +
    '`missing` at `code` and nothing changes (the link stays usable); a wrong one is 400 `Invalid two-factor code`, throttled as the second step of signing in (429). ' +
    'Then the password is set, the e-mail counts as verified (the link reached it), every other session ends (earlier tokens are refused, live connections closed), ' +
    'and the answer is a new access token. See docs/decisions.md#accounts-and-tokens and docs/decisions.md#two-factor-sign-in.',
  tags,
  auth: 'none',
  body: passwordResetConfirmBody,
  response: tokenResponse,
  errors: [400, 429],
  handler: async ({ body, deps, ctx }) => {
    // Who the link is for, and their second factor, before anything changes.
    const owner = await verifyPasswordResetToken(deps.db, deps.config, body.token);
    if (!owner) throw badRequest('This password reset link is invalid, expired or already used');
    const account = (await findUserById(deps.db, owner))!;
    if (account.two_factor_enabled) {
      if (body.code === undefined && body.recovery_code === undefined) {
        throw validationError([
          {
            loc: ['body', 'code'],
            msg: 'Two-factor authentication is on for this account: enter the code from your authenticator app (or a recovery code)',
            type: 'missing',
          },
        ]);
      }
      if (!(await checkSecondFactor(deps, ctx, owner, body))) throw badRequest('Invalid two-factor code');
    }
    const passwordHash = await hashPassword(body.password, deps.config.BCRYPT_ROUNDS);
    const changed = await runCommand(deps, async (tx) => {
      const userId = await verifyPasswordResetToken(tx, deps.config, body.token);
      if (userId !== owner) throw badRequest('This password reset link is invalid, expired or already used');
      return { userId, ...(await setPassword(tx, userId, passwordHash, { verified: true })) };
    });
    return tokenFor(deps.config, { id: changed.userId, token_generation: changed.generation });
  },
});

export const changePassword = defineRoute({
  method: 'post',
  path: '/api/v1/auth/password',
  summary: "Change the signed-in user's password",
  description:
    '`current_password` must be right (400 `Incorrect password`, not 401: the session itself is valid; failures count toward the login lockout, 429 with `Retry-After`). ' +
    'An account without a password (signed up with Google) sets one through the reset link instead: 400. ' +
    'Every session ends, this one included; the answer is a new access token for the caller. See docs/decisions.md#accounts-and-tokens.',
  tags,
  auth: 'user',
  body: changePasswordBody,
  response: tokenResponse,
  errors: [400, 429],
  handler: async ({ body, caller, deps, ctx }) => {
    const ip = clientAddress(ctx, deps.config.TRUST_PROXY_HOPS);
    const user = (await findUserById(deps.db, caller.userId))!;
    if (!user.password_hash) throw badRequest('This account has no password yet: use "Forgot password?" to set one');
    const wait = await beginLoginAttempt(deps.db, user.email, ip, deps.config.LOGIN_MAX_FAILURES_PER_ADDRESS);
    if (wait > 0) throw tooManyRequests('Too many failed attempts. Try again later.', wait);
    if (!(await verifyPassword(body.current_password, user.password_hash, deps.config.BCRYPT_ROUNDS))) {
      await loginFailed(deps.db);
      // 400, not 401: the session is fine (a 401 would tell a client its token is gone).
      throw badRequest('Incorrect password');
    }
    await loginSucceeded(deps.db, user.email, ip);
    const passwordHash = await hashPassword(body.new_password, deps.config.BCRYPT_ROUNDS);
    // The caller's own live connection is spared: this tab carries on with the new token (it reconnects with it).
    const changed = await runCommand(deps, async (tx) => ({ ...(await setPassword(tx, user.id, passwordHash)), keepRooms: [rooms.session(caller.jti)] }));
    return tokenFor(deps.config, { id: user.id, token_generation: changed.generation });
  },
});

export const logoutAll = defineRoute({
  method: 'post',
  path: '/api/v1/auth/logout-all',
  summary: 'Sign out everywhere',
  description:
    'Ends every session of the user, this one included: every access token issued so far is refused from now on, on every node, and live connections are closed. ' +
    'Needs exactly one of `password`, `code` or `recovery_code` (the last two with two-factor on; 422 at `password` without any, 400 when wrong, failures count toward the lockout: 429): ' +
    'a stolen session alone must not sign the owner out everywhere. An account without a password and without two-factor ends every session by setting a password through the reset link. ' +
    'See docs/decisions.md#accounts-and-tokens.',
  tags,
  auth: 'user',
  body: ownerProofBody,
  response: messageResponse,
  errors: [400, 429],
  handler: async ({ body, caller, deps, ctx }) => {
    await confirmItIsTheOwner(deps, ctx, caller.userId, body);
    await runCommand(deps, (tx) => endAllSessions(tx, caller.userId));
    return { message: 'Signed out everywhere' };
  },
});

export default [
  register,
  login,
  google,
  logout,
  me,
  sendVerification,
  confirmVerification,
  requestPasswordReset,
  confirmPasswordReset,
  changePassword,
  logoutAll,
  ...twoFactorRoutes,
];
