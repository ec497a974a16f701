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

export const passwordResetConfirmBody = z.object({ token: z.string().min(1), password });

export const changePasswordBody = z.object({ current_password: z.string().min(1), new_password: password });

export const tokenResponse = z
  .object({ access_token: z.string(), token_type: z.literal('bearer') })
  .openapi('AccessToken');

export const meResponse = z
  .object({
    user: userSchema,
    business: z.union([businessSchema, z.null()]), // not .nullable(): see core/presenters/conversation.ts
    onboarding_complete: z.boolean(),
    team_role: z.enum(['owner', 'admin', 'agent']).nullable(),
    can: z
      .record(z.enum(actions as [Action, ...Action[]]), z.boolean())
      .describe('Every action of the policy table and whether this caller may do it now (all `false` without a business). Clients decide what to show from it, never from `team_role`.'),
  })
  .openapi('Profile');

export { messageReply as messageResponse } from '../../openapi-replies.ts';
