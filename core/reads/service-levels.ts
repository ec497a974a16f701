/**
 * Each conversation's `sla` and `csat` (core/presenters/service-levels.ts): the columns the
 * conversation reads' one extras statement selects for them, and what they make of a row
 * (core/reads/conversations.ts).
 */
import { z } from '../../lib/zod.ts';
import { sql } from '../adapters/postgres/db.ts';
import {
  conversationCsatSchema,
  slaBreachSchema,
  SLA_DUE_SOON_MINUTES,
  type ConversationSla,
  type ServiceLevels,
  type SlaColumns,
} from '../presenters/service-levels.ts';

export const slaExtrasFields = {
  policy_name: z.string().nullable(),
  breaches: z.array(slaBreachSchema),
  csat: conversationCsatSchema.nullable(),
  now: z.string(),
};
type SlaExtras = z.infer<z.ZodObject<typeof slaExtrasFields>>;

/**
 * The columns that make each conversation's `sla` and `csat` (slaExtrasFields), for rows `ids`
 * with columns id, business_id and policy_id: also part of the one-statement list read
 * (core/reads/conversations.ts).
 */
export const slaExtrasColumns = sql.fragment`
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
      now() as now`;

/** A conversation's `sla` and `csat` from its row and its slaExtrasColumns (none: the business's row was not found). */
export function serviceLevelsOf(r: SlaColumns, extra: SlaExtras | undefined): ServiceLevels {
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
  return { sla, csat: extra?.csat ?? null };
}
