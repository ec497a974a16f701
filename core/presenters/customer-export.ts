/**
 * GET /customers/{id}/export: all of one customer's data as JSON (GDPR article 15): the record,
 * the platform identities that file messages on it, every conversation with every message, and
 * the files those messages carry, linked. Read in one snapshot (a repeatable-read transaction),
 * a fixed number of queries however long the history.
 */
import { z } from '../../lib/zod.ts';
import { sql, type Db } from '../adapters/postgres/db.ts';
import { customerColumns, customerRow, presentCustomer, visibleCustomer, type Customer } from './customer.ts';
import { conversationColumns, conversationRow, presentConversation, type Conversation } from './conversation.ts';
import { messageColumns, messageRow, presentMessage, type Message } from './message.ts';
import { labelsByConversation } from './inbox-reads.ts';

export type CustomerExport = {
  exported_at: string;
  customer: Customer;
  identities: { channel_id: string | null; channel_type: string | null; platform_user_id: string }[];
  conversations: Conversation[];
  attachments: { conversation_id: string; message_id: string; url: string | null; filename: string | null; content_type: string | null; size: number | null }[];
  /** The team's notes on the customer, oldest first (data about them too). */
  notes: { id: string; author_name: string; body: string; created_at: string }[];
};

const noteRow = z.object({ id: z.string(), author_name: z.string(), body: z.string(), created_at: z.string() });

const identityRow = z.object({ channel_id: z.string().nullable(), channel_type: z.string().nullable(), platform_user_id: z.string() });

const text = (v: unknown) => (typeof v === 'string' ? v : null);

/** The export of the business's customer `number`; null when it has no such (visible) customer. */
export async function exportCustomer(db: Db, businessId: string, number: number): Promise<CustomerExport | null> {
  return db.transaction(async (tx) => {
    await tx.query(sql.unsafe`set transaction isolation level repeatable read, read only`);
    const row = await tx.maybeOne(sql.type(customerRow)`
      select ${customerColumns} from customers cu join businesses b on b.id = cu.business_id
      where cu.business_id = ${businessId} and cu.number = ${number} and ${visibleCustomer}`);
    if (!row) return null;
    const customer = presentCustomer(row);
    const identities = await tx.any(sql.type(identityRow)`
      select cu.channel_id, ch.type as channel_type, cu.platform_user_id
      from customers cu left join channels ch on ch.id = cu.channel_id
      where cu.business_id = ${businessId} and (cu.id = ${row.id} or cu.merged_into = ${row.id}) and cu.platform_user_id is not null
      order by cu.created_at, cu.id`);
    const conversations = await tx.any(sql.type(conversationRow)`
      select ${conversationColumns} from conversations c
      where c.business_id = ${businessId} and c.customer_id = ${row.id}
      order by c.created_at, c.id`);
    const ids = conversations.map((c) => c.id);
    const messages = ids.length
      ? await tx.any(sql.type(messageRow)`
          select ${messageColumns} from messages m
          where m.business_id = ${businessId} and m.conversation_id = any(${sql.array(ids, 'uuid')})
          order by m.created_at, m.id`)
      : [];
    const labels = await labelsByConversation(tx, conversations);
    const byConversation = new Map<string, Message[]>();
    for (const m of messages) {
      const list = byConversation.get(m.conversation_id) ?? [];
      list.push(presentMessage(m));
      byConversation.set(m.conversation_id, list);
    }
    const attachments = messages.flatMap((m) =>
      m.attachments.map((a) => ({
        conversation_id: m.conversation_id,
        message_id: m.id,
        url: text(a.url),
        filename: text(a.filename),
        content_type: text(a.content_type),
        size: typeof a.size === 'number' ? a.size : null,
      })),
    );
    const notes = await tx.any(sql.type(noteRow)`
      select id, author_name, body, created_at from customer_notes
      where business_id = ${businessId} and customer_id = ${row.id}
      order by created_at, id`);
    return {
      exported_at: new Date().toISOString(),
      customer,
      identities: [...identities],
      conversations: conversations.map((c) => presentConversation(c, customer, labels.get(c.id) ?? [], byConversation.get(c.id) ?? [])),
      attachments,
      notes: [...notes],
    };
  });
}
