/** The caller's plan: its limits and the business's usage against each. */
import { z } from '../../../lib/zod.ts';
import { planOf, sellsPlans, usageOf } from '../../../core/domain/plans.ts';
import { defineRoute } from '../../route.ts';

export const planResponse = z
  .object({
    plan: z.enum(['Free', 'Mini', 'Pro']),
    billing: z.boolean().openapi({
      description:
        'Whether this server sells plans (Stripe configured). False: the operator sets every plan (PLAN_WITHOUT_BILLING, `parley business plan`) and there is no upgrade to buy.',
    }),
    limits: z.object({
      agents: z.number().int().openapi({ description: 'Additional agents besides the owner' }),
      channels: z.number().int().openapi({ description: 'Channels besides the built-in webchat channel (Free: widget channels only)' }),
      kb_articles: z.number().int(),
      max_messages_per_month: z.number().int().openapi({ description: 'Agent and AI messages per UTC calendar month' }),
      ai_auto_reply: z.boolean(),
    }),
    usage: z.object({
      agents: z.number().int().openapi({ description: 'Members besides the owner' }),
      channels: z.number().int().openapi({ description: 'Channels besides the built-in webchat channel' }),
      kb_articles: z.number().int(),
      messages_this_month: z.number().int(),
    }),
  })
  .openapi('PlanUsage');

export const readPlan = defineRoute({
  method: 'get',
  path: '/api/v1/business/plan',
  summary: "The business's plan, its limits and current usage",
  description: 'Any member may read it. Caller without a business: 404. See docs/decisions.md#businesses-plans-and-limits and docs/decisions.md#billing.',
  tags: ['Business'],
  auth: 'user',
  policy: 'plan.read',
  response: planResponse,
  errors: [404],
  handler: async ({ member, deps }) => {
    const { businessId } = member;
    const [plan, usage] = await Promise.all([planOf(deps.db, businessId), usageOf(deps.db, businessId)]);
    return {
      plan: plan.name,
      billing: sellsPlans(deps.config),
      limits: {
        agents: plan.maxAdditionalAgents,
        channels: plan.maxChannels,
        kb_articles: plan.maxKbArticles,
        max_messages_per_month: plan.maxMessagesPerMonth,
        ai_auto_reply: plan.aiAutoReply,
      },
      usage,
    };
  },
});
