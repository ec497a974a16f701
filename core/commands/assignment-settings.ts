/**
 * Auto-assignment settings of a business (one assignment_settings row; none: off, capacity 10)
 * and the per-agent capacity overrides (team_members.max_open). A change arms the auto_assign
 * job, so turning it on or raising a capacity lets waiting conversations flow at once.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { notFound } from '../errors.ts';
import { settingsChanged, type DomainEventInput } from '../events/domain.ts';
import type { LiveEvent } from '../events/catalogue.ts';
import { everyAgent, hiddenFrom } from '../domain/team-visibility-loss.ts';

export const DEFAULT_MAX_OPEN_PER_AGENT = 10;

const agentRow = z.object({
  member_id: z.string(),
  user_id: z.string(),
  full_name: z.string(),
  role: z.string(),
  status: z.string(),
  max_open: z.number().nullable(),
  open_conversations: z.number(),
});

export type AssignmentSettings = {
  enabled: boolean;
  max_open_per_agent: number;
  /** Team-scoped visibility (core/domain/team-visibility.ts); default false. */
  team_visibility: boolean;
  /** Every active member: their override (null: the business's) and their open + pending assigned conversations. */
  agents: z.infer<typeof agentRow>[];
};

export async function loadAssignmentSettings(q: Queryable, businessId: string): Promise<AssignmentSettings> {
  const settings = await q.maybeOne(sql.type(z.object({ enabled: z.boolean(), max_open_per_agent: z.number(), team_visibility: z.boolean() }))`
    select enabled, max_open_per_agent, team_visibility from assignment_settings where business_id = ${businessId}`);
  const agents = await q.any(sql.type(agentRow)`
    select tm.id as member_id, tm.user_id, u.full_name, tm.role, tm.status, tm.max_open,
           (select count(*) from conversations c
            where c.business_id = ${businessId} and c.assignee_id = tm.user_id and c.status in ('open', 'pending'))::int as open_conversations
    from team_members tm join users u on u.id = tm.user_id
    where tm.business_id = ${businessId} and tm.is_active
    order by tm.agent_number`);
  return {
    enabled: settings?.enabled ?? false,
    max_open_per_agent: settings?.max_open_per_agent ?? DEFAULT_MAX_OPEN_PER_AGENT,
    team_visibility: settings?.team_visibility ?? false,
    agents: [...agents],
  };
}

export type AssignmentChanges = {
  enabled?: boolean;
  max_open_per_agent?: number;
  team_visibility?: boolean;
  /** Overrides to set; `max_open: null` goes back to the business's capacity, 0 keeps the member out of auto-assignment. */
  agents?: Array<{ member_id: string; max_open: number | null }>;
};

/**
 * Applies the changes (404 `Team member not found` for a member id not of this business: nothing
 * is changed then). Switching team-scoped visibility on narrows every agent's view:
 * `conversation_hidden` (null) to each, so their apps read again what they show.
 */
export async function updateAssignmentSettings(
  tx: Queryable,
  businessId: string,
  changes: AssignmentChanges,
): Promise<{ settings: AssignmentSettings; events: LiveEvent[]; domainEvents: DomainEventInput[] }> {
  // Locks the row: of two switches, the second sees the first's outcome.
  const before = await tx.maybeOneFirst(sql.type(z.object({ team_visibility: z.boolean() }))`
    select team_visibility from assignment_settings where business_id = ${businessId} for update`);
  const previous = await loadAssignmentSettings(tx, businessId);
  await tx.query(sql.unsafe`
    insert into assignment_settings as s (business_id, enabled, max_open_per_agent, team_visibility)
    values (${businessId}, ${changes.enabled ?? false}, ${changes.max_open_per_agent ?? DEFAULT_MAX_OPEN_PER_AGENT}, ${changes.team_visibility ?? false})
    on conflict (business_id) do update set
      enabled = coalesce(${changes.enabled ?? null}::boolean, s.enabled),
      team_visibility = coalesce(${changes.team_visibility ?? null}::boolean, s.team_visibility),
      max_open_per_agent = coalesce(${changes.max_open_per_agent ?? null}::int, s.max_open_per_agent),
      updated_at = now()`);
  // After the settings row: the auto_assign job's lock order (settings row, team_members).
  for (const agent of changes.agents ?? []) {
    const updated = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
      update team_members set max_open = ${agent.max_open}, updated_at = now()
      where id = ${agent.member_id} and business_id = ${businessId} and is_active
      returning id`);
    if (!updated) throw notFound('Team member not found');
  }
  const switchedOn = changes.team_visibility === true && before !== true;
  const settings = await loadAssignmentSettings(tx, businessId);
  return {
    settings,
    events: switchedOn ? hiddenFrom(businessId, await everyAgent(tx, businessId), null) : [],
    // Auto-assignment and the audit log hear of it (core/subscribers/).
    domainEvents: [settingsChanged(businessId, 'assignment', previous, settings)],
  };
}
