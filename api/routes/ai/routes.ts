/** AI agent settings of the business: auto-reply on or off. */
import { z } from '../../../lib/zod.ts';
import { sql } from '../../../core/adapters/postgres/db.ts';
import { setAiAutoReply } from '../../../core/commands/businesses.ts';
import { defineRoute } from '../../route.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import { settingsChanged } from '../../../core/events/domain.ts';

const tags = ['AI'];

const aiSettings = z
  .object({
    auto_reply_enabled: z.boolean().openapi({ description: 'Whether the AI agent answers inbound customer messages (Mini and Pro only)' }),
  })
  .openapi('AiSettings');

export const readAiSettings = defineRoute({
  method: 'get',
  path: '/api/v1/ai/settings',
  summary: "The business's AI agent settings",
  description: 'Any member may read them. Caller without a business: 400. See docs/decisions.md#knowledge-base-and-ai.',
  tags,
  auth: 'user',
  policy: 'ai_settings.read',
  response: aiSettings,
  errors: [400],
  handler: async ({ member, deps }) => {
    const { businessId } = member;
    return deps.db.one(sql.type(aiSettings)`
      select ai_auto_reply_enabled as auto_reply_enabled from businesses where id = ${businessId}`);
  },
});

export const updateAiSettings = defineRoute({
  method: 'put',
  path: '/api/v1/ai/settings',
  summary: 'Turn AI auto-reply on or off (owner or admin)',
  description:
    'Owner or admin only; an agent gets 403 (it changes how the whole business answers customers, like the other business settings). ' +
    'Enabling on a plan without AI auto-reply (Free): 402 `feature_not_available`/`ai_auto_reply`. Disabling is always allowed. ' +
    'Caller without a business: 400. See docs/decisions.md#knowledge-base-and-ai.',
  tags,
  auth: 'user',
  policy: 'ai_settings.update',
  body: aiSettings,
  response: aiSettings,
  errors: [400, 402, 403],
  handler: async ({ body, member, deps }) => {
    const { businessId } = member;
    const changed = await runCommand(deps, async (tx) => {
      const before = await tx.oneFirst(sql.type(z.object({ on: z.boolean() }))`select ai_auto_reply_enabled as on from businesses where id = ${businessId}`);
      const enabled = await setAiAutoReply(tx, businessId, body.auto_reply_enabled);
      return { enabled, domainEvents: [settingsChanged(businessId, 'ai', { auto_reply_enabled: before }, { auto_reply_enabled: enabled })] };
    });
    const { enabled } = changed;
    return { auto_reply_enabled: enabled };
  },
});

export default [readAiSettings, updateAiSettings];
