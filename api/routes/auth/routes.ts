/** Register, login, Google sign-in, logout, profile, e-mail verification. */
import { z } from '../../../core/zod.ts';
import { sql, type Queryable } from '../../../core/adapters/postgres/db.ts';
import { HttpError, badRequest, serviceUnavailable, tooManyRequests } from '../../../core/errors.ts';
import { issueAccessToken, verifyPurposeToken } from '../../../core/domain/accounts/tokens.ts';
import { hashPassword, verifyPassword } from '../../../core/domain/accounts/passwords.ts';
import { GoogleKeysUnavailable, verifyGoogleIdToken, type GoogleIdentity } from '../../../core/adapters/google.ts';
import { beginLoginAttempt, loginFailed, loginSucceeded } from '../../../core/domain/accounts/login-throttle.ts';
import { enqueueVerificationMail, findUserByEmail, findUserByGoogleSub, findUserById, insertUser, linkGoogleAccount, markEmailVerified, revokeAccessToken } from '../../../core/commands/accounts.ts';
import { defineRoute } from '../../route.ts';
import { abilities } from '../../policies.ts';
import { clientAddress } from '../../middlewares/client-address.ts';
import { presentUser } from '../../presenters/user.ts';
import { businessColumns, businessRow, presentBusiness } from '../../presenters/business.ts';
import { googleBody, loginBody, meResponse, messageResponse, registerBody, tokenResponse, verifyEmailBody } from './schema.ts';
import type { Config } from '../../../core/config.ts';
import { rooms } from '../../../core/events/bus.ts';

const tags = ['Authentication'];

async function tokenFor(config: Config, userId: string) {
  return { access_token: await issueAccessToken(config.jwtSecret, userId, config.ACCESS_TOKEN_TTL), token_type: 'bearer' as const };
}

export const register = defineRoute({
  method: 'post',
  path: '/api/v1/auth/register',
  summary: 'Create an account',
  description: 'E-mail is trimmed and lower-cased. A verification mail is sent. An e-mail already registered gives 400 `Email already registered`. See docs/decisions.md#accounts-and-tokens.',
  tags,
  auth: 'none',
  body: registerBody,
  response: tokenResponse,
  errors: [400],
  handler: async ({ body, deps }) => {
    const passwordHash = await hashPassword(body.password, deps.config.BCRYPT_ROUNDS);
    const user = await deps.db.transaction(async (tx) => {
      const created = await insertUser(tx, { email: body.email, fullName: body.full_name, passwordHash });
      if (!created) throw badRequest('Email already registered');
      await enqueueVerificationMail(tx, deps.config, created);
      return created;
    });
    return tokenFor(deps.config, user.id);
  },
});

export const login = defineRoute({
  method: 'post',
  path: '/api/v1/auth/login',
  summary: 'Sign in with e-mail and password',
  description:
    'Wrong e-mail or password: 401 `Incorrect email or password`. Ten failures for one e-mail from one address within 15 minutes: 429 with `Retry-After`, even for the right password. The address is the connecting peer, or behind TRUST_PROXY_HOPS proxies the one the outermost proxy saw; X-Forwarded-For entries a client adds itself are ignored. See docs/decisions.md#accounts-and-tokens and docs/decisions.md#rate-and-size-limits.',
  tags,
  auth: 'none',
  body: loginBody,
  response: tokenResponse,
  errors: [401, 429],
  handler: async ({ body, deps, ctx }) => {
    const ip = clientAddress(ctx, deps.config.TRUST_PROXY_HOPS);
    const wait = await beginLoginAttempt(deps.db, body.email, ip);
    if (wait > 0) throw tooManyRequests('Too many failed login attempts. Try again later.', wait);
    const user = await findUserByEmail(deps.db, body.email);
    const ok = await verifyPassword(body.password, user?.password_hash ?? null, deps.config.BCRYPT_ROUNDS);
    if (!user || !ok) {
      await loginFailed(deps.db, body.email, ip);
      throw new HttpError(401, { detail: 'Incorrect email or password' });
    }
    await loginSucceeded(deps.db, body.email, ip);
    return tokenFor(deps.config, user.id);
  },
});

