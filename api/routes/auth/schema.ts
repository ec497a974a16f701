import { z } from '../../../lib/zod.ts';
import { userSchema } from '../../presenters/user.ts';
import { businessSchema } from '../../presenters/business.ts';
import { MAX_PASSWORD_BYTES } from '../../../core/domain/accounts/passwords.ts';
import { actions, type Action } from '../../policies.ts';
import { displayName } from '../../validation.ts';

const email = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email({ message: 'value is not a valid email address' }))
  .openapi({ type: 'string', format: 'email', example: 'ada@example.com' });

/** 8–72 bytes: bcrypt ignores everything past 72 bytes, so longer passwords are refused. */
const password = z
  .string()
  .min(8, 'String should have at least 8 characters')
  .refine((v) => Buffer.byteLength(v, 'utf8') <= MAX_PASSWORD_BYTES, { message: 'Password may be at most 72 bytes', abort: true })
  .openapi({ minLength: 8, description: '8 to 72 bytes' });

export const registerBody = z.object({
  email,
  full_name: displayName(),
  password,
});

export const loginBody = z.object({
  email,
  password: z.string().min(1),
});

export const googleBody = z.object({ id_token: z.string().min(1) });

export const verifyEmailBody = z.object({ token: z.string().min(1) });

export const passwordResetBody = z.object({ email });

export const changePasswordBody = z.object({ current_password: z.string().min(1), new_password: password });

export const tokenResponse = z.object({ access_token: z.string(), token_type: z.literal('bearer') }).openapi('AccessToken');

/** A TOTP code (spaces allowed, as apps show `123 456`) or a recovery code. */
const totpCode = z.string().trim().max(20).openapi({ example: '123456', description: 'The 6-digit code the authenticator app shows now' });
const recoveryCode = z.string().trim().max(40).openapi({ example: 'abcd-efgh-ijkl-mnop', description: 'One of the recovery codes (each works once)' });

/** Exactly one of the keys, or 422 naming the body (the other checks of each key still run). */
const exactlyOne =
  <T extends Record<string, unknown>>(keys: (keyof T & string)[], message: string) =>
  (value: T, ctx: z.RefinementCtx) => {
    if (keys.filter((k) => value[k] !== undefined).length !== 1) ctx.addIssue({ code: 'custom', message, path: [] });
  };

/** The reset link's token and the new password; with two-factor on, one of `code` and `recovery_code` too (checked before anything changes). */
export const passwordResetConfirmBody = z
  .object({ token: z.string().min(1), password, code: totpCode.optional(), recovery_code: recoveryCode.optional() })
  .superRefine((value, ctx) => {
    if (value.code !== undefined && value.recovery_code !== undefined)
      ctx.addIssue({ code: 'custom', message: 'Send at most one of code and recovery_code', path: [] });
  });

export const twoFactorChallenge = z
  .object({
    two_factor_required: z.literal(true),
    challenge_token: z.string().openapi({ description: 'Send it with a code to POST /api/v1/auth/login/two-factor; valid `expires_in` seconds' }),
    expires_in: z.number().int(),
  })
  .openapi('TwoFactorChallenge');

/** The contract's token answer, or (two-factor on) the second step's challenge: no token yet. */
export const loginResponse = z.union([tokenResponse, twoFactorChallenge]);

export const twoFactorLoginBody = z
  .object({ challenge_token: z.string().min(1).max(2000), code: totpCode.optional(), recovery_code: recoveryCode.optional() })
  .superRefine(exactlyOne(['code', 'recovery_code'], 'Send exactly one of code and recovery_code'));

export const twoFactorSetupResponse = z
  .object({
    secret: z.string().openapi({ description: 'Base32 (RFC 4648), for typing into an app by hand' }),
    otpauth_uri: z.string().openapi({ description: '`otpauth://totp/…`, shown as a QR code: SHA-1, 6 digits, 30-second period' }),
  })
  .openapi('TwoFactorSetup');

/** The account's password, when an action must know it is the owner and not only a session (docs/decisions.md#two-factor-sign-in). */
const accountPassword = z.string().min(1).max(200).openapi({ description: "The account's current password" });

export const twoFactorEnableBody = z.object({ code: totpCode, password: accountPassword });

/**
 * Proof that the caller is the account's owner, not only a session of it: exactly one of the
 * password, a current code or a recovery code (the last two with two-factor on). For new API
 * keys and signing out everywhere; a missing proof is 422 at `password`.
 */
export const ownerProofFields = { password: accountPassword.optional(), code: totpCode.optional(), recovery_code: recoveryCode.optional() };
export const ownerProof = <T extends { password?: string; code?: string; recovery_code?: string }>(value: T, ctx: z.RefinementCtx) => {
  const given = (['password', 'code', 'recovery_code'] as const).filter((k) => value[k] !== undefined).length;
  if (given === 0)
    ctx.addIssue({
      code: 'custom',
      message: 'Confirm with your password (or a code from your authenticator app)',
      path: ['password'],
      params: { type: 'missing' },
    });
  else if (given > 1) ctx.addIssue({ code: 'custom', message: 'Send exactly one of password, code and recovery_code', path: [] });
};
export const ownerProofBody = z.object(ownerProofFields).superRefine(ownerProof);

export const recoveryCodesResponse = z
  .object({ recovery_codes: z.array(z.string()).openapi({ description: 'Shown this once: only their hashes are kept' }) })
  .openapi('RecoveryCodes');

/** Proof it is the user, for turning two-factor off or making new recovery codes: the password, or a current code. */
export const twoFactorConfirmBody = z
  .object({ password: z.string().min(1).max(200).optional(), code: totpCode.optional(), recovery_code: recoveryCode.optional() })
  .superRefine(exactlyOne(['password', 'code', 'recovery_code'], 'Send exactly one of password, code and recovery_code'));

export const twoFactorStatus = z
  .object({
    enabled: z.boolean(),
    recovery_codes_left: z.number().int(),
    required_by_business: z.boolean().openapi({ description: "The user's business requires two-factor of every member" }),
    setup_required: z
      .boolean()
      .openapi({ description: 'Required but not on: every route of the business answers 403 until it is set up (or the user leaves)' }),
  })
  .openapi('TwoFactorStatus');

export const meResponse = z
  .object({
    user: userSchema,
    business: z.union([businessSchema, z.null()]), // not .nullable(): see core/presenters/conversation.ts
    onboarding_complete: z.boolean(),
    team_role: z.enum(['owner', 'admin', 'agent']).nullable(),
    can: z
      .record(z.enum(actions as [Action, ...Action[]]), z.boolean())
      .describe(
        'Every action of the policy table and whether this caller may do it now (all `false` without a business). Clients decide what to show from it, never from `team_role`.',
      ),
    two_factor: twoFactorStatus,
  })
  .openapi('Profile');

export { messageReply as messageResponse } from '../../openapi-replies.ts';
