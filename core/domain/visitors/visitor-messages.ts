/**
 * Messages as a website visitor sees them, for the visitor API and the `/widget` socket alike:
 * the customer's own messages and the replies of agents and the AI agent, without what is
 * internal to the business (sender ids, delivery status, platform ids, errors). System
 * messages and the team's private notes are internal and never shown, but for a system
 * message delivered to the customer (the out-of-hours notice: one with a delivery status).
 *
 * Live replies reach the visitor's sockets in the Socket.IO namespace `/widget`, room
 * `visitor:<customer uuid>` (api/realtime-widget.ts joins it), as `message_created` with this
 * shape. Workers publish them through the same bus as every other event.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../../adapters/postgres/db.ts';
import { liveEvent, type LiveEvent } from '../../events/catalogue.ts';
import { widgetChannelType } from '../../../connectors/index.ts';
import { presentVisitorMessage, visitorMessageRow, type VisitorMessage } from '../../presenters/visitor-message.ts';

/** The columns visitorMessageRow reads, for `select ${visitorMessageColumns} from messages m`. */
export const visitorMessageColumns = sql.fragment`m.id, m.conversation_id, m.sender_type, m.content, m.attachments, m.created_at,
  (select json_build_object('token', v.token, 'rating', v.rating) from csat_surveys v where v.message_id = m.id and m.sender_type = 'system') as csat`;

/** The predicate on `messages m` of what a visitor may see. */
export const visibleToVisitor = sql.fragment`(m.sender_type in ('customer', 'agent', 'ai') or (m.sender_type = 'system' and m.delivery_status is not null)) and not m.private and m.delivery_status is distinct from 'scheduled'`;

/** The `/widget` event that shows a message to its visitor live. */
export const visitorMessageEvent = (customerId: string, message: VisitorMessage): LiveEvent =>
  liveEvent('visitor_message_created', presentVisitorMessage(message), customerId);

/**
 * The event for one message of a widget conversation, or null when the message is not for a
 * visitor (another channel type, a system message, no customer). For deliver_message: a reply
 * on a widget channel is delivered by publishing it to the visitor's sockets.
 */
export async function loadVisitorMessageEvent(q: Queryable, messageId: string): Promise<LiveEvent | null> {
  const row = await q.maybeOne(sql.type(visitorMessageRow.extend({ customer_id: z.string() }))`
    select ${visitorMessageColumns}, c.customer_id
    from messages m join conversations c on c.id = m.conversation_id
    where m.id = ${messageId} and c.channel_type = ${widgetChannelType} and c.customer_id is not null and ${visibleToVisitor}`);
  if (!row) return null;
  const { customer_id: customerId, ...message } = row;
  return visitorMessageEvent(customerId, message);
}
