/**
 * The reads behind live events (core/events/live.ts): after a command commits, the objects its
 * deferred events carry (messages, conversation list entries, mentions), business by business,
 * through the same reads as REST (core/reads/), so an event carries what a GET would return at
 * that moment.
 *
 * The messages and conversations are read with their conversation's audience under
 * team-scoped visibility (core/domain/team-visibility.ts audienceColumns): whether the business
 * has it on and, only when on, who may see the conversation. Learning where an event goes so
 * costs no query of its own, whether the setting is off (the common case) or on. A fixed number
 * of queries per business however many events: one for the messages, four for the conversations,
 * one for the mentions.
 */
import type { Queryable } from '../adapters/postgres/db.ts';
import type { ConversationListItem } from '../presenters/conversation.ts';
import type { Mention } from '../presenters/mention.ts';
import type { Message } from '../presenters/message.ts';
import { conversationListItemsWithAudience } from '../reads/conversations.ts';
import { mentionsByIds } from '../reads/mentions.ts';
import { messagesWithAudience } from '../reads/messages.ts';

/** An event whose object is read after commit; one gone by then (deleted) gives no event. */
export type Deferred =
  | { load: 'message_created' | 'message_updated'; businessId: string; messageId: string; conversationId?: string }
  | { load: 'conversation_created' | 'conversation_updated'; businessId: string; conversationId: string }
  | { load: 'mention_created'; businessId: string; mentionId: string };

/**
 * Who may see a conversation, as a statement read it (audienceColumns): `userIds` while the
 * business has team-scoped visibility on, null while off.
 */
export type Audience = { businessId: string; conversationId: string; teamVisibility: boolean; userIds: string[] | null };

export type Loaded = {
  messages: Map<string, Message>;
  conversations: Map<string, ConversationListItem>;
  mentions: Map<string, { userId: string; mention: Mention }>;
  /** The audiences the rows above came with, by conversation id. */
  audiences: Map<string, Audience>;
};

export const nothingLoaded = (): Loaded => ({ messages: new Map(), conversations: new Map(), mentions: new Map(), audiences: new Map() });

const audienceOf = (businessId: string, conversationId: string, row: { team_visibility: boolean; audience: string[] | null }): Audience => ({
  businessId,
  conversationId,
  teamVisibility: row.team_visibility,
  userIds: row.audience,
});

async function loadMessages(q: Queryable, businessId: string, ids: string[], into: Loaded): Promise<void> {
  for (const { message, audience } of await messagesWithAudience(q, businessId, ids)) {
    into.messages.set(message.id, message);
    into.audiences.set(message.conversation_id, audienceOf(businessId, message.conversation_id, audience));
  }
}

async function loadConversations(q: Queryable, businessId: string, ids: string[], into: Loaded): Promise<void> {
  for (const { conversation, audience } of await conversationListItemsWithAudience(q, businessId, ids)) {
    into.audiences.set(conversation.id, audienceOf(businessId, conversation.id, audience));
    into.conversations.set(conversation.id, conversation);
  }
}

/** Every object the deferred events need, business by business, with their conversations' audiences. */
export async function loadObjects(q: Queryable, deferred: readonly Deferred[]): Promise<Loaded> {
  const loaded = nothingLoaded();
  for (const businessId of new Set(deferred.map((d) => d.businessId))) {
    const mine = deferred.filter((d) => d.businessId === businessId);
    const messageIds = mine.flatMap((d) => ('messageId' in d ? [d.messageId] : []));
    const conversationIds = mine.flatMap((d) => (d.load === 'conversation_created' || d.load === 'conversation_updated' ? [d.conversationId] : []));
    const mentionIds = mine.flatMap((d) => ('mentionId' in d ? [d.mentionId] : []));
    const [, , mentions] = await Promise.all([
      loadMessages(q, businessId, messageIds, loaded),
      loadConversations(q, businessId, conversationIds, loaded),
      mentionsByIds(q, businessId, mentionIds),
    ]);
    for (const [id, mention] of mentions) loaded.mentions.set(id, mention);
  }
  return loaded;
}
