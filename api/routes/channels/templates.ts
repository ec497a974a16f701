/** A WhatsApp channel's approved message templates (issue 19 item 4): what an agent may send outside the 24-hour window. */
import { z } from '../../../lib/zod.ts';
import { listTemplates } from '../../../core/domain/whatsapp-templates.ts';
import { intParam } from '../../validation.ts';
import { defineRoute } from '../../route.ts';
import { channelIdParams } from './schema.ts';

export const templateSchema = z
  .object({
    name: z.string(),
    language: z.string().openapi({ description: "Meta's language code, e.g. `en_US`" }),
    category: z.string().openapi({ description: '`UTILITY`, `MARKETING` or `AUTHENTICATION`' }),
    status: z.string().openapi({ description: 'Always `APPROVED`: only approved templates are kept' }),
    body: z.string().openapi({ description: 'The body text with its `{{1}}`, `{{2}}` … placeholders' }),
    parameter_count: z.number().int().openapi({ description: 'How many `parameters` a send must give' }),
    synced_at: z.string().openapi({ description: 'When the list was last read from Meta' }),
  })
  .openapi('WhatsAppTemplate');

const cursor = z
  .string()
  .max(600)
  .transform((value, ctx) => {
    try {
      const [name, language] = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as unknown[];
      if (typeof name === 'string' && typeof language === 'string') return { name, language };
    } catch {
      // fall through
    }
    ctx.addIssue({ code: 'custom', message: 'Not a cursor from X-Next-Cursor' });
    return z.NEVER;
  })
  .openapi({ type: 'string', description: 'The `X-Next-Cursor` of the previous page' });

export const listChannelTemplates = defineRoute({
  method: 'get',
  path: '/api/v1/channels/:channel_id/templates',
  summary: 'Approved WhatsApp templates of a channel',
  description:
    "The approved message templates of the channel's WhatsApp Business Account (config `business_account_id`), by name then language. " +
    'Read from Meta on first use and cached; `refresh=true` reads them again. Any member may list (sending one is a reply). ' +
    '`limit` 1–200 (default 100); when more exist, `X-Next-Cursor` holds the cursor for `after`. ' +
    "400 for a channel that is not WhatsApp, has no `business_account_id`, or when Meta refuses the listing (its reason); 404 for another business's channel. See docs/decisions.md#whatsapp-window-and-templates.",
  tags: ['Channels'],
  auth: 'user',
  policy: 'conversations.reply',
  params: channelIdParams,
  query: z.object({
    refresh: z
      .enum(['true', 'false'])
      .optional()
      .transform((v) => v === 'true'),
    limit: intParam({ min: 1, max: 200 }).default(100).openapi({ default: 100 }),
    after: cursor.optional(),
  }),
  response: z.array(templateSchema),
  errors: [400, 404],
  handler: async ({ params, query, member, deps, ctx }) => {
    const page = await listTemplates(deps.db, deps.config, {
      businessId: member.businessId,
      channelId: params.channel_id,
      refresh: query.refresh,
      limit: query.limit,
      after: query.after ?? null,
    });
    if (page.next) ctx.set('X-Next-Cursor', Buffer.from(JSON.stringify([page.next.name, page.next.language])).toString('base64url'));
    return page.templates;
  },
});

export default [listChannelTemplates];
