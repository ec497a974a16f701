/**
 * Conversation changes an agent makes through the API: start one, resolve, close, reopen,
 * assign (by user id or by agent number); and the AI agent's handoff to a human. Each runs in the caller's transaction and returns the
 * events to publish after commit. Rows are locked in core/commands/team.ts's order (business,
 * team_members, conversations), which a removal that unassigns shares.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { badRequest, notFound } from '../errors.ts';
import { liveEvent } from '../events/catalogue.ts';
import { conversationCreated, conversationUpdated, type PendingEvent } from '../events/live.ts';
import type { Attachment } from '../domain/uploads.ts';
import { sendMessage } from './messages.ts';
import type { Actor, DomainEventData, DomainEventInput, DomainEventType } from '../events/domain-types.ts';
import { teamVisibilityOn } from '../domain/team-visibility.ts';
import { hiddenFrom } from '../domain/team-visibility-loss.ts';

/** What conversation updates return: the ids conversationUpdated() takes, and what assignments and state changes report. */
export const updatedConversationRow = z.object({
  id: z.string(),
  business_id: z.string(),
  status: z.string(),
  assignee_id: z.string().nullable(),
  assigned_at: z.string().nullable(),
  updated_at: z.string(),
});
export const updatedConversationColumns = sql.fragment`id, business_id, status, assignee_id, assigned_at, updated_at`;

const idRow = z.object({ id: z.string() });
const channelRow = z.object({ id: z.string(), type: z.string() });

/** What a state change returns: conversationUpdated's row and the time of the change. */
const changedRow = updatedConversationRow.extend({ resolved_at: z.string().nullable(), closed_at: z.string().nullable() });
const changedColumns = sql.fragment`${updatedConversationColumns}, resolved_at, closed_at`;

export type CreateConversationInput = {
  businessId: string;
  /** The agent starting it (the sender of the initial message). */
  createdBy: string;
  /** A customer uuid of the business (400 otherwise). */
  customerId?: string | null;
  /** An active channel of the business (400 otherwise); default: the built-in webchat channel. */
  channelId?: string | null;
  initialMessage?: { content: string; attachments: Attachment[] } | null;
};

/**
 * Opens a conversation on the given or default channel. With an initial message the reply goes
 * through sendMessage as the agent's, so it counts against the month (403 at the limit, and then no
 * conversation is created either) and sets first_response_at.
 */
export async function createConversation(tx: Queryable, input: CreateConversationInput): Promise<{ conversationId: string; events: PendingEvent[] }> {
  if (input.customerId) {
    const customer = await tx.maybeOne(sql.type(idRow)`
      select id from customers where id = ${input.customerId} and business_id = ${input.businessId} and merged_into is null and erasing_at is null`);
    if (!customer) throw badRequest('Customer not found');
  }
  const channel = input.channelId
    ? await tx.maybeOne(sql.type(channelRow)`
        select id, type from channels where id = ${input.channelId} and business_id = ${input.businessId} and is_active`)
    : await tx.maybeOne(sql.type(channelRow)`
        select id, type from channels where business_id = ${input.businessId} and is_builtin`);
  if (!channel) throw badRequest('Channel not found');

  const created = await tx.one(sql.type(idRow)`
    insert into conversations (business_id, customer_id, channel_id, channel_type, status)
    values (${input.businessId}, ${input.customerId ?? null}, ${channel.id}, ${channel.type}, 'open')
    returning id`);
  const events: PendingEvent[] = [conversationCreated(input.businessId, created.id)];
  if (input.initialMessage) {
    const sent = await sendMessage(tx, {
      businessId: input.businessId,
      conversationId: created.id,
      sender: { type: 'agent', userId: input.createdBy },
      content: input.initialMessage.content,
      attachments: input.initialMessage.attachments,
      // On WhatsApp the customer has not written: free text is refused (422), a template starts one (start-with-template.ts).
      checkReplyWindow: true,
    });
    events.push(...sent.events);
  }
  return { conversationId: created.id, events };
}

async function assertExists(tx: Queryable, businessId: string, conversationId: string): Promise<void> {
  const exists = await tx.exists(sql.unsafe`select 1 from conversations where id = ${conversationId} and business_id = ${businessId}`);
  if (!exists) throw notFound('Conversation not found');
}

export type StateChange<K extends string> =
  | { changed: true; at: string; events: PendingEvent[]; domainEvents: DomainEventInput[]; field: K }
  | { changed: false };

/** A conversation's domain event (core/events/domain-types.ts) for a row a command changed. */
export function domainEvent<T extends DomainEventType>(
  type: T,
  row: { id: string; business_id: string },
  actor: Actor | undefined,
  data: DomainEventData[T],
): DomainEventInput {
  return { type, businessId: row.business_id, conversationId: row.id, actor, data } as DomainEventInput;
}

