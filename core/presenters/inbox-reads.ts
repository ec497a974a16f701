/**
 * Reads that end in a presenter, shared by the REST routes and the live events (core/events/live.ts),
 * so a dashboard gets the same object from an event as from a GET. Each read is a fixed number
 * of queries, however many objects it returns.
 */
import { z } from '../../lib/zod.ts';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { conversationColumns, conversationRow, presentConversationListItem, type ConversationListItem, type ConversationRow } from './conversation.ts';
import { customerColumns, customerRow, presentCustomer, type Customer } from './customer.ts';
import { messageColumns, messageRow, presentMessage, type Message } from './message.ts';
import { serviceLevelsByConversation } from './service-levels.ts';

export async function customersByIds(q: Queryable, ids: (string | null)[]): Promise<Map<string, Customer>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  if (wanted.length === 0) return new Map();
  const rows = await q.any(sql.type(customerRow)`
    select ${customerColumns} from customers cu join businesses b on b.id = cu.business_id
    where cu.id = any(${sql.array(wanted, 'uuid')})`);
  return new Map(rows.map((r) => [r.id, presentCustomer(r)]));
}

/**
 * Each conversation's latest message the customer can see: a private note is left out, as it
 * leaves `last_message_at` and the conversation's place in the inbox (docs/decisions.md#private-notes-and-mentions).
 */
export async function lastMessages(q: Queryable, conversationIds: string[]): Promise<Map<string, Message>> {
  if (conversationIds.length === 0) return new Map();
  const rows = await q.any(sql.type(messageRow)`
    select ${messageColumns}
    from unnest(${sql.array(conversationIds, 'uuid')}) as ids(id)
    cross join lateral (
      select * from messages m where m.conversation_id = ids.id and not m.private and m.delivery_status is distinct from 'scheduled' order by m.created_at desc, m.id desc limit 1
    ) m`);
  return new Map(rows.map((r) => [r.conversation_id, presentMessage(r)]));
}

const labelNameRow = z.object({ conversation_id: z.string(), name: z.string() });

/** Each conversation's label names, in alphabetical order (one query however many conversations). */
export async function labelsByConversation(q: Queryable, rows: readonly Pick<ConversationRow, 'id' | 'business_id'>[]): Promise<Map<string, string[]>> {
  const byConversation = new Map<string, string[]>();
  if (rows.length === 0) return byConversation;
  const businesses = [...new Set(rows.map((r) => r.business_id))];
  const found = await q.any(sql.type(labelNameRow)`
    select cl.conversation_id, l.name
    from conversation_labels cl join labels l on l.business_id = cl.business_id and l.id = cl.label_id
    where cl.business_id = any(${sql.array(businesses, 'uuid')}) and cl.conversation_id = any(${sql.array([...new Set(rows.map((r) => r.id))], 'uuid')})
    order by lower(l.name)`);
  for (const r of found) {
    const names = byConversation.get(r.conversation_id);
    if (names) names.push(r.name);
    else byConversation.set(r.conversation_id, [r.name]);
  }
  return byConversation;
}

/** Conversation list entries (GET /conversations) for rows already read, in their order. */
export async function presentConversationListItems(q: Queryable, rows: readonly ConversationRow[]): Promise<ConversationListItem[]> {
  const [customers, latest, labels, levels] = await Promise.all([
    customersByIds(
      q,
      rows.map((r) => r.customer_id),
    ),
    lastMessages(
      q,
      rows.map((r) => r.id),
    ),
    labelsByConversation(q, rows),
    serviceLevelsByConversation(q, rows),
  ]);
  return rows.map((r) =>
    presentConversationListItem(
      r,
      r.customer_id ? (customers.get(r.customer_id) ?? null) : null,
      labels.get(r.id) ?? [],
      latest.get(r.id) ?? null,
      levels.get(r.id),
    ),
  );
}

/** The list entries of these conversations of the business (others are left out), keyed by id. */
export async function conversationListItems(q: Queryable, businessId: string, ids: string[]): Promise<Map<string, ConversationListItem>> {
  if (ids.length === 0) return new Map();
  const rows = await q.any(sql.type(conversationRow)`
    select ${conversationColumns} from conversations c
    where c.business_id = ${businessId} and c.id = any(${sql.array([...new Set(ids)], 'uuid')})`);
  const items = await presentConversationListItems(q, rows);
  return new Map(items.map((item) => [item.id, item]));
}

/** These messages of the business as GET …/messages shows them (others are left out), keyed by id. */
export async function messagesByIds(q: Queryable, businessId: string, ids: string[]): Promise<Map<string, Message>> {
  if (ids.length === 0) return new Map();
  const rows = await q.any(sql.type(messageRow)`
    select ${messageColumns} from messages m
    where m.business_id = ${businessId} and m.id = any(${sql.array([...new Set(ids)], 'uuid')})`);
  return new Map(rows.map((r) => [r.id, presentMessage(r)]));
}
