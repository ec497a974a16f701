/**
 * What a conversation shows of its SLA and its CSAT survey (docs/decisions.md#sla-targets-and-csat),
 * read for a page of conversations in two queries however many there are.
 */
import { z } from '../../lib/zod.ts';
import { sql, type Queryable } from '../adapters/postgres/db.ts';

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

const extrasRow = z.object({
  conversation_id: z.string(),
  policy_name: z.string().nullable(),
  breaches: z.array(slaBreachSchema),
  csat: conversationCsatSchema.nullable(),
  now: z.string(),
});

/** Each conversation's `sla` and `csat`, keyed by id. */
export async function serviceLevelsByConversation(q: Queryable, rows: readonly SlaColumns[]): Promise<Map<string, ServiceLevels>> {
  const out = new Map<string, ServiceLevels>();
  if (rows.length === 0) return out;
  const businesses = [...new Set(rows.map((r) => r.business_id))];
  const found = await q.any(sql.type(extrasRow)`
    select ids.id as conversation_id,
      (select p.name from sla_policies p where p.business_id = ids.business_id and p.id = ids.policy_id) as policy_name,
      coalesce((select json_agg(json_build_object(
          'target', b.target,
          'due_at', to_char(b.due_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'breached_at', to_char(b.breached_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) order by b.breached_at, b.target)
        from sla_breaches b where b.business_id = ids.business_id and b.conversation_id = ids.id), '[]') as breaches,
      (select json_build_object('question', v.question, 'rating', v.rating, 'comment', v.comment,
          'asked_at', to_char(v.asked_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'rated_at', to_char(v.rated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
        from csat_surveys v where v.business_id = ids.business_id and v.conversation_id = ids.id) as csat,
      now() as now
    from unnest(${sql.array(
      rows.map((r) => r.id),
      'uuid',
    )}, ${sql.array(
      rows.map((r) => r.business_id),
      'uuid',
    )}, ${sql.array(
      rows.map((r) => r.sla_policy_id),
      'uuid',
    )}) as ids(id, business_id, policy_id)
    where ids.business_id = any(${sql.array(businesses, 'uuid')})`);
  const byId = new Map(found.map((f) => [f.conversation_id, f]));
  for (const r of rows) {
    const extra = byId.get(r.id);
    const now = extra ? Date.parse(extra.now) : Date.now();
    let sla: ConversationSla | null = null;
    if (r.sla_policy_id && extra?.policy_name) {
      const due = r.sla_due_at ? Date.parse(r.sla_due_at) : null;
      const state = due === null ? 'none' : due <= now ? 'breached' : due - now <= SLA_DUE_SOON_MINUTES * 60_000 ? 'due_soon' : 'on_track';
      sla = {
        policy_id: r.sla_policy_id,
        policy_name: extra.policy_name,
        first_response_due_at: r.sla_first_response_due_at,
        next_response_due_at: r.sla_next_response_due_at,
        resolution_due_at: r.sla_resolution_due_at,
        due_at: r.sla_due_at,
        state,
        breaches: extra.breaches,
      };
    }
    out.set(r.id, { sla, csat: extra?.csat ?? null });
  }
  return out;
}
