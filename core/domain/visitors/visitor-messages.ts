/**
 * The `/widget` event of a message: live replies reach the visitor's sockets in the Socket.IO
 * namespace `/widget`, room `visitor:<customer uuid>` (api/realtime-widget.ts joins it), as
 * `message_created` with the message as the visitor sees it (read by core/reads/visitor-messages.ts,
 * which says which messages a visitor sees). Workers publish them through the same bus as every
 * other event.
 */
import type { Queryable } from '../../adapters/postgres/db.ts';
import { liveEvent, type LiveEvent } from '../../events/catalogue.ts';
import { presentVisitorMessage, type VisitorMessage } from '../../presenters/visitor-message.ts';
import { widgetMessage } from '../../reads/visitor-messages.ts';

/** The `/widget` event that shows a message to its visitor live. */
export const visitorMessageEvent = (customerId: string, message: VisitorMessage): LiveEvent =>
  liveEvent('visitor_message_created', presentVisitorMessage(message), customerId);

/**
 * The event for one message of a widget conversation, or null when the message is not for a
 * visitor (another channel type, a system message, no customer). For deliver_message: a reply
 * on a widget channel is delivered by publishing it to the visitor's sockets.
 */
export async function loadVisitorMessageEvent(q: Queryable, messageId: string): Promise<LiveEvent | null> {
  const found = await widgetMessage(q, messageId);
  return found ? visitorMessageEvent(found.customerId, found.message) : null;
}
