/**
 * The reads behind live events (core/events/live.ts): after a command commits, the objects its
 * deferred events carry (messages, conversation list entries, mentions), business by business,
 * through the same presenters as REST (core/presenters/inbox-reads.ts), so an event carries what
 * a GET would return at that moment.
 *
 * The message and conversation rows are read with their conversation's audience under
 * team-scoped visibility (core/domain/team-visibility.ts audienceColumns): whether the business
 * has it on and, only when on, who may see the conversation. Learning where an event goes so
 * costs no query of its own, whether the setting is off (the common case) or on. A fixed number
 * of queries per business however many events: one for the messages, four for the conversations,
 * one for the mentions.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { audienceColumns, audienceFields } from '../domain/team-visibility.ts';
import { conversationColumns, conversationRow, type ConversationListItem } from '../presenters/conversation.ts';
import { presentConversationListItems } from '../presenters/inbox-reads.ts';
import { mentionsByIds, type Mention } from '../presenters/mention.ts';
import { messageColumns, messageRow, presentMessage, type Message } from '../presenters/message.ts';

/** An event whose object is read after commit; one gone by then (deleted) gives no event. */
export type Deferred =
  | { load: 'message_created' | 'message_updated'; businessId: string; messageId: string }
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

const audienceOf = (row: { business_id: string; conversation_id: string; team_visibility: boolean; audience: string[] | null }): Audience => ({
  businessId: row.business_id,
  conversationId: row.conversation_id,
  teamVisibility: row.team_visibility,
  userIds: row.audience,
});

const messageWithAudience = messageRow.extend({ business_id: z.string(), ...audienceFields });
const conversationWithAudience = conversationRow.extend(audienceFields);

async function messagesWithAudience(q: Queryable, businessId: string, ids: string[], into: Loaded): Promise<void> {
  if (ids.length === 0) return;
  const rows = await q.any(sql.type(messageWithAudience)`
    select ${messageColumns}, c.business_id, ${audienceColumns('c')}
    from messages m join conversations c on c.id = m.conversation_id and c.business_id = m.business_id
    where m.business_id = ${businessId} and m.id = any(${sql.array([...new Set(ids)], 'uuid')})`);
  for (const row of rows) {
    into.messages.set(row.id, presentMessage(row));
    into.audiences.set(row.conversation_id, audienceOf(row));
  }
}

async function conversationsWithAudience(q: Queryable, businessId: string, ids: string[], into: Loaded): Promise<void> {
  if (ids.length === 0) return;
  const rows = await q.any(sql.type(conversationWithAudience)`
    select ${conversationColumns}, ${audienceColumns('c')} from conversations c
    where c.business_id = ${businessId} and c.id = any(${sql.array([...new Set(ids)], 'uuid')})`);
  for (const row of rows) into.audiences.set(row.id, audienceOf({ ...row, conversation_id: row.id }));
  for (const item of await presentConversationListItems(q, rows)) into.conversations.set(item.id, item);
}

/** Every object the deferred events need, business by business, with their conversations' audiences. */
export async function loadObjects(q: Queryable, deferred: readonly Deferred[]): Promise<Loaded> {
  const loaded = nothingLoaded();
  for (const businessId of new Set(deferred.map((d) => d.businessId))) {
    const mine = deferred.filter((d) => d.businessId === businessId);
    const messageIds = mine.flatMap((d) => ('messageId' in d ? [d.messageId] : []));
    const conversationIds = mine.flatMap((d) => ('conversationId' in d ? [d.conversationId] : []));
    const mentionIds = mine.flatMap((d) => ('mentionId' in d ? [d.mentionId] : []));
    const [, , mentions] = await Promise.all([
      messagesWithAudience(q, businessId, messageIds, loaded),
      conversationsWithAudience(q, businessId, conversationIds, loaded),
      mentionsByIds(q, businessId, mentionIds),
    ]);
    for (const [id, mention] of mentions) loaded.mentions.set(id, mention);
  }
  return loaded;
}
