/**
 * Team changes: invite, remove, availability (assignment is core/commands/conversations.ts's).
 * Each runs inside the caller's transaction and returns what the caller publishes after commit.
 *
 * Lock order, shared by every command here and by the assignments in conversations.ts so none of
 * them can deadlock another: the business row (plan checks), then team_members rows, then
 * conversations rows.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { badRequest, notFound } from '../errors.ts';
import { enqueue } from '../jobs.ts';
import { assertMayAddAgent } from '../domain/plans.ts';
import { liveEvent, type LiveEvent } from '../events/catalogue.ts';
import { findUserByEmail } from './accounts.ts';
import { updatedConversationColumns, updatedConversationRow } from './conversations.ts';
import { conversationUpdated } from '../events/live.ts';
import { rooms } from '../events/bus.ts';
import type { AfterCommit } from './run-command.ts';
import type { RateLimit } from '../domain/rate-windows.ts';

export type InviteRole = 'agent' | 'admin';
export type MemberStatus = 'live' | 'away' | 'offline';

export const inviteRoles: readonly string[] = ['agent', 'admin'];
export const memberStatuses: readonly string[] = ['live', 'away', 'offline'];

const idRow = z.object({ id: z.string() });

/** Invitations one business may send: 20 an hour (refused ones count). */
export const INVITE_RATE_PER_BUSINESS: RateLimit = { limit: 20, windowSeconds: 3600 };
/** Invitations one address may receive, from any business: 3 a day (refused ones count). */
export const INVITE_RATE_PER_ADDRESS: RateLimit = { limit: 3, windowSeconds: 86_400 };

/**
 * Adds an existing user to the business at once (status offline, the next agent number) and
 * enqueues the mail telling them. 404 unknown user, 400 already a member here or elsewhere,
 * 402 when the plan's additional agents are taken.
 */
export async function inviteMember(
  tx: Queryable,
  input: { businessId: string; email: string; role: InviteRole; invitedBy: string; appUrl: string },
): Promise<{ memberId: string; userId: string; agentNumber: number }> {
  const user = await findUserByEmail(tx, input.email);
  if (!user) throw notFound('User not found');
  await assertNotMember(tx, user.id, input.businessId);
  await assertMayAddAgent(tx, input.businessId);
  const business = await tx.one(sql.type(z.object({ name: z.string(), agent_number: z.number() }))`
    update businesses set next_agent_number = next_agent_number + 1, updated_at = now()
    where id = ${input.businessId}
    returning name, next_agent_number - 1 as agent_number`);
  const member = await tx.maybeOne(sql.type(idRow)`
    insert into team_members (business_id, user_id, role, status, agent_number)
    values (${input.businessId}, ${user.id}, ${input.role}, 'offline', ${business.agent_number})
    on conflict (user_id) do nothing
    returning id`);
  if (!member) {
    // Joined a business between the check and the insert.
    await assertNotMember(tx, user.id, input.businessId);
    throw badRequest('User already belongs to another business');
  }
  // The recipient did not ask for this: Parley's words come first, the inviter's (the team's
  // name, their own) only below, quoted as what they are.
  const appUrl = input.appUrl.replace(/\/+$/, '');
  await enqueue(tx, 'send_email', {
    to: user.email,
    subject: 'You were added to a team on Parley',
    text:
      `Hello,\n\nYou were added to a team on Parley as ${input.role === 'admin' ? 'an admin' : 'an agent'}. Sign in with this address to see it:\n\n${appUrl}\n\n` +
      `If you do not want to be on this team, choose "Leave team" in the app (Settings). Until you sign in, nothing is shared with you by mail.\n\n` +
      `Team name: ${business.name}\nAdded by: ${input.invitedBy}\n`,
  });
  return { memberId: member.id, userId: user.id, agentNumber: business.agent_number };
}

async function assertNotMember(tx: Queryable, userId: string, businessId: string): Promise<void> {
  const existing = await tx.maybeOne(sql.type(z.object({ business_id: z.string() }))`
    select business_id from team_members where user_id = ${userId}`);
  if (!existing) return;
  if (existing.business_id === businessId) throw badRequest('User is already a member of this business');
  throw badRequest('User already belongs to another business');
}

const unassignedRow = updatedConversationRow.extend({ assignee_id: z.null(), assigned_at: z.null() });
export type UnassignedConversation = z.infer<typeof unassignedRow>;

/**
 * Deletes the membership (the user keeps their account and may join or create another
 * business); their open and pending conversations lose their assignee (`conversation_updated`
 * for each) and their live connections are closed after commit. 404 when the member is not in
 * the business, 400 for the owner.
 */
export async function removeMember(
  tx: Queryable,
  input: { businessId: string; memberId: string },
): Promise<{ userId: string; unassigned: UnassignedConversation[] } & AfterCommit> {
  const member = await tx.maybeOne(sql.type(z.object({ user_id: z.string(), role: z.string() }))`
    select user_id, role from team_members
    where id = ${input.memberId} and business_id = ${input.businessId}
    for update`);
  if (!member) throw notFound('Team member not found');
  if (member.role === 'owner') throw badRequest('The business owner cannot be removed');
  const unassigned = await tx.any(sql.type(unassignedRow)`
    update conversations set assignee_id = null, assigned_at = null, updated_at = now()
    where business_id = ${input.businessId} and assignee_id = ${member.user_id} and status in ('open', 'pending')
    returning ${updatedConversationColumns}`);
  await tx.query(sql.unsafe`delete from team_members where id = ${input.memberId}`);
  return {
    // Their conversations wait again: auto-assignment may hand them to others.
    domainEvents: [{ type: 'member.removed', businessId: input.businessId, data: { user_id: member.user_id } }],
    userId: member.user_id,
    unassigned: [...unassigned],
    events: unassigned.map(conversationUpdated),
    // The removed member's open dashboards would otherwise keep receiving the business's events.
    disconnectRooms: [rooms.user(member.user_id)],
  };
}

const statusRow = z.object({
  id: z.string(),
  user_id: z.string(),
  business_id: z.string(),
  status: z.enum(['live', 'away', 'offline']),
  updated_at: z.string(),
});

/**
 * Sets the member's availability (one statement); `agent_status_changed` follows, even when
 * unchanged (member.status_changed: going `live` arms auto-assignment, waiting conversations flow to them). 404 when
 * the membership is gone.
 */
export async function setMemberStatus(q: Queryable, input: { businessId: string; memberId: string; status: MemberStatus }): Promise<{ events: LiveEvent[] }> {
  const row = await q.maybeOne(sql.type(statusRow)`
    with updated as (
      update team_members set status = ${input.status}, updated_at = now()
      where id = ${input.memberId} and business_id = ${input.businessId} and is_active
      returning id, user_id, business_id, status, updated_at
    )
    select u.id, u.user_id, u.business_id, u.status, u.updated_at from updated u`);
  if (!row) throw notFound('Team member not found');
  return {
    events: [
      liveEvent('agent_status_changed', { business_id: row.business_id, user_id: row.user_id, member_id: row.id, status: row.status, at: row.updated_at }),
    ],
  };
}
