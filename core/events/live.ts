/**
 * Events whose payload carries a presented object (a message, a conversation list entry) are
 * built after the transaction commits: a command returns what to load, and publishEvents()
 * reads it then (core/events/live-loads.ts), through the same reads as REST. So the object is
 * what a GET would return at that moment, and building it costs the write's transaction no time
 * and no locks; a read that fails there loses live events (a dashboard refresh), never the
 * write. (The agent reply is the one exception, for its speed: its own statement reads the
 * conversation's list entry as it leaves it, core/reads/conversations.ts writtenEntry, and
 * hands over the built event.) However many events a call publishes (an inbound batch), it
 * reads a fixed number of queries per business: one for the messages, four for the
 * conversations, one for the mentions.
 * Those reads also say where the events may go under team-scoped visibility, so that costs no
 * further query, the setting off or on; only an event whose conversation nothing read (one the
 * command built itself and gave no `Audience` for) costs one query for its business.
 */
import type { Queryable } from '../adapters/postgres/db.ts';
import type { Deps } from '../deps.ts';
import { liveEvent, type LiveEvent } from './catalogue.ts';
import type { Message } from '../presenters/message.ts';
import type { ConversationListItem } from '../presenters/conversation.ts';
import { conversationAudiences } from '../domain/team-visibility.ts';
import { rooms } from './bus.ts';
import { loadObjects, nothingLoaded, type Audience, type Deferred, type Loaded } from './live-loads.ts';

/**
 * Who may see a conversation, as the command's own statement read it (audienceColumns of
 * core/domain/team-visibility.ts): publishing its built events then needs no query to learn it.
 */
type AudienceRead = { audience: Audience };

/** What commands return for their caller to publish after commit. */
export type PendingEvent = LiveEvent | Deferred | AudienceRead;

/** `message_created` for a message just inserted. */
export const messageCreated = (businessId: string, messageId: string, conversationId?: string): PendingEvent => ({
  load: 'message_created',
  businessId,
  messageId,
  conversationId,
});
/** `message_updated` for a message whose delivery status moved. */
export const messageUpdated = (businessId: string, messageId: string, conversationId?: string): PendingEvent => ({
  load: 'message_updated',
  businessId,
  messageId,
  conversationId,
});
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

/** The audience of a conversation as the command's statement read it (columns `team_visibility`, `audience`). */
export const audienceRead = (businessId: string, conversationId: string, row: { team_visibility: boolean; audience: string[] | null }): PendingEvent => ({
  audience: { businessId, conversationId, teamVisibility: row.team_visibility, userIds: row.audience },
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

/** `conversation_updated` for a list entry the caller holds (e.g. read by the statement that wrote it). */
export function conversationUpdatedEvent(businessId: string, conversation: ConversationListItem): LiveEvent {
  const { status, assignee_id, assigned_at } = conversation;
  const ids = { conversation_id: conversation.id, business_id: businessId };
  return liveEvent('conversation_updated', { ...ids, status, assignee_id, assigned_at, at: conversation.updated_at, conversation });
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
  return conversationUpdatedEvent(d.businessId, conversation);
}

/**
 * A dashboard event about one conversation (its payload names it): what team-scoped visibility
 * governs. `conversation_hidden` is not: it goes to the members who no longer see it.
 */
const conversationOf = (event: LiveEvent): { businessId: string; conversationId: string } | null => {
  if (event.namespace || event.name === 'conversation_hidden') return null;
  const payload = event.payload as { business_id?: string; conversation_id?: string };
  return payload.business_id && payload.conversation_id ? { businessId: payload.business_id, conversationId: payload.conversation_id } : null;
};

/**
 * Team-scoped visibility (core/domain/team-visibility.ts) on the live side: in a business that
 * has it on, an event about a conversation goes to the own rooms of the members who may see it
 * instead of the business's room (and never to the conversation's room, which a member may have
 * joined before the conversation left their teams); an event meant for one member (an
 * assignment, a mention) goes only if they may see it. Off: events go where the catalogue says.
 *
 * `known`: audiences already read with the events' objects or by the command (no query for
 * those, nor for any conversation of a business known to have the setting off); the rest cost
 * one query per business.
 */
async function scopeToAudiences(q: Queryable, events: LiveEvent[], known: Map<string, Audience>): Promise<LiveEvent[]> {
  const settingOf = new Map<string, boolean>();
  for (const audience of known.values()) settingOf.set(audience.businessId, audience.teamVisibility);
  const audiences = new Map<string, Set<string>>();
  for (const [id, audience] of known) if (audience.userIds) audiences.set(id, new Set(audience.userIds));
  const unread = new Map<string, Set<string>>();
  for (const event of events) {
    const about = conversationOf(event);
    if (!about || settingOf.get(about.businessId) === false || known.has(about.conversationId)) continue;
    unread.set(about.businessId, (unread.get(about.businessId) ?? new Set()).add(about.conversationId));
  }
  for (const [businessId, ids] of unread) {
    const read = await conversationAudiences(q, businessId, [...ids]);
    settingOf.set(businessId, read !== null);
    for (const id of ids) if (read) audiences.set(id, read.get(id) ?? new Set());
  }
  return events.map((event) => {
    const about = conversationOf(event);
    if (!about || !settingOf.get(about.businessId)) return event;
    const audience = audiences.get(about.conversationId) ?? new Set<string>();
    const toEveryone = event.rooms.includes(rooms.business(about.businessId));
    const users = toEveryone ? [...audience] : [...audience].filter((userId) => event.rooms.includes(rooms.user(userId)));
    return { ...event, rooms: users.map((userId) => rooms.user(userId)) };
  });
}

/** Publishes, in order, what a committed command returned. */
export async function publishEvents(deps: Pick<Deps, 'db' | 'events' | 'logger'>, pending: readonly PendingEvent[]): Promise<void> {
  const deferred = pending.filter((p): p is Deferred => 'load' in p);
  let loaded: Loaded = nothingLoaded();
  try {
    if (deferred.length) loaded = await loadObjects(deps.db, deferred);
  } catch (error) {
    deps.logger.warn({ err: (error as Error).message }, 'live events not built');
  }
  const known = new Map(loaded.audiences);
  // What was read after the commit wins over what the command's statement read.
  for (const item of pending) if ('audience' in item && !known.has(item.audience.conversationId)) known.set(item.audience.conversationId, item.audience);
  const built = pending.flatMap((item) => {
    if ('audience' in item) return [];
    const event = 'load' in item ? build(item, loaded) : item;
    return event ? [event] : [];
  });
  let events: LiveEvent[];
  try {
    events = await scopeToAudiences(deps.db, built, known);
  } catch (error) {
    // Who may see them is unknown: only events about no conversation go (never one to the wrong member).
    deps.logger.warn({ err: (error as Error).message }, 'live events not scoped');
    events = built.filter((event) => !conversationOf(event));
  }
  for (const event of events) if (event.rooms.length) deps.events.publish(event);
}
