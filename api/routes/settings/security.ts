/** The business's security settings: whether every member must sign in with two factors. */
import { z } from '../../../lib/zod.ts';
import { securitySettings, setRequireTwoFactor } from '../../../core/commands/two-factor.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import { actorOf, recordAudit } from '../../../core/domain/platform/audit.ts';
import { defineRoute } from '../../route.ts';

const tags = ['Settings'];

export const securitySettingsSchema = z
  .object({
    require_two_factor: z.boolean().openapi({ description: 'Every member must have two-factor sign-in on before using the business' }),
    members_without_two_factor: z.number().int().openapi({ description: 'Active members (the owner included) who have not turned it on' }),
  })
  .openapi('SecuritySettings');

export const updateSecurityBody = z.object({ require_two_factor: z.boolean() });

export const readSecurity = defineRoute({
  method: 'get',
  path: '/api/v1/settings/security',
  summary: 'Security settings',
  description:
    'Whether the business requires two-factor sign-in of every member, and how many members do not have it yet. Caller without a business: 404. See docs/decisions.md#two-factor-sign-in.',
  tags,
  auth: 'user',
  policy: 'security_settings.read',
  response: securitySettingsSchema,
  errors: [404],
  handler: async ({ member, deps }) => securitySettings(deps.db, member.businessId),
});

export const updateSecurity = defineRoute({
  method: 'patch',
  path: '/api/v1/settings/security',
  summary: 'Require two-factor sign-in of every member (owner)',
  description:
    "Turning it on needs the owner's own two-factor (400 otherwise). From then on a member without it is asked to set it up: every route of the business answers them 403 " +
    "(`Your business requires two-factor authentication: …`), GET /auth/me says `two_factor.setup_required`, their live connections are closed and reopen without the business's events; " +
    'they may still use their own account (/auth/*, two-factor setup included) and leave the team. API keys keep working. Recorded in the audit log. See docs/decisions.md#two-factor-sign-in.',
  tags,
  auth: 'user',
  policy: 'security_settings.update',
  body: updateSecurityBody,
  response: securitySettingsSchema,
  errors: [400, 403, 404],
  handler: async ({ body, caller, member, deps }) => {
    await runCommand(deps, async (tx) => {
      const done = await setRequireTwoFactor(tx, member.businessId, caller.userId, body.require_two_factor);
      await recordAudit(tx, {
        businessId: member.businessId,
        actor: actorOf(caller),
        action: 'business.updated',
        targetType: 'business',
        targetId: member.businessId,
        details: { changed: { require_two_factor: body.require_two_factor } },
      });
      return done;
    });
    return securitySettings(deps.db, member.businessId);
  },
});

export default [readSecurity, updateSecurity];
