/**
 * Events whose payload carries a presented object (a message, a conversation list entry) are
 * built after the transaction commits: a command returns what to load, and publishEvents()
 * reads it then, through the same reads as REST (core/presenters/inbox-reads.ts). So the object
 * is what a GET would return at that moment, and building it costs the write's transaction no
 * time and no locks; a read that fails there loses live events (a dashboard refresh), never the
 * write. However many events a call publishes (an inbound batch), it reads a fixed number of
 * queries per business: one for the messages, four for the conversations, one for the mentions.
 */
import type { Queryable } from '../adapters/postgres/db.ts';
import type { Deps } from '../deps.ts';
import { liveEvent, type LiveEvent } from './catalogue.ts';
import { conversationListItems, messagesByIds } from '../presenters/inbox-reads.ts';
import { mentionsByIds, type Mention } from '../presenters/mention.ts';
import type { ConversationListItem } from '../presenters/conversation.ts';
import type { Message } from '../presenters/message.ts';
import { conversationAudiences } from '../domain/team-visibility.ts';
import { rooms } from './bus.ts';

/** An event whose object is read after commit; one gone by then (deleted) gives no event. */
type Deferred =
  | { load: 'message_created' | 'message_updated'; businessId: string; messageId: string }
  | { load: 'conversation_created' | 'conversation_updated'; businessId: string; conversationId: string }
  | { load: 'mention_created'; businessId: string; mentionId: string };

/** What commands return for their caller to publish after commit. */
export type PendingEvent = LiveEvent | Deferred;

/** `message_created` for a message just inserted. */
export const messageCreated = (businessId: string, messageId: string): PendingEvent => ({ load: 'message_created', businessId, messageId });
/** `message_updated` for a message whose delivery status moved. */
export const messageUpdated = (businessId: string, messageId: string): PendingEvent => ({ load: 'message_updated', businessId, messageId });
/** `mention_created` for a mention just stored (to the mentioned member). */
export const mentionCreated = (businessId: string, mentionId: string): PendingEvent => ({ load: 'mention_created', businessId, mentionId });
/** `conversation_created` for a conversation just opened. */
export const conversationCreated = (businessId: string, conversationId: string): PendingEvent => ({ load: 'conversation_created', businessId, conversationId });
/** `conversation_updated` for one conversation a command changed (its row's `id` and `business_id`). */
export const conversationUpdated = (c: { id: string; business_id: string }): PendingEvent => ({
  load: 'conversation_updated',
  businessId: c.business_id,
  conversationId: c.id,
});

/** `message_created` for a message the caller holds as presented (nothing to read). */
export function messageCreatedEvent(businessId: string, message: Message): LiveEvent {
  const ids = { message_id: message.id, conversation_id: message.conversation_id, business_id: businessId };
  return liveEvent('message_created', { ...ids, sender_type: message.sender_type, at: message.created_at, message });
}

/** `message_updated` for a message the caller holds as presented (e.g. returned by the update that moved it). */
export function messageUpdatedEvent(businessId: string, message: Message): LiveEvent {
  const ids = { message_id: message.id, conversation_id: message.conversation_id, business_id: businessId };
  return liveEvent('message_updated', { ...ids, delivery_status: message.delivery_status, at: new Date().toISOString(), message });
}

type Loaded = { messages: Map<string, Message>; conversations: Map<string, ConversationListItem>; mentions: Map<string, { userId: string; mention: Mention }> };

/** Every object the deferred events need, business by business. */
async function loadObjects(q: Queryable, deferred: Deferred[]): Promise<Loaded> {
  const loaded: Loaded = { messages: new Map(), conversations: new Map(), mentions: new Map() };
  for (const businessId of new Set(deferred.map((d) => d.businessId))) {
    const mine = deferred.filter((d) => d.businessId === businessId);
    const messageIds = mine.flatMap((d) => ('messageId' in d ? [d.messageId] : []));
    const conversationIds = mine.flatMap((d) => ('conversationId' in d ? [d.conversationId] : []));
    const mentionIds = mine.flatMap((d) => ('mentionId' in d ? [d.mentionId] : []));
    const [messages, conversations, mentions] = await Promise.all([
      messagesByIds(q, businessId, messageIds),
      conversationListItems(q, businessId, conversationIds),
      mentionsByIds(q, businessId, mentionIds),
    ]);
    for (const [id, mention] of mentions) loaded.mentions.set(id, mention);
    for (const [id, message] of messages) loaded.messages.set(id, message);
    for (const [id, conversation] of conversations) loaded.conversations.set(id, conversation);
  }
  return loaded;
}

