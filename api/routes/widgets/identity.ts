/** The widget's identity-verification secret: shown to and rotated by the owner and admins (docs/decisions.md#website-widget-and-visitors). */
import { z } from '../../../lib/zod.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import { readIdentitySecret, rotateIdentitySecret } from '../../../core/commands/widget-identity.ts';
import { actorOf } from '../../../core/domain/platform/audit.ts';
import { defineRoute } from '../../route.ts';
import { widgetIdParams } from './schema.ts';

const identitySecretSchema = z
  .object({
    widget_id: z.uuid(),
    secret: z.string().nullable().openapi({
      description:
        'Sign each identified visitor with it on your server: `user_hash = hex(HMAC-SHA256(secret, external_id or email))`. Null until made (rotate)',
    }),
  })
  .openapi('WidgetIdentitySecret');

const docs =
  "The widget's page passes an identified visitor (`identity` of POST /api/v1/visitor/sessions, `Parley.identify` in widget.js) with that hash; see docs/features.md#identity-verification. " +
  "Another business's widget: 404. See docs/decisions.md#website-widget-and-visitors.";

export const readSecret = defineRoute({
  method: 'get',
  path: '/api/v1/widget/:widget_id/identity-secret',
  summary: "The widget's identity verification secret",
  description: `Widgets made before identity verification have none until it is rotated (null). ${docs}`,
  tags: ['Widgets'],
  auth: 'user',
  policy: 'widget_identity.manage',
  params: widgetIdParams,
  response: identitySecretSchema,
  errors: [400, 404],
  handler: async ({ params, member, deps, ctx }) => {
    ctx.set('Cache-Control', 'no-store');
    return {
      widget_id: params.widget_id,
      secret: await readIdentitySecret(deps.db, deps.config.encryptionKey, { businessId: member.businessId, widgetId: params.widget_id }),
    };
  },
});

export const rotateSecret = defineRoute({
  method: 'post',
  path: '/api/v1/widget/:widget_id/identity-secret/rotate',
  summary: 'Make a new identity verification secret for the widget',
  description: `The old secret stops working at once: hashes signed with it are refused (401) from now on. Recorded in the audit log. ${docs}`,
  tags: ['Widgets'],
  auth: 'user',
  policy: 'widget_identity.manage',
  params: widgetIdParams,
  response: identitySecretSchema,
  errors: [400, 404],
  handler: async ({ params, caller, member, deps, ctx }) => {
    const { secret } = await runCommand(deps, (tx) =>
      rotateIdentitySecret(tx, deps.config.encryptionKey, { businessId: member.businessId, widgetId: params.widget_id, actor: actorOf(caller) }),
    );
    ctx.set('Cache-Control', 'no-store');
    return { widget_id: params.widget_id, secret };
  },
});

export default [readSecret, rotateSecret];
