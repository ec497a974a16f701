/**
 * Forwarding an e-mail conversation, or some of its messages, to outside addresses (a
 * colleague at the customer's company, a supplier): stored as a private agent message carrying
 * `email.forward` and delivered by the conversation's delivery drain like a reply (in order,
 * retried), which quotes the messages when it sends (core/commands/delivery-drain.ts).
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { badRequest } from '../errors.ts';
import { combinedSignature, distinctAddresses, emailReplyContext, memberSignature } from '../domain/email-replies.ts';
import { sendMessage } from './messages.ts';

export type ForwardInput = {
  businessId: string;
  conversationId: string;
  userId: string;
  /** Checked addresses (the route), 1–10. */
  to: string[];
  /** Messages of the conversation to quote; null: the whole conversation. */
  messageIds: string[] | null;
  note: string;
};

export async function forwardConversation(q: Queryable, key: Uint8Array, input: ForwardInput) {
  const context = await emailReplyContext(q, key, input.businessId, input.conversationId);
  if (!context) throw badRequest('Only e-mail conversations can be forwarded (and not once their channel was deleted)');
  const to = distinctAddresses(
    input.to.map((address) => ({ address })),
    [context.address],
  );
  if (to.length === 0) throw badRequest('Forward to an address other than the support address');
  const ids = input.messageIds ? [...new Set(input.messageIds)] : null;
  if (ids) {
    const found = await q.anyFirst(sql.type(z.object({ id: z.string() }))`
      select id from messages
      where conversation_id = ${input.conversationId} and business_id = ${input.businessId} and not private and id = any(${sql.array(ids, 'uuid')})`);
    const missing = ids.find((id) => !found.includes(id));
    if (missing) throw badRequest(`Message ${missing} is not a message of this conversation that can be forwarded`);
  }
  const signature = combinedSignature(await memberSignature(q, input.businessId, input.userId), context.channelSignature);
  return sendMessage(q, {
    businessId: input.businessId,
    conversationId: input.conversationId,
    sender: { type: 'forward', userId: input.userId },
    content: input.note,
    attachments: [],
    email: { cc: [], bcc: [], signature, forward: { to, message_ids: ids } },
  });
}