function build(d: Deferred, loaded: Loaded): LiveEvent | null {
  if ('mentionId' in d) {
    const found = loaded.mentions.get(d.mentionId);
    if (!found) return null;
    const { mention } = found;
    const ids = { business_id: d.businessId, conversation_id: mention.conversation_id, message_id: mention.message_id };
    return liveEvent('mention_created', {
      ...ids,
      mention_id: mention.id,
      member_id: mention.member_id,
      user_id: found.userId,
      at: mention.created_at,
      mention,
    });
  }
  if ('messageId' in d) {
    const message = loaded.messages.get(d.messageId);
    if (!message) return null;
    return d.load === 'message_created' ? messageCreatedEvent(d.businessId, message) : messageUpdatedEvent(d.businessId, message);
  }
  const conversation = loaded.conversations.get(d.conversationId);
  if (!conversation) return null;
  const ids = { conversation_id: conversation.id, business_id: d.businessId };
  if (d.load === 'conversation_created') return liveEvent('conversation_created', { ...ids, at: conversation.created_at, conversation });
  const { status, assignee_id, assigned_at } = conversation;
  return liveEvent('conversation_updated', { ...ids, status, assignee_id, assigned_at, at: conversation.updated_at, conversation });
}

/** A dashboard event about one conversation (its payload names it): what team-scoped visibility governs. */
const conversationOf = (event: LiveEvent): { businessId: string; conversationId: string } | null => {
  if (event.namespace) return null;
  const payload = event.payload as { business_id?: string; conversation_id?: string };
  return payload.business_id && payload.conversation_id ? { businessId: payload.business_id, conversationId: payload.conversation_id } : null;
};

/**
 * Team-scoped visibility (core/domain/team-visibility.ts) on the live side: in a business that
 * has it on, an event about a conversation goes to the own rooms of the members who may see it
 * instead of the business's room (and never to the conversation's room, which a member may have
 * joined before the conversation left their teams); an event meant for one member (an
 * assignment, a mention) goes only if they may see it. Off: events go where the catalogue says.
 */
async function scopeToAudiences(q: Queryable, events: LiveEvent[]): Promise<LiveEvent[]> {
  const byBusiness = new Map<string, string[]>();
  for (const event of events) {
    const about = conversationOf(event);
    if (about) byBusiness.set(about.businessId, [...(byBusiness.get(about.businessId) ?? []), about.conversationId]);
  }
  const audiences = new Map<string, Map<string, Set<string>> | null>();
  for (const [businessId, ids] of byBusiness) audiences.set(businessId, await conversationAudiences(q, businessId, ids));
  return events.map((event) => {
    const about = conversationOf(event);
    const scoped = about ? audiences.get(about.businessId) : null;
    if (!about || !scoped) return event;
    const audience = scoped.get(about.conversationId) ?? new Set<string>();
    const toEveryone = event.rooms.includes(rooms.business(about.businessId));
    const users = toEveryone ? [...audience] : [...audience].filter((userId) => event.rooms.includes(rooms.user(userId)));
    return { ...event, rooms: users.map((userId) => rooms.user(userId)) };
  });
}

/** Publishes, in order, what a committed command returned. */
export async function publishEvents(deps: Pick<Deps, 'db' | 'events' | 'logger'>, pending: readonly PendingEvent[]): Promise<void> {
  const deferred = pending.filter((p): p is Deferred => 'load' in p);
  let loaded: Loaded = { messages: new Map(), conversations: new Map(), mentions: new Map() };
  try {
    if (deferred.length) loaded = await loadObjects(deps.db, deferred);
  } catch (error) {
    deps.logger.warn({ err: (error as Error).message }, 'live events not built');
  }
  const built = pending.flatMap((item) => {
    const event = 'load' in item ? build(item, loaded) : item;
    return event ? [event] : [];
  });
  let events: LiveEvent[];
  try {
    events = await scopeToAudiences(deps.db, built);
  } catch (error) {
    // Who may see them is unknown: only events about no conversation go (never one to the wrong member).
    deps.logger.warn({ err: (error as Error).message }, 'live events not scoped');
    events = built.filter((event) => !conversationOf(event));
  }
  for (const event of events) if (event.rooms.length) deps.events.publish(event);
}
