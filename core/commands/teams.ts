/**
 * Teams: named groups of the business's members (docs/decisions.md#teams-and-team-scoped-visibility).
 * Not to be confused with core/commands/team.ts, the business's members themselves.
 *
 * A team's name is unique in the business whatever its case (400 on a duplicate, as labels).
 * Its members are set as a whole (PUT …/members). A conversation belongs to at most one team
 * (PUT /conversations/{id}/team, or its channel's `default_team_id` when it opens); auto-
 * assignment gives a conversation of a team only to that team's members, and team-scoped
 * visibility shows agents only their teams' conversations (core/domain/team-visibility.ts).
 *
 * Changes that can let a waiting conversation reach someone (a member joins a team, a
 * conversation changes team) record domain events that auto-assignment subscribes to
 * (core/subscribers/auto-assign.ts).
 */
import { z } from 'zod';
import { UniqueIntegrityConstraintViolationError } from 'slonik';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { badRequest, notFound } from '../errors.ts';
import { conversationUpdated, type PendingEvent } from '../events/live.ts';
import { teamColumns, teamRow, type TeamRow } from '../presenters/team.ts';
import { settingsChanged, type DomainEventInput } from '../events/domain.ts';
import { domainEvent } from './conversations.ts';
import { liveEvent, type LiveEvent } from '../events/catalogue.ts';

/** The event that tells open apps to read the teams again (their names and members). */
const teamsChanged = (businessId: string) => liveEvent('settings_changed', { business_id: businessId, setting: 'teams', at: new Date().toISOString() });
import { agentsNarrowed, hiddenFrom, losingOnTeamChange } from '../domain/team-visibility-loss.ts';

export type TeamFields = { name: string; description: string };

const nameTaken = (name: string) => badRequest(`A team named "${name}" already exists`);

async function unlessTaken<T>(name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof UniqueIntegrityConstraintViolationError) throw nameTaken(name);
    throw error;
  }
}

/** 400 `Team not found` unless the team is the business's (for fields that name a team). */
export async function assertTeamOfBusiness(q: Queryable, businessId: string, teamId: string): Promise<void> {
  const found = await q.exists(sql.unsafe`select 1 from teams where business_id = ${businessId} and id = ${teamId}`);
  if (!found) throw badRequest('Team not found');
}

export async function createTeam(
  tx: Queryable,
  input: { businessId: string; fields: TeamFields },
): Promise<{ team: TeamRow; events: LiveEvent[]; domainEvents: DomainEventInput[] }> {
  const { name, description } = input.fields;
  const id = await unlessTaken(name, () =>
    tx.oneFirst(sql.type(z.object({ id: z.string() }))`
      insert into teams (business_id, name, description) values (${input.businessId}, ${name}, ${description}) returning id`),
  );
  const team = await tx.one(sql.type(teamRow)`select ${teamColumns} from teams t where t.business_id = ${input.businessId} and t.id = ${id}`);
  return { team, events: [teamsChanged(input.businessId)], domainEvents: [settingsChanged(input.businessId, 'teams', null, team, team.id)] };
}

/** Changes the given fields (undefined keeps one). 404 for an unknown team or another business's. */
export async function updateTeam(
  tx: Queryable,
  input: { businessId: string; teamId: string; changes: Partial<TeamFields> },
): Promise<{ team: TeamRow; events: LiveEvent[]; domainEvents: DomainEventInput[] }> {
  const { name, description } = input.changes;
  const before = await tx.maybeOne(sql.type(teamRow)`select ${teamColumns} from teams t where t.business_id = ${input.businessId} and t.id = ${input.teamId}`);
  const id = await unlessTaken(name ?? '', () =>
    tx.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
      update teams t set
        name = coalesce(${name ?? null}, t.name),
        description = coalesce(${description ?? null}, t.description),
        updated_at = now()
      where t.business_id = ${input.businessId} and t.id = ${input.teamId}
      returning t.id`),
  );
  if (!id) throw notFound('Team not found');
  const team = await tx.one(sql.type(teamRow)`select ${teamColumns} from teams t where t.business_id = ${input.businessId} and t.id = ${id}`);
  return { team, events: [teamsChanged(input.businessId)], domainEvents: [settingsChanged(input.businessId, 'teams', before, team, team.id)] };
}

/**
 * Deletes the team: its conversations and channels are left without one (the foreign keys set
 * null), its memberships go. No per-conversation event is sent (as deleting a label); the
 * conversations may now reach any member, so auto-assignment is armed. Under team-scoped
 * visibility its agents lose sight of its conversations: `conversation_hidden` (null) to each.
 */
export async function deleteTeam(
  tx: Queryable,
  input: { businessId: string; teamId: string },
): Promise<{ deleted: true; events: PendingEvent[]; domainEvents: DomainEventInput[] }> {
  const team = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
    select id from teams where business_id = ${input.businessId} and id = ${input.teamId} for update`);
  if (!team) throw notFound('Team not found');
  const members = await tx.anyFirst(sql.type(z.object({ member_id: z.string() }))`
    select member_id from team_memberships where business_id = ${input.businessId} and team_id = ${team.id}`);
  const narrowed = await agentsNarrowed(tx, input.businessId, members);
  await tx.query(sql.unsafe`delete from teams where business_id = ${input.businessId} and id = ${team.id}`);
  return {
    deleted: true,
    events: [...hiddenFrom(input.businessId, narrowed, null), teamsChanged(input.businessId)],
    domainEvents: [settingsChanged(input.businessId, 'teams', { team_id: team.id }, null, team.id)],
  };
}

