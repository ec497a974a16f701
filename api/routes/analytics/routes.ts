/** The analytics overview: the last 30 days of the caller's business. */
import { z } from '../../../lib/zod.ts';
import { analyticsOverview } from '../../../core/domain/analytics.ts';
import { defineRoute } from '../../route.ts';
import { visibleTo } from '../../../core/domain/team-visibility.ts';

export const overviewSchema = z
  .object({
    total_conversations: z.number().int().openapi({ description: 'Conversations created in the last 30 days' }),
    avg_first_response: z
      .number()
      .int()
      .openapi({ description: "Seconds from creation to the first agent reply, mean over the window's conversations that have one, rounded; 0 when none" }),
    resolution_rate: z.number().openapi({ description: '100 × resolved (has `resolved_at`) / total over the window, two decimals; 0 when there are none' }),
    active_agents: z.number().int().openapi({ description: 'Members of every role (owner included) whose status is `live` or `away` now' }),
    channel_mix: z.record(z.string(), z.number()).openapi({
      description: "Channel type → percent of the window's conversations, two decimals summing to exactly 100 (largest remainder); `{}` when none",
    }),
    top_agents: z.array(z.object({ name: z.string(), resolved: z.number().int() })).openapi({
      description:
        'At most 5 current members by conversations of the window they resolved (`resolved_by`), most first, ties by name; members with none are left out',
    }),
    quick_pulse_open: z.number().int().openapi({ description: 'Conversations with status `open` now, of any age' }),
    median_handle_time: z.number().int().openapi({
      description: "Seconds from creation to resolution: the mean (as the spec defines it) over the window's resolved conversations, rounded; 0 when none",
    }),
    customer_happiness: z.number().int().openapi({ description: 'Fixed value 98, as the contract says; the real figure is `csat_score`' }),
    csat_score: z.number().nullable().openapi({
      description:
        'CSAT: percent of the ratings given in the last 30 days that are 4 or 5 (two decimals); null when none. See docs/decisions.md#sla-targets-and-csat',
    }),
    csat_average: z.number().nullable().openapi({ description: 'CSAT: mean rating 1–5 over the same ratings (two decimals); null when none' }),
    csat_responses: z.number().int().openapi({ description: 'CSAT ratings given in the last 30 days' }),
  })
  .openapi('AnalyticsOverview');

export const overview = defineRoute({
  method: 'get',
  path: '/api/v1/analytics/overview',
  summary: 'Analytics of the last 30 days',
  description:
    'The window is conversations whose `created_at` is within the last 30 days (except `quick_pulse_open` and `active_agents`, which are about now). ' +
    'Any member may read it; under team-scoped visibility an agent’s figures count only the conversations they may see (docs/decisions.md#teams-and-team-scoped-visibility). Caller without a business: 400. See docs/decisions.md#analytics.',
  tags: ['Analytics'],
  auth: 'user',
  policy: 'analytics.read',
  response: overviewSchema,
  errors: [400],
  handler: async ({ member, deps }) => {
    return analyticsOverview(deps.db, member.businessId, member.teamScoped ? visibleTo(member) : undefined);
  },
});

export default [overview];
