/**
 * Teams: groups of the business's members (owners and admins shape them, every member reads
 * them), and each conversation's team (any member). See docs/decisions.md#teams-and-team-scoped-visibility.
 */
import { z } from '../../../lib/zod.ts';
import { sql } from '../../../core/adapters/postgres/db.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import { createTeam, deleteTeam, setConversationTeam, setTeamMembers, updateTeam } from '../../../core/commands/teams.ts';
import { notFound } from '../../../core/errors.ts';
import { presentTeam, teamColumns, teamRow, teamSchema } from '../../../core/presenters/team.ts';
import { presentTeamMember, teamMemberColumns, teamMemberRow, teamMemberSchema } from '../../presenters/team-member.ts';
import { keysetPage } from '../../cursor.ts';
import { defineRoute } from '../../route.ts';
import { conversationParams } from '../conversations/schema.ts';
import { encodeNameCursor } from '../labels/schema.ts';
import {
  conversationTeamResponse,
  createTeamBody,
  listTeamMembersQuery,
  listTeamsQuery,
  setConversationTeamBody,
  setTeamMembersBody,
  teamDeletedResponse,
  teamMemberIdsResponse,
  teamParams,
  updateTeamBody,
} from './schema.ts';

const tags = ['Teams'];
const seeDecisions = 'See docs/decisions.md#teams-and-team-scoped-visibility.';

const pagedTeamRow = teamRow.extend({ sort_key: z.string() });

export const list = defineRoute({
  method: 'get',
  path: '/api/v1/teams',
  summary: 'List teams',
  description: `In alphabetical order (case-insensitive), each with its \`member_count\`. \`limit\` 1–200 (default 100); when more exist, the \`X-Next-Cursor\` response header holds the value to pass as \`cursor\` for the next page. ${seeDecisions}`,
  tags,
  auth: 'user',
  policy: 'teams.read',
  query: listTeamsQuery,
  response: z.array(teamSchema),
  errors: [404],
  handler: async ({ query, member, deps, ctx }) => {
    // Served by teams_business_name_key (business_id, lower(name)).
    const rows = await deps.db.any(sql.type(pagedTeamRow)`
      select ${teamColumns}, lower(t.name) as sort_key from teams t
      where t.business_id = ${member.businessId}
        ${query.cursor !== undefined ? sql.fragment`and lower(t.name) > ${query.cursor}` : sql.fragment``}
      order by lower(t.name)
      limit ${query.limit + 1}`);
    const page = keysetPage(ctx, rows, query.limit, (last) => encodeNameCursor(last.sort_key));
    return page.map(({ sort_key: _, ...row }) => presentTeam(row));
  },
});

export const create = defineRoute({
  method: 'post',
  path: '/api/v1/teams',
  summary: 'Create a team',
  description: `\`name\` 1–80 characters, unique in the business whatever its case (a duplicate: 400 \`{detail}\`); \`description\` up to 500 characters. The team starts empty: add members with PUT …/members. ${seeDecisions}`,
  tags,
  auth: 'user',
  policy: 'teams.manage',
  body: createTeamBody,
  response: teamSchema,
  errors: [400, 403, 404],
  handler: async ({ body, member, deps }) => {
    const { team } = await runCommand(deps, (tx) => createTeam(tx, { businessId: member.businessId, fields: body }));
    return presentTeam(team);
  },
});

export const update = defineRoute({
  method: 'patch',
  path: '/api/v1/teams/:team_id',
  summary: 'Rename a team or change its description',
  description: `Changes the fields sent (same rules as creating). Another business's or an unknown team: 404. ${seeDecisions}`,
  tags,
  auth: 'user',
  policy: 'teams.manage',
  params: teamParams,
  body: updateTeamBody,
  response: teamSchema,
  errors: [400, 403, 404],
  handler: async ({ params, body, member, deps }) => {
    const { team } = await runCommand(deps, (tx) => updateTeam(tx, { businessId: member.businessId, teamId: params.team_id, changes: body }));
    return presentTeam(team);
  },
});