/**
 * The team's members become exactly these (membership ids of active members of the business:
 * 400 naming the first that is not; nothing changes then). 404 for an unknown team. Under
 * team-scoped visibility the agents taken out lose sight of its conversations:
 * `conversation_hidden` (null) to each.
 */
export async function setTeamMembers(
  tx: Queryable,
  input: { businessId: string; teamId: string; memberIds: string[] },
): Promise<{ memberIds: string[]; events: PendingEvent[]; domainEvents: DomainEventInput[] }> {
  // Locks the team: two editors of its members apply one after the other.
  const team = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
    select id from teams where business_id = ${input.businessId} and id = ${input.teamId} for update`);
  if (!team) throw notFound('Team not found');
  const wanted = [...new Set(input.memberIds)];
  const active = new Set(
    await tx.anyFirst(sql.type(z.object({ id: z.string() }))`
      select id from team_members where business_id = ${input.businessId} and is_active and id = any(${sql.array(wanted, 'uuid')})`),
  );
  const unknown = wanted.find((id) => !active.has(id));
  if (unknown) throw badRequest(`Not an active member of this business: ${unknown}`);
  const removed = await tx.anyFirst(sql.type(z.object({ member_id: z.string() }))`
    delete from team_memberships
    where business_id = ${input.businessId} and team_id = ${team.id} and member_id <> all(${sql.array(wanted, 'uuid')})
    returning member_id`);
  const narrowed = await agentsNarrowed(tx, input.businessId, removed);
  const added = await tx.anyFirst(sql.type(z.object({ member_id: z.string() }))`
    insert into team_memberships (business_id, team_id, member_id)
    select ${input.businessId}, ${team.id}, id from unnest(${sql.array(wanted, 'uuid')}) as ids(id)
    on conflict do nothing
    returning member_id`);
  await tx.query(sql.unsafe`update teams set updated_at = now() where business_id = ${input.businessId} and id = ${team.id}`);
  // A new member may take the team's waiting conversations (auto-assignment hears of it).
  return {
    memberIds: wanted,
    events: [...hiddenFrom(input.businessId, narrowed, null), teamsChanged(input.businessId)],
    domainEvents: [
      settingsChanged(
        input.businessId,
        'team_members',
        { member_ids: removed.concat(wanted.filter((id) => !added.includes(id))) },
        { member_ids: wanted },
        team.id,
      ),
    ],
  };
}

/**
 * Puts the conversation in a team (null: none). 404 for a conversation outside the business,
 * 400 `Team not found` for a team not of it. `conversation_updated` when it changed (and
 * `conversation_hidden` to the agents who lost sight of it under team-scoped visibility); its
 * `updated_at` stays (a team does not move a conversation up the inbox). The assignee is kept
 * even when not of the new team; an unassigned waiting conversation may now reach other members.
 */
export async function setConversationTeam(
  tx: Queryable,
  input: { businessId: string; conversationId: string; teamId: string | null },
): Promise<{ teamId: string | null; changed: boolean; events: PendingEvent[]; domainEvents?: DomainEventInput[] }> {
  const conversation = await tx.maybeOne(sql.type(z.object({ id: z.string(), business_id: z.string(), team_id: z.string().nullable() }))`
    select id, business_id, team_id from conversations where id = ${input.conversationId} and business_id = ${input.businessId} for update`);
  if (!conversation) throw notFound('Conversation not found');
  if (input.teamId) await assertTeamOfBusiness(tx, input.businessId, input.teamId);
  if (conversation.team_id === input.teamId) return { teamId: input.teamId, changed: false, events: [] };
  await tx.query(sql.unsafe`update conversations set team_id = ${input.teamId} where id = ${conversation.id} and business_id = ${input.businessId}`);
  // Under team-scoped visibility, the old team's agents who see it no other way lose sight of it.
  const losing = conversation.team_id
    ? await losingOnTeamChange(tx, { businessId: input.businessId, conversationId: conversation.id, from: conversation.team_id })
    : [];
  return {
    teamId: input.teamId,
    changed: true,
    events: [conversationUpdated(conversation), ...hiddenFrom(input.businessId, losing, conversation.id)],
    domainEvents: [domainEvent('conversation.team_changed', conversation, undefined, { team_id: input.teamId })],
  };
}
