/**
 * Each conversation's `sla` and `csat` (core/presenters/service-levels.ts), for a page of
 * conversations in one query however many there are. Part of the conversation reads
 * (core/reads/conversations.ts).
 */
import { z } from '../../lib/zod.ts';
import { prepared, sql, type Queryable } from '../adapters/postgres/db.ts';
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
const extrasRow = z.object({ conversation_id: z.string(), ...slaExtrasFields });
type SlaExtras = Omit<z.infer<typeof extrasRow>, 'conversation_id'>;

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

/** Each conversation's `sla` and `csat`, keyed by id. */
export async function serviceLevelsByConversation(q: Queryable, rows: readonly SlaColumns[]): Promise<Map<string, ServiceLevels>> {
  if (rows.length === 0) return new Map();
  const businesses = [...new Set(rows.map((r) => r.business_id))];
  const found = await q.any(
    prepared(sql.type(extrasRow)`
    select ids.id as conversation_id, ${slaExtrasColumns}
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
    where ids.business_id = any(${sql.array(businesses, 'uuid')})`),
  );
  const byId = new Map(found.map((f) => [f.conversation_id, f]));
  return new Map(rows.map((r) => [r.id, serviceLevelsOf(r, byId.get(r.id))]));
}

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
