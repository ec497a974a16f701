/**
 * What a conversation shows of its SLA and its CSAT survey (docs/decisions.md#sla-targets-and-csat);
 * read for a page of conversations by core/reads/service-levels.ts.
 */
import { z } from '../../lib/zod.ts';

/** A target due within this many minutes is "due soon" (the inbox's mark and `?sla=due_soon`). */
export const SLA_DUE_SOON_MINUTES = 60;

const target = z.enum(['first_response', 'next_response', 'resolution']);

export const slaBreachSchema = z
  .object({
    target,
    due_at: z.string().openapi({ description: "The target's due time it passed" }),
    breached_at: z.string().openapi({ description: 'When the breach was recorded (and `sla_breached` sent)' }),
  })
  .openapi('SlaBreach');

export const conversationSlaSchema = z
  .object({
    policy_id: z.uuid(),
    policy_name: z.string(),
    first_response_due_at: z.string().nullable().openapi({ description: 'When the first agent reply is due (null: the policy sets no such target)' }),
    next_response_due_at: z
      .string()
      .nullable()
      .openapi({ description: 'While a customer waits for an answer after an agent reply: when the next agent reply is due' }),
    resolution_due_at: z.string().nullable().openapi({ description: 'When resolution is due' }),
    due_at: z.string().nullable().openapi({ description: 'The soonest due time of a target not met yet; null when nothing is due (met, or resolved)' }),
    state: z.enum(['breached', 'due_soon', 'on_track', 'none']).openapi({
      description: `Now: \`breached\` (a target not met is past due), \`due_soon\` (one is due within ${SLA_DUE_SOON_MINUTES} minutes), \`on_track\`, or \`none\` (nothing due)`,
    }),
    breaches: z.array(slaBreachSchema).openapi({ description: 'Every breach recorded, oldest first (a target met late is one too)' }),
  })
  .openapi('ConversationSla', {
    description: 'Due times under the SLA policy the conversation follows (by its labels, else its channel, else the catch-all policy)',
  });
export type ConversationSla = z.infer<typeof conversationSlaSchema>;

export const conversationCsatSchema = z
  .object({
    question: z.string(),
    asked_at: z.string(),
    rating: z.number().int().nullable().openapi({ description: '1–5; null until the customer rates' }),
    comment: z.string().nullable(),
    rated_at: z.string().nullable(),
  })
  .openapi('ConversationCsat', { description: 'The satisfaction survey sent when the conversation was resolved (asked once)' });
export type ConversationCsat = z.infer<typeof conversationCsatSchema>;

/** The conversation columns an SLA presentation needs. */
export type SlaColumns = {
  id: string;
  business_id: string;
  sla_policy_id: string | null;
  sla_first_response_due_at: string | null;
  sla_next_response_due_at: string | null;
  sla_resolution_due_at: string | null;
  sla_due_at: string | null;
};

export type ServiceLevels = { sla: ConversationSla | null; csat: ConversationCsat | null };
