/**
 * The visitor message reads: a message as a website visitor sees it (core/presenters/visitor-message.ts),
 * for the visitor API (GET /visitor/messages, the answer of POST /visitor/messages) and the
 * `/widget` socket alike: the customer's own messages and the replies of agents and the AI
 * agent, without what is internal to the business. System messages and the team's private
 * notes are internal and never shown, but for a system message delivered to the customer (the
 * out-of-hours notice: one with a delivery status). A visitor sees only their own conversations
 * on their widget's channel.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { notFound } from '../errors.ts';
import { widgetChannelType } from '../../connectors/index.ts';
import { presentVisitorMessage, visitorMessageRow, type VisitorMessage } from '../presenters/visitor-message.ts';

/** The columns visitorMessageRow reads, for `select ${visitorMessageColumns} from messages m`. */
const visitorMessageColumns = sql.fragment`m.id, m.conversation_id, m.sender_type, m.content, m.attachments, m.created_at,
  (select json_build_object('token', v.token, 'rating', v.rating) from csat_surveys v where v.message_id = m.id and m.sender_type = 'system') as csat`;

/** The predicate on `messages m` of what a visitor may see. */
const visibleToVisitor = sql.fragment`(m.sender_type in ('customer', 'agent', 'ai') or (m.sender_type = 'system' and m.delivery_status is not null)) and not m.private and m.delivery_status is distinct from 'scheduled'`;

/** The visitor a read is for: their customer row and their widget's channel. */
export type VisitorReader = { customerId: string; channelId: string };

/**
 * The conversation the visitor's next message goes to: their latest on the channel unless it
 * is closed (inbound threading: a message on a closed conversation starts a new one). Null
 * when there is none.
 */
export async function currentConversationId(q: Queryable, visitor: VisitorReader): Promise<string | null> {
  const row = await q.maybeOne(sql.type(z.object({ id: z.string(), status: z.string() }))`
    select id, status from conversations
    where customer_id = ${visitor.customerId} and channel_id = ${visitor.channelId}
    order by updated_at desc, id desc limit 1`);
  return row && row.status !== 'closed' ? row.id : null;
}

/**
 * The visitor's messages in one conversation, oldest first: the newest `limit` of them. Without
 * `conversationId` the current conversation (none: `[]`); another visitor's conversation: 404.
 */
export async function listVisitorMessages(
  q: Queryable,
  visitor: VisitorReader,
  options: { conversationId?: string; limit: number },
): Promise<VisitorMessage[]> {
  let conversationId: string | null;
  if (options.conversationId) {
    const owned = await q.exists(sql.unsafe`
      select 1 from conversations where id = ${options.conversationId} and customer_id = ${visitor.customerId} and channel_id = ${visitor.channelId}`);
    if (!owned) throw notFound('Conversation not found');
    conversationId = options.conversationId;
  } else {
    conversationId = await currentConversationId(q, visitor);
  }
  if (!conversationId) return [];
  const rows = await q.any(sql.type(visitorMessageRow)`
    select * from (
      select ${visitorMessageColumns} from messages m
      where m.conversation_id = ${conversationId} and ${visibleToVisitor}
      order by m.created_at desc, m.id desc limit ${options.limit}) latest
    order by created_at, id`);
  return rows.map(presentVisitorMessage);
}

/** The message stored on the channel with this platform id (the visitor's own, just sent); null when gone. */
export async function visitorMessageByExternalId(q: Queryable, channelId: string, externalId: string): Promise<VisitorMessage | null> {
  const row = await q.maybeOne(sql.type(visitorMessageRow)`
    select ${visitorMessageColumns} from messages m where m.channel_id = ${channelId} and m.external_id = ${externalId}`);
  return row ? presentVisitorMessage(row) : null;
}

/**
 * One message of a widget conversation with its visitor (customer uuid); null when it is not
 * for a visitor (another channel type, a system message, no customer).
 */
export async function widgetMessage(q: Queryable, messageId: string): Promise<{ customerId: string; message: VisitorMessage } | null> {
  const row = await q.maybeOne(sql.type(visitorMessageRow.extend({ customer_id: z.string() }))`
    select ${visitorMessageColumns}, c.customer_id
    from messages m join conversations c on c.id = m.conversation_id
    where m.id = ${messageId} and c.channel_type = ${widgetChannelType} and c.customer_id is not null and ${visibleToVisitor}`);
  if (!row) return null;
  const { customer_id: customerId, ...message } = row;
  return { customerId, message: presentVisitorMessage(message) };
}
