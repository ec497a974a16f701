/** Reads behind the conversation routes, each scoped to the caller's business. */
import { z } from '../../../lib/zod.ts';
import { sql, type Queryable } from '../../../core/adapters/postgres/db.ts';
import { notFound } from '../../../core/errors.ts';
import { conversationColumns, conversationRow, presentConversation, type Conversation, type ConversationRow } from '../../../core/presenters/conversation.ts';
import { customersByIds, labelsByConversation } from '../../../core/presenters/inbox-reads.ts';
import { serviceLevelsByConversation } from '../../../core/presenters/service-levels.ts';
import { messageColumns, messageRow, presentMessage, type Message } from '../../../core/presenters/message.ts';
import { cursorColumn, encodeCursor, type Cursor } from '../../cursor.ts';

export async function findConversation(q: Queryable, businessId: string, id: string): Promise<ConversationRow> {
  const row = await q.maybeOne(sql.type(conversationRow)`
    select ${conversationColumns} from conversations c where c.id = ${id} and c.business_id = ${businessId}`);
  if (!row) throw notFound('Conversation not found');
  return row;
}

const pagedMessageRow = messageRow.extend({ cursor_at: z.string() });

/**
 * A page of a conversation's messages, oldest first: the `limit` latest ones before the cursor
 * (or overall). `next` pages further back in time.
 */
export async function messagePage(
  q: Queryable,
  conversationId: string,
  limit: number,
  before?: Cursor,
  options: { images?: boolean } = {},
): Promise<{ messages: Message[]; next: string | null }> {
  const rows = await q.any(sql.type(pagedMessageRow)`
    select ${messageColumns}, ${cursorColumn(sql.fragment`m.created_at`)} as cursor_at
    from messages m
    where m.conversation_id = ${conversationId}
      ${before ? sql.fragment`and (m.created_at, m.id) < (${before.at}::timestamptz, ${before.id}::uuid)` : sql.fragment``}
    order by m.created_at desc, m.id desc
    limit ${limit + 1}`);
  const page = rows.slice(0, limit);
  const oldest = page.at(-1);
  const next = rows.length > limit && oldest ? encodeCursor({ at: oldest.cursor_at, id: oldest.id }) : null;
  return { messages: page.reverse().map((row) => presentMessage(row, options)), next };
}

/** The Conversation object: with its customer, its labels and its latest 100 messages, oldest first. */
export async function loadConversation(q: Queryable, businessId: string, id: string, options: { images?: boolean } = {}): Promise<Conversation> {
  const row = await findConversation(q, businessId, id);
  const customers = await customersByIds(q, [row.customer_id]);
  const labels = await labelsByConversation(q, [row]);
  const { messages } = await messagePage(q, row.id, 100, undefined, options);
  const levels = await serviceLevelsByConversation(q, [row]);
  return presentConversation(row, row.customer_id ? (customers.get(row.customer_id) ?? null) : null, labels.get(row.id) ?? [], messages, levels.get(row.id));
}