/** Resolves from any other state, recording who did; `changed: false` when it already was. 404 outside the business. */
export async function resolveConversation(
  tx: Queryable,
  input: { businessId: string; conversationId: string; userId: string },
): Promise<StateChange<'resolved_at'>> {
  const row = await tx.maybeOne(sql.type(changedRow)`
    update conversations set status = 'resolved', resolved_at = now(), resolved_by = ${input.userId}, snoozed_at = null, snoozed_until = null, updated_at = now()
    where id = ${input.conversationId} and business_id = ${input.businessId} and status <> 'resolved'
    returning ${changedColumns}`);
  if (!row) {
    await assertExists(tx, input.businessId, input.conversationId);
    return { changed: false };
  }
  // Its assignee has room for one more: auto-assignment hears of it (core/subscribers/auto-assign.ts), CSAT too.
  const resolved = domainEvent('conversation.resolved', row, { type: 'member', userId: input.userId }, {});
  return { changed: true, field: 'resolved_at', at: row.resolved_at!, events: [conversationUpdated(row)], domainEvents: [resolved] };
}

/** Closes from any other state; `changed: false` when it already was. 404 outside the business. */
export async function closeConversation(tx: Queryable, input: { businessId: string; conversationId: string }): Promise<StateChange<'closed_at'>> {
  const row = await tx.maybeOne(sql.type(changedRow)`
    update conversations set status = 'closed', closed_at = now(), snoozed_at = null, snoozed_until = null, updated_at = now()
    where id = ${input.conversationId} and business_id = ${input.businessId} and status <> 'closed'
    returning ${changedColumns}`);
  if (!row) {
    await assertExists(tx, input.businessId, input.conversationId);
    return { changed: false };
  }
  const closed = domainEvent('conversation.closed', row, undefined, {});
  return { changed: true, field: 'closed_at', at: row.closed_at!, events: [conversationUpdated(row)], domainEvents: [closed] };
}

/**
 * Back to `open` from any state, and awake (a snoozed open conversation wakes). Resolution and closing are undone (resolved_at, resolved_by,
 * closed_at cleared), as when a customer writes into a resolved conversation, so analytics
 * count only conversations that stay resolved. An open conversation is left as it is.
 */
export async function reopenConversation(
  tx: Queryable,
  input: { businessId: string; conversationId: string },
): Promise<{ events: PendingEvent[]; domainEvents?: DomainEventInput[] }> {
  const row = await tx.maybeOne(sql.type(changedRow)`
    update conversations set status = 'open', resolved_at = null, resolved_by = null, closed_at = null, snoozed_at = null, snoozed_until = null, updated_at = now()
    where id = ${input.conversationId} and business_id = ${input.businessId} and (status <> 'open' or snoozed_at is not null)
    returning ${changedColumns}`);
  if (!row) {
    await assertExists(tx, input.businessId, input.conversationId);
    return { events: [] };
  }
  // A reopened conversation without an assignee waits for one (core/subscribers/auto-assign.ts).
  return { events: [conversationUpdated(row)], domainEvents: [domainEvent('conversation.opened', row, undefined, {})] };
}

/**
 * Assigns to the active member with this per-business agent number (the integer the
 * assign-by-path operation takes); the conversation stores the member's user id. Same effects
 * as the team assign (a pending conversation becomes open). 404 for an unknown conversation,
 * then 404 `Agent not found`.
 */
export async function assignConversationToAgentNumber(
  tx: Queryable,
  input: { businessId: string; conversationId: string; agentNumber: number; assignedBy: string },
): Promise<{ events: PendingEvent[] }> {
  await assertExists(tx, input.businessId, input.conversationId);
  if (!Number.isInteger(input.agentNumber) || input.agentNumber < 1 || input.agentNumber > 2_147_483_647) throw notFound('Agent not found');
  const member = await tx.maybeOne(sql.type(z.object({ user_id: z.string() }))`
    select user_id from team_members
    where business_id = ${input.businessId} and agent_number = ${input.agentNumber} and is_active`);
  if (!member) throw notFound('Agent not found');
  const assigned = await assignConversation(tx, { businessId: input.businessId, conversationId: input.conversationId, assigneeUserId: member.user_id });
  return { events: assignmentEvents(assigned, input.assignedBy) };
}

/** The team assign (by user id, POST /team/assign/…): assignConversation with the events it owes. */
export async function assignConversationToUser(
  tx: Queryable,
  input: { businessId: string; conversationId: string; assigneeUserId: string; assignedBy: string },
): Promise<{ events: PendingEvent[] }> {
  const assigned = await assignConversation(tx, input);
  return { events: assignmentEvents(assigned, input.assignedBy) };
}