export const remove = defineRoute({
  method: 'delete',
  path: '/api/v1/teams/:team_id',
  summary: 'Delete a team',
  description: `Its conversations and channels are left without a team (no per-conversation event is sent; under team-scoped visibility agents no longer see them through it, and each of its agents gets \`conversation_hidden\` with \`conversation_id\` null), its memberships go. ${seeDecisions}`,
  tags,
  auth: 'user',
  policy: 'teams.manage',
  params: teamParams,
  response: teamDeletedResponse,
  errors: [403, 404],
  handler: async ({ params, member, deps }) => {
    await runCommand(deps, (tx) => deleteTeam(tx, { businessId: member.businessId, teamId: params.team_id }));
    return { detail: 'Team deleted' };
  },
});

const pagedMemberRow = teamMemberRow;

export const listMembers = defineRoute({
  method: 'get',
  path: '/api/v1/teams/:team_id/members',
  summary: "List a team's members",
  description: `Its active members as GET /api/v1/team/members shows them, in agent-number order. \`limit\` 1–200 (default 100); when more exist, the \`X-Next-Cursor\` response header holds the value to pass as \`cursor\`. Unknown team: 404. ${seeDecisions}`,
  tags,
  auth: 'user',
  policy: 'teams.read',
  params: teamParams,
  query: listTeamMembersQuery,
  response: z.array(teamMemberSchema),
  errors: [404],
  handler: async ({ params, query, member, deps, ctx }) => {
    const team = await deps.db.exists(sql.unsafe`select 1 from teams where business_id = ${member.businessId} and id = ${params.team_id}`);
    if (!team) throw notFound('Team not found');
    // The team's memberships by its primary key (business_id, team_id, …); at most the business's members, sorted.
    const rows = await deps.db.any(sql.type(pagedMemberRow)`
      select ${teamMemberColumns}
      from team_memberships ms
      join team_members m on m.id = ms.member_id and m.business_id = ms.business_id and m.is_active
      join users u on u.id = m.user_id
      where ms.business_id = ${member.businessId} and ms.team_id = ${params.team_id}
        ${query.cursor !== undefined ? sql.fragment`and m.agent_number > ${query.cursor}` : sql.fragment``}
      order by m.agent_number
      limit ${query.limit + 1}`);
    return keysetPage(ctx, rows, query.limit, (last) => String(last.agent_number)).map(presentTeamMember);
  },
});

export const setMembers = defineRoute({
  method: 'put',
  path: '/api/v1/teams/:team_id/members',
  summary: "Set a team's members",
  description:
    "`member_ids`: membership ids of active members of the business; the team's members become exactly these (add or remove one by sending the list with or without it). " +
    'A member id that is not an active member of the business: 400 naming it, and nothing changes. Unknown team: 404. ' +
    "A member added may at once get the team's waiting conversations by auto-assignment and, under team-scoped visibility, sees the team's conversations from their next request and live event on; " +
    'an agent taken out stops seeing them and, under team-scoped visibility, gets `conversation_hidden` (`conversation_id` null: read again what is shown). ' +
    seeDecisions,
  tags,
  auth: 'user',
  policy: 'teams.manage',
  params: teamParams,
  body: setTeamMembersBody,
  response: teamMemberIdsResponse,
  errors: [400, 403, 404],
  handler: async ({ params, body, member, deps }) => {
    const { memberIds } = await runCommand(deps, (tx) =>
      setTeamMembers(tx, { businessId: member.businessId, teamId: params.team_id, memberIds: body.member_ids }),
    );
    return { member_ids: memberIds };
  },
});

export const setForConversation = defineRoute({
  method: 'put',
  path: '/api/v1/conversations/:conversation_id/team',
  summary: "Set a conversation's team",
  description:
    '`team_id`: a team of the business (400 `Team not found` otherwise), or `null` for none. When it changed, `conversation_updated` follows (the conversation carries `team_id`); ' +
    "its `updated_at` is kept. Auto-assignment gives a conversation of a team only to that team's members; the assignee is kept when the team changes. " +
    'Under team-scoped visibility the conversation is then shown to the new team, and the agents of the old one who no longer see it get `conversation_hidden` with its id. ' +
    seeDecisions,
  tags: ['Conversations'],
  auth: 'user',
  policy: 'conversations.set_team',
  params: conversationParams,
  body: setConversationTeamBody,
  response: conversationTeamResponse,
  errors: [400, 404],
  handler: async ({ params, body, member, deps }) => {
    const result = await runCommand(deps, (tx) =>
      setConversationTeam(tx, { businessId: member.businessId, conversationId: params.conversation_id, teamId: body.team_id }),
    );
    return { team_id: result.teamId };
  },
});

export default [list, create, update, remove, listMembers, setMembers, setForConversation];
