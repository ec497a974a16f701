/** An entry of a conversation's activity history (core/reads/conversation-events.ts), as the API shows it. */
import { z } from '../../lib/zod.ts';

/** An activity row as core/reads/conversation-events.ts reads it. */
export const activityRow = z.object({
  id: z.string(),
  seq: z.coerce.number(),
  type: z.string(),
  actor_type: z.string(),
  actor_id: z.string().nullable(),
  actor_name: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
  at: z.string(),
  assignee_name: z.string().nullable(),
  team_name: z.string().nullable(),
});
export type ActivityRow = z.infer<typeof activityRow>;

export const activitySchema = z
  .object({
    id: z.uuid().describe('The domain event id (time-ordered)'),
    type: z.string().describe('conversation.assigned, conversation.resolved, conversation.snoozed, conversation.labelled, handoff.requested, …'),
    at: z.string().describe('When it happened (ISO 8601 UTC)'),
    actor: z.object({
      type: z.enum(['member', 'customer', 'ai', 'system', 'api_key']),
      id: z.string().nullable().describe("The member's user id, the customer's or the API key's id; null for the AI and the system"),
      name: z.string().nullable().describe('As shown: the member, the API key and its maker, or an automation (Auto-assignment…)'),
    }),
    data: z
      .record(z.string(), z.unknown())
      .describe(
        'What changed: `assignee_id`/`assignee_name` (assigned; null: unassigned), `until` (snoozed), `added`/`removed` label names (labelled), `priority`, `team_id`/`team_name`, `reason` (handoff)',
      ),
  })
  .openapi('ConversationActivity');
export type Activity = z.infer<typeof activitySchema>;

export function presentActivity(row: ActivityRow): Activity {
  const data: Record<string, unknown> = { ...row.data };
  if (row.type === 'conversation.assigned') data.assignee_name = row.assignee_name;
  if (row.type === 'conversation.team_changed') data.team_name = row.team_name;
  return {
    id: row.id,
    type: row.type,
    at: row.at,
    actor: { type: row.actor_type as Activity['actor']['type'], id: row.actor_id, name: row.actor_name },
    data,
  };
}
