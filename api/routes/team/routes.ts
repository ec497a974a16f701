/** The team: roster, invitations, removal, availability, pending handoffs, assignment. */
import { z } from '../../../lib/zod.ts';
import { sql } from '../../../core/adapters/postgres/db.ts';
import { badRequest, tooManyRequests } from '../../../core/errors.ts';
import { takeRateAllowance } from '../../../core/domain/rate-windows.ts';
import { assignConversationToUser } from '../../../core/commands/conversations.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import { actorOf, recordAudit } from '../../../core/domain/platform/audit.ts';
import {
  INVITE_RATE_PER_ADDRESS,
  INVITE_RATE_PER_BUSINESS,
  inviteMember,
  inviteRoles,
  memberStatuses,
  removeMember,
  setMemberStatus,
  type InviteRole,
  type MemberStatus,
} from '../../../core/commands/team.ts';
import { defineRoute } from '../../route.ts';
import { visibleTo } from '../../../core/domain/team-visibility.ts';
import { presentTeamMember, teamMemberColumns, teamMemberRow, teamMemberSchema } from '../../presenters/team-member.ts';
import {
  assignQuery,
  conversationParams,
  inviteQuery,
  inviteResponse,
  memberParams,
  messageResponse,
  pendingHandoffSchema,
  statusBody,
  statusResponse,
} from './schema.ts';

const tags = ['Team'];

export const listMembers = defineRoute({
  method: 'get',
  path: '/api/v1/team/members',
  summary: "The business's team members",
  description:
    "Every member of the caller's business, the owner included, ordered by `agent_number`. Any role may read it. Caller without a business: 400. See docs/decisions.md#businesses-plans-and-limits.",
  tags,
  auth: 'user',
  policy: 'team.read',
  response: z.array(teamMemberSchema),
  errors: [400],
  handler: async ({ member, deps }) => {
    const { businessId } = member;
    const rows = await deps.db.any(sql.type(teamMemberRow)`
      select ${teamMemberColumns}
      from team_members m join users u on u.id = m.user_id
      where m.business_id = ${businessId}
      order by m.agent_number`);
    return rows.map(presentTeamMember);
  },
});

export const removeMemberRoute = defineRoute({
  method: 'delete',
  path: '/api/v1/team/members/:member_id',
  summary: 'Remove a team member (owner only)',
  description:
    'Deletes the membership; the user keeps their account and may join or create another business, and their agent number is never given out again. ' +
    'Their `open` and `pending` conversations lose their assignee (`conversation_updated` to the business for each), and their live (Socket.IO) connections are closed. ' +
    "Another business's member: 404. The owner cannot be removed: 400. See docs/decisions.md#team-and-availability.",
  tags,
  auth: 'user',
  policy: 'team.remove',
  params: memberParams,
  response: messageResponse,
  errors: [400, 403, 404],
  handler: async ({ params, caller, member, deps }) => {
    await runCommand(deps, async (tx) => {
      const removed = await removeMember(tx, { businessId: member.businessId, memberId: params.member_id });
      await recordAudit(tx, {
        businessId: member.businessId,
        actor: actorOf(caller),
        action: 'member.removed',
        targetType: 'member',
        targetId: params.member_id,
        details: { user_id: removed.userId },
      });
      return removed;
    });
    return { message: 'Team member removed' };
  },
});

export const leaveTeam = defineRoute({
  method: 'post',
  path: '/api/v1/team/leave',
  summary: 'Leave the business (any member but the owner)',
  description:
    "Ends the caller's own membership, as the owner's removal does: their `open` and `pending` conversations lose their assignee " +
    '(`conversation_updated` for each) and their live connections are closed. The account stays; its tokens keep working, and the user may ' +
    'create their own business or be invited to another. The owner: 403. Caller without a business: 400. See docs/decisions.md#team-and-availability.',
  tags,
  auth: 'user',
  policy: 'team.leave',
  response: messageResponse,
  errors: [400, 403],
  handler: async ({ caller, member, deps }) => {
    await runCommand(deps, async (tx) => {
      const left = await removeMember(tx, { businessId: member.businessId, memberId: member.id });
      await recordAudit(tx, {
        businessId: member.businessId,
        actor: actorOf(caller),
        action: 'member.left',
        targetType: 'member',
        targetId: member.id,
        details: { role: member.role },
      });
      return left;
    });
    return { message: 'You left the team' };
  },
});

