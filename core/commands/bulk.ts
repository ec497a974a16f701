/**
 * One action on up to 100 conversations in one transaction (POST /api/v1/conversations/bulk),
 * answering per id (docs/decisions.md#snooze-priority-bulk-and-scheduled-send). What is the same
 * for every id — the caller's right to the action, the assignee, the label names — is checked
 * once before anything is written (a refusal there fails the whole request); what depends on the
 * conversation fails that id alone: each id runs in a savepoint, so a failed one leaves nothing
 * behind and the others go on. Another business's conversation is `not_found`, exactly like an
 * unknown id. Conversations are locked in id order, so two bulk requests never deadlock.
 */
import { z } from 'zod';
import type { DomainEventInput } from '../events/domain-types.ts';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { badRequest, HttpError, notFound } from '../errors.ts';
import { conversationUpdated, type PendingEvent } from '../events/live.ts';
import type { Priority } from '../presenters/conversation.ts';
import { assignConversationToUser, closeConversation, resolveConversation } from './conversations.ts';
import { setPriority, snoozeConversation } from './snooze.ts';
import { canSeeConversation, type Viewer } from '../domain/team-visibility.ts';

export type BulkAction =
  | { action: 'assign'; assigneeUserId: string }
  | { action: 'resolve' }
  | { action: 'close' }
  | { action: 'label'; labels: string[] }
  | { action: 'snooze'; until: Date | null }
  | { action: 'priority'; priority: Priority };

export type BulkResult = { id: string; ok: boolean; changed?: boolean; error?: 'not_found' | 'invalid'; detail?: string };

/** What one id's change did: whether anything changed, and the events. */
type Outcome = { changed: boolean; events: PendingEvent[]; domainEvents?: DomainEventInput[] };

async function labelIds(tx: Queryable, businessId: string, names: string[]): Promise<string[]> {
  const wanted = [...new Map(names.map((n) => [n.toLowerCase(), n])).values()];
  const found = await tx.any(sql.type(z.object({ id: z.string(), wanted: z.string() }))`
    select l.id, w.name as wanted
    from unnest(${sql.array(wanted, 'text')}) as w(name)
    join labels l on l.business_id = ${businessId} and lower(l.name) = lower(w.name)`);
  const known = new Set(found.map((f) => f.wanted));
  const unknown = wanted.filter((n) => !known.has(n));
  if (unknown.length) throw badRequest(`Unknown label${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`);
  return found.map((f) => f.id);
}

/** Adds labels (keeping the ones it has); `conversation_updated` when one was new to it. */
async function addLabels(tx: Queryable, businessId: string, conversationId: string, ids: string[]): Promise<Outcome> {
  const conversation = await tx.maybeOne(sql.type(z.object({ id: z.string(), business_id: z.string() }))`
    select id, business_id from conversations where id = ${conversationId} and business_id = ${businessId} for update`);
  if (!conversation) throw notFound('Conversation not found');
  const added = await tx.any(sql.type(z.object({ label_id: z.string() }))`
    insert into conversation_labels (business_id, conversation_id, label_id)
    select ${businessId}, ${conversationId}, id from unnest(${sql.array(ids, 'uuid')}) as ids(id)
    on conflict do nothing
    returning label_id`);
  return { changed: added.length > 0, events: added.length ? [conversationUpdated(conversation)] : [] };
}

export async function bulkUpdate(
  tx: Queryable,
  input: { businessId: string; userId: string; ids: string[]; action: BulkAction; viewer?: Viewer },
): Promise<{ results: BulkResult[]; events: PendingEvent[]; domainEvents: DomainEventInput[] }> {
  const { businessId, action } = input;
  let labels: string[] = [];
  if (action.action === 'label') labels = await labelIds(tx, businessId, action.labels);
  if (action.action === 'assign') {
    const active = await tx.exists(sql.unsafe`
      select 1 from team_members where business_id = ${businessId} and user_id = ${action.assigneeUserId} and is_active`);
    if (!active) throw badRequest('Agent is not an active member of this business');
  }

  const one = async (q: Queryable, conversationId: string): Promise<Outcome> => {
    // Team-scoped visibility: a conversation the caller may not see is `not_found`, as another business's.
    if (input.viewer?.teamScoped && !(await canSeeConversation(q, input.viewer, conversationId))) throw notFound('Conversation not found');
    switch (action.action) {
      case 'assign':
        return {
          changed: true,
          ...(await assignConversationToUser(q, { businessId, conversationId, assigneeUserId: action.assigneeUserId, assignedBy: input.userId })),
        };
      case 'resolve': {
        const r = await resolveConversation(q, { businessId, conversationId, userId: input.userId });
        return r.changed ? { changed: true, events: r.events, domainEvents: r.domainEvents } : { changed: false, events: [] };
      }
      case 'close': {
        const r = await closeConversation(q, { businessId, conversationId });
        return r.changed ? { changed: true, events: r.events, domainEvents: r.domainEvents } : { changed: false, events: [] };
      }
      case 'label':
        return addLabels(q, businessId, conversationId, labels);
      case 'snooze':
        return { changed: true, ...(await snoozeConversation(q, { businessId, conversationId, until: action.until })) };
      case 'priority': {
        const r = await setPriority(q, { businessId, conversationId, priority: action.priority });
        return { changed: r.events.length > 0, events: r.events, domainEvents: r.domainEvents };
      }
    }
  };

  const byId = new Map<string, BulkResult>();
  const events: PendingEvent[] = [];
  const domainEvents: DomainEventInput[] = [];
  for (const id of [...input.ids].sort()) {
    try {
      // A savepoint: a failed id leaves nothing behind, the others go on.
      const outcome = await tx.transaction((sp) => one(sp, id));
      byId.set(id, { id, ok: true, changed: outcome.changed });
      events.push(...outcome.events);
      domainEvents.push(...(outcome.domainEvents ?? []));
    } catch (error) {
      if (!(error instanceof HttpError) || (error.status !== 404 && error.status !== 400)) throw error;
      const detail = (error.body as { detail?: unknown }).detail;
      byId.set(id, { id, ok: false, error: error.status === 404 ? 'not_found' : 'invalid', detail: typeof detail === 'string' ? detail : undefined });
    }
  }
  return { results: input.ids.map((id) => byId.get(id)!), events, domainEvents };
}
