/**
 * Events whose payload carries a presented object (a message, a conversation list entry) are
 * built after the transaction commits: a command returns a loader, and publishEvents() runs it
 * then, through the same reads as REST (core/presenters/inbox-reads.ts). So the object is what a
 * GET would return at that moment, and building it costs the write's transaction no time and
 * no locks; a read that fails there loses a live event (a dashboard refresh), never the write.
 */
import type { Queryable } from './db.ts';
import type { Deps } from './deps.ts';
import { liveEvent, type LiveEvent } from './event-catalogue.ts';
import { conversationListItems, findMessage } from './presenters/inbox-reads.ts';

/** Loads the events' objects after commit; an object gone by then (deleted) gives no event. */
export type EventLoader = (q: Queryable) => Promise<LiveEvent[]>;
/** What commands return for their caller to publish after commit. */
export type PendingEvent = LiveEvent | EventLoader;

/** `message_created` for a message just inserted. */
export const messageCreated = (businessId: string, messageId: string): EventLoader => async (q) => {
  const message = await findMessage(q, businessId, messageId);
  if (!message) return [];
  const ids = { message_id: message.id, conversation_id: message.conversation_id, business_id: businessId };
  return [liveEvent('message_created', { ...ids, sender_type: message.sender_type, at: message.created_at, message })];
};

/** `message_updated` for a message whose delivery status moved. */
export const messageUpdated = (businessId: string, messageId: string): EventLoader => async (q) => {
  const message = await findMessage(q, businessId, messageId);
  if (!message) return [];
  const ids = { message_id: message.id, conversation_id: message.conversation_id, business_id: businessId };
  return [liveEvent('message_updated', { ...ids, delivery_status: message.delivery_status, at: new Date().toISOString(), message })];
};

/** `conversation_created` for a conversation just opened. */
export const conversationCreated = (businessId: string, conversationId: string): EventLoader => async (q) => {
  const conversation = (await conversationListItems(q, businessId, [conversationId])).get(conversationId);
  if (!conversation) return [];
  return [liveEvent('conversation_created', { conversation_id: conversation.id, business_id: businessId, at: conversation.created_at, conversation })];
};

/** `conversation_updated` for each of these conversations of one business (one read for all of them). */
export const conversationsUpdated = (businessId: string, conversationIds: string[]): EventLoader => async (q) => {
  const items = await conversationListItems(q, businessId, conversationIds);
  return conversationIds.flatMap((id) => {
    const conversation = items.get(id);
    if (!conversation) return [];
    const { status, assignee_id, assigned_at } = conversation;
    return [liveEvent('conversation_updated', { conversation_id: id, business_id: businessId, status, assignee_id, assigned_at, at: conversation.updated_at, conversation })];
  });
};

/** `conversation_updated` for one conversation a command changed (its row's `id` and `business_id`). */
export const conversationUpdated = (c: { id: string; business_id: string }): EventLoader => conversationsUpdated(c.business_id, [c.id]);

/** Publishes, in order, what a committed command returned; the loaders read side by side. */
export async function publishEvents(deps: Pick<Deps, 'db' | 'events' | 'logger'>, pending: readonly PendingEvent[]): Promise<void> {
  const built = await Promise.all(
    pending.map(async (item) => {
      try {
        return typeof item === 'function' ? await item(deps.db) : [item];
      } catch (error) {
        deps.logger.warn({ err: (error as Error).message }, 'live event not built');
        return [];
      }
    }),
  );
  for (const event of built.flat()) deps.events.publish(event);
}