export const updateStatus = defineRoute({
  method: 'patch',
  path: '/api/v1/team/status',
  summary: "Set the caller's availability",
  description:
    'A value other than `live`, `away`, `offline` is 400 (a missing or non-string `status` is 422). Caller without a business: 400. ' +
    'Publishes `agent_status_changed` `{business_id, user_id, member_id, status, at}` to the business, also when the value is unchanged. See docs/decisions.md#team-and-availability.',
  tags,
  auth: 'user',
  policy: 'team.set_own_status',
  body: statusBody,
  response: statusResponse,
  errors: [400, 404],
  handler: async ({ body, member, deps }) => {
    if (!memberStatuses.includes(body.status)) throw badRequest('Invalid status. Use one of: live, away, offline');
    await runCommand(deps, (q) => setMemberStatus(q, { businessId: member.businessId, memberId: member.id, status: body.status as MemberStatus }), {
      oneStatement: true,
    });
    return { status: body.status as MemberStatus };
  },
});

const pendingHandoffRow = z.object({
  id: z.string(),
  customer_id: z.string().nullable(),
  handoff_reason: z.string(),
  status: z.enum(['open', 'pending']),
  created_at: z.string(),
});

export const pendingHandoffs = defineRoute({
  method: 'get',
  path: '/api/v1/team/pending-handoffs',
  summary: 'Conversations the AI agent handed to a human that nobody has taken yet',
  description:
    'Conversations of the business with a handoff request that no human has taken over since: not assigned since the request, ' +
    'not resolved since, and still `open` or `pending` (a closed conversation needs nobody). Newest request first. Caller without a business: 400. See docs/decisions.md#team-and-availability.',
  tags,
  auth: 'user',
  policy: 'handoffs.read',
  response: z.array(pendingHandoffSchema),
  errors: [400],
  handler: async ({ member, deps }) => {
    const { businessId } = member;
    // Served by conversations_handoff_idx (business_id, handoff_requested_at desc) where handoff_requested_at is not null.
    const rows = await deps.db.any(sql.type(pendingHandoffRow)`
      select c.id, c.customer_id, coalesce(c.handoff_reason, '') as handoff_reason, c.status, c.created_at
      from conversations c
      where c.business_id = ${businessId} and ${visibleTo(member)}
        and handoff_requested_at is not null
        and status in ('open', 'pending')
        and (assigned_at is null or assigned_at < handoff_requested_at)
        and (resolved_at is null or resolved_at < handoff_requested_at)
      order by c.handoff_requested_at desc, c.id desc`);
    return [...rows];
  },
});

export const invite = defineRoute({
  method: 'post',
  path: '/api/v1/team/invite',
  summary: 'Add an existing user to the team (owner only)',
  description:
    'Membership is immediate: status `offline`, `is_active` true, the next `agent_number`. The user is told by e-mail (a `send_email` job in the same transaction). ' +
    '`role` other than `agent`/`admin`: 400. Unknown e-mail: 404. Already a member here: 400; member of another business: 400 `User already belongs to another business`. ' +
    "The plan's additional agents (owner not counted) all taken: 402. Caller without a business: 400. " +
    `At most ${INVITE_RATE_PER_BUSINESS.limit} invitations an hour per business and ${INVITE_RATE_PER_ADDRESS.limit} a day per address (whichever businesses send them), refused ones included: 429 with \`Retry-After\`. ` +
    'See docs/decisions.md#team-and-availability and docs/decisions.md#businesses-plans-and-limits.',
  tags,
  auth: 'user',
  policy: 'team.invite',
  query: inviteQuery,
  response: inviteResponse,
  errors: [400, 402, 403, 404, 429],
  handler: async ({ query, caller, member, deps }) => {
    if (!inviteRoles.includes(query.role)) throw badRequest('Invalid role. Use agent or admin');
    // Counted before anything is looked up, in statements of their own, so refused attempts
    // (unknown address, already a member) count too: an invite→remove loop cannot mail one
    // person over and over, nor can a business try address after address.
    const email = query.email.trim().toLowerCase();
    const wait = Math.max(
      await takeRateAllowance(deps.db, `invite:business:${member.businessId}`, INVITE_RATE_PER_BUSINESS),
      await takeRateAllowance(deps.db, `invite:address:${email}`, INVITE_RATE_PER_ADDRESS),
    );
    if (wait > 0) throw tooManyRequests('Too many invitations. Try again later.', wait);
    const invited = await runCommand(deps, async (tx) => {
      const added = await inviteMember(tx, {
        businessId: member.businessId,
        email: query.email,
        role: query.role as InviteRole,
        invitedBy: caller.fullName,
        appUrl: deps.config.APP_URL ?? deps.config.publicUrl,
      });
      await recordAudit(tx, {
        businessId: member.businessId,
        actor: actorOf(caller),
        action: 'member.invited',
        targetType: 'member',
        targetId: added.memberId,
        details: { email: query.email, role: query.role, user_id: added.userId },
      });
      return added;
    });
    return { message: `${query.email} added to the team as ${query.role}`, team_member_id: invited.memberId };
  },
});