export const google = defineRoute({
  method: 'post',
  path: '/api/v1/auth/google',
  summary: 'Sign in with a Google ID token',
  description:
    'Verifies the token against Google\'s keys, issuer, audience (GOOGLE_CLIENT_ID), expiry and `email_verified`. A new e-mail creates a verified account; a known Google account (by its `sub`) or a known e-mail signs in and is marked `is_google_account` and verified. Linking to an account whose e-mail was never verified drops its password (whoever set it never proved the address). Invalid token: 401 `Invalid Google token`; not configured: 400; Google\'s keys unreachable (so no token can be judged): 503. See docs/decisions.md#accounts-and-tokens.',
  tags,
  auth: 'none',
  body: googleBody,
  response: tokenResponse,
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
    // Google's `sub` is the stable identity (the address of a Google account can change); the
    // e-mail links a Google sign-in to an account registered with a password.
    const findExisting = async (tx: Queryable) => (await findUserByGoogleSub(tx, identity.sub)) ?? (await findUserByEmail(tx, identity.email));
    const userId = await deps.db.transaction(async (tx) => {
      const existing = await findExisting(tx);
      if (existing) {
        await linkGoogleAccount(tx, existing.id, identity);
        return existing.id;
      }
      const created = await insertUser(tx, {
        email: identity.email,
        fullName: (identity.name?.trim() || identity.email.split('@')[0]).slice(0, 100),
        passwordHash: null,
        isVerified: true,
        isGoogle: true,
        googleSub: identity.sub,
        avatarUrl: identity.picture,
      });
      if (created) return created.id;
      // Created concurrently by another request: sign that account in.
      const raced = await findExisting(tx);
      if (!raced) throw new Error('Google account neither inserted nor found');
      return raced.id;
    });
    return tokenFor(deps.config, userId);
  },
});

export const logout = defineRoute({
  method: 'post',
  path: '/api/v1/auth/logout',
  summary: 'Revoke the current access token',
  description: 'The token\'s `jti` is refused from now until the token would have expired, and live (Socket.IO) connections opened with it are closed. See docs/decisions.md#accounts-and-tokens.',
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
    'A missing, expired or revoked token: 401. See docs/decisions.md#accounts-and-tokens.',
  tags,
  auth: 'user',
  response: meResponse,
  handler: async ({ caller, deps }) => {
    const user = (await findUserById(deps.db, caller.userId))!;
    const business = caller.member
      ? await deps.db.maybeOne(sql.type(businessRow)`select ${businessColumns} from businesses b where b.id = ${caller.member.businessId}`)
      : null;
    return {
      user: presentUser(user),
      business: business ? presentBusiness(business) : null,
      onboarding_complete: business !== null,
      team_role: business ? caller.member!.role : null,
      can: abilities(business ? caller.member!.role : null),
    };
  },
});

export const sendVerification = defineRoute({
  method: 'post',
  path: '/api/v1/auth/verify-email/send',
  summary: 'Send (again) the e-mail verification link',
  description: 'Mails a signed link valid for three days; without SMTP_URL the mail is written to the log. Already verified: 400. See docs/decisions.md#accounts-and-tokens.',
  tags,
  auth: 'user',
  response: messageResponse,
  errors: [400],
  handler: async ({ caller, deps }) => {
    const user = (await findUserById(deps.db, caller.userId))!;
    if (user.is_verified) throw badRequest('Email already verified');
    await enqueueVerificationMail(deps.db, deps.config, user);
    return { message: 'Verification email sent' };
  },
});

export const confirmVerification = defineRoute({
  method: 'post',
  path: '/api/v1/auth/verify-email',
  summary: 'Confirm an e-mail address with the token from the link',
  description: 'No bearer token needed: the link\'s token identifies the user. Invalid or expired: 400. See docs/decisions.md#accounts-and-tokens.',
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

export default [register, login, google, logout, me, sendVerification, confirmVerification];