const assignedRow = updatedConversationRow.extend({ assignee_id: z.string(), assigned_at: z.string(), hidden_from: z.string().nullable().optional() });
export type AssignedConversation = z.infer<typeof assignedRow>;

/**
 * Assigns the conversation to an active member (by user id) in any state; a `pending`
 * conversation becomes `open`. 404 when the conversation is not the business's, 400 when the
 * assignee is not an active member.
 */
export async function assignConversation(
  tx: Queryable,
  input: { businessId: string; conversationId: string; assigneeUserId: string },
): Promise<AssignedConversation> {
  // The membership is locked first (team.ts's lock order) so a concurrent removal either
  // waits for this assignment and then clears it, or wins and this one is refused.
  const member = await tx.maybeOne(sql.type(idRow)`
    select id from team_members
    where business_id = ${input.businessId} and user_id = ${input.assigneeUserId} and is_active
    for share`);
  const isMember = member !== null;
  // `hidden_from`: the previous assignee, when under team-scoped visibility they see it no other way (not in its team).
  const row = await tx.maybeOne(sql.type(assignedRow)`
    with updated as (
      update conversations c set
        assignee_id = ${input.assigneeUserId}::uuid,
        assigned_at = now(),
        status = case when c.status = 'pending' then 'open' else c.status end,
        updated_at = now()
      from (select id, assignee_id from conversations where id = ${input.conversationId} and business_id = ${input.businessId} for update) old
      where c.id = old.id and ${isMember}
      returning c.id, c.business_id, c.status, c.assignee_id, c.assigned_at, c.updated_at, c.team_id, old.assignee_id as previous_assignee_id
    )
    select u.id, u.business_id, u.status, u.assignee_id, u.assigned_at, u.updated_at,
      case when u.previous_assignee_id is distinct from u.assignee_id and ${teamVisibilityOn(sql.fragment`u.business_id`)} and exists (
        select 1 from team_members tm
        where tm.business_id = u.business_id and tm.user_id = u.previous_assignee_id and tm.is_active and tm.role = 'agent'
          and not exists (select 1 from team_memberships ms where ms.business_id = u.business_id and ms.team_id = u.team_id and ms.member_id = tm.id)
      ) then u.previous_assignee_id end as hidden_from
    from updated u`);
  // The previous assignee, if any, may have room again: auto-assignment hears of the assignment.
  if (row) return row;
  const exists = await tx.exists(sql.unsafe`
    select 1 from conversations where id = ${input.conversationId} and business_id = ${input.businessId}`);
  if (!exists) throw notFound('Conversation not found');
  throw badRequest('Agent is not an active member of this business');
}

/** What an assignment tells the dashboards: the assignee at once, the whole business for its lists. */
/** `assignedBy`: the member's user id, or null for an automatic assignment (core/commands/auto-assign.ts). */
export function assignmentEvents(conversation: AssignedConversation, assignedBy: string | null): PendingEvent[] {
  return [
    liveEvent('conversation_assigned', {
      conversation_id: conversation.id,
      business_id: conversation.business_id,
      assignee_id: conversation.assignee_id,
      assigned_by: assignedBy,
      at: conversation.assigned_at,
    }),
    conversationUpdated(conversation),
    // Under team-scoped visibility, a previous assignee outside the conversation's team loses sight of it.
    ...(conversation.hidden_from ? hiddenFrom(conversation.business_id, [conversation.hidden_from], conversation.id) : []),
  ];
}

/**
 * Asks for a human (the AI agent handing over): records when and why, and an `open`
 * conversation becomes `pending`. The caller re-checked under the conversation's lock that the
 * handoff is still due.
 */
export async function requestHandoff(tx: Queryable, input: { businessId: string; conversationId: string; reason: string }): Promise<PendingEvent[]> {
  const row = await tx.one(sql.type(updatedConversationRow.extend({ handoff_requested_at: z.string() }))`
    update conversations set
      handoff_requested_at = now(), handoff_reason = ${input.reason},
      status = case when status = 'open' then 'pending' else status end,
      updated_at = now()
    where id = ${input.conversationId} and business_id = ${input.businessId}
    returning ${updatedConversationColumns}, handoff_requested_at`);
  // While the AI auto-replies, a conversation waits for auto-assignment only once handed over (handoff.requested).
  return [
    liveEvent('handoff_requested', { conversation_id: row.id, business_id: row.business_id, reason: input.reason, at: row.handoff_requested_at }),
    conversationUpdated(row),
  ];
}