export const assign = defineRoute({
  method: 'post',
  path: '/api/v1/team/assign/:conversation_id',
  summary: 'Assign a conversation to a team member (owner or admin)',
  description:
    "`agent_id` is the member's `user_id`. Any conversation state may be assigned; a `pending` one becomes `open`. " +
    'Conversation not in the business: 404. Assignee not an active member: 400. ' +
    'Publishes `conversation_assigned` `{conversation_id, business_id, assignee_id, assigned_by, at}` to the assignee and `conversation_updated` to the business. See docs/decisions.md#conversations-states-and-assignment.',
  tags,
  auth: 'user',
  policy: 'conversations.assign',
  params: conversationParams,
  query: assignQuery,
  response: messageResponse,
  errors: [400, 403, 404],
  handler: async ({ params, query, caller, member, deps }) => {
    await runCommand(deps, (tx) =>
      assignConversationToUser(tx, {
        businessId: member.businessId,
        conversationId: params.conversation_id,
        assigneeUserId: query.agent_id,
        assignedBy: caller.userId,
      }),
    );
    return { message: 'Conversation assigned' };
  },
});

const signatureSchema = z
  .object({
    signature: z
      .string()
      .nullable()
      .openapi({ description: "Appended to the member's e-mail replies and forwards, before the channel's own signature; null: none" }),
  })
  .openapi('EmailSignature');

export const readSignature = defineRoute({
  method: 'get',
  path: '/api/v1/team/signature',
  summary: "Read the caller's e-mail signature",
  description: "The caller's own signature for e-mail replies (null when not set). Caller without a business: 400. See docs/decisions.md#e-mail-in-depth.",
  tags,
  auth: 'user',
  policy: 'team.read',
  response: signatureSchema,
  errors: [400],
  handler: async ({ member, deps }) => {
    const signature = await deps.db.maybeOneFirst(sql.type(z.object({ email_signature: z.string().nullable() }))`
      select email_signature from team_members where id = ${member.id} and business_id = ${member.businessId}`);
    return { signature: signature ?? null };
  },
});

export const updateSignature = defineRoute({
  method: 'put',
  path: '/api/v1/team/signature',
  summary: "Set the caller's e-mail signature",
  description:
    'Plain text, at most 2,000 characters (surrounding whitespace trimmed; empty or null removes it). Appended to the caller\'s e-mail replies below "-- ", then the channel\'s `config.signature`. ' +
    'Replies already stored keep the signature they were stored with. Caller without a business: 400.',
  tags,
  auth: 'user',
  policy: 'team.set_own_signature',
  body: z.object({ signature: z.string().trim().max(2000).nullable() }),
  response: signatureSchema,
  errors: [400],
  handler: async ({ body, member, deps }) => {
    const signature = body.signature ? body.signature : null;
    await runCommand(
      deps,
      async (q) => {
        await q.query(
          sql.unsafe`update team_members set email_signature = ${signature}, updated_at = now() where id = ${member.id} and business_id = ${member.businessId}`,
        );
        return { events: [] };
      },
      { oneStatement: true },
    );
    return { signature };
  },
});

export default [listMembers, removeMemberRoute, leaveTeam, updateStatus, readSignature, updateSignature, pendingHandoffs, invite, assign];
