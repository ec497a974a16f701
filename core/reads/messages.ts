/**
 * The message reads: every Message object the API presents (GET …/messages, the `messages` and
 * `last_message` of a conversation, the `message_created` / `message_updated` events, the
 * `message.*` webhooks, the customer export) is read here and presented by
 * core/presenters/message.ts. Each read is a fixed number of queries, however many messages or
 * conversations it covers. A write that returns the row it wrote (a reply, a delivery status)
 * presents that row with the same columns and presenter instead of reading it again.
 *
 * Which conversations the caller may see (team-scoped visibility) is settled by the conversation
 * read a route makes first (core/reads/conversations.ts); these take conversations already known.
 */
import { z } from '../../lib/zod.ts';
import { prepared, sql, type Queryable } from '../adapters/postgres/db.ts';
import type { FragmentSqlToken } from 'slonik';
import { messageColumns, messageRow, presentMessage, type Message } from '../presenters/message.ts';
import { audienceColumns, audienceFields } from '../domain/team-visibility.ts';
import { cursorColumn, type Cursor } from './keyset.ts';

/** These messages of the business as GET …/messages shows them (others are left out), keyed by id. */
export async function messagesByIds(q: Queryable, businessId: string, ids: string[]): Promise<Map<string, Message>> {
  if (ids.length === 0) return new Map();
  const rows = await q.any(
    prepared(sql.type(messageRow)`
    select ${messageColumns} from messages m
    where m.business_id = ${businessId} and m.id = any(${sql.array([...new Set(ids)], 'uuid')})`),
  );
  return new Map(rows.map((r) => [r.id, presentMessage(r)]));
}

const messageWithAudience = messageRow.extend(audienceFields);

/**
 * messagesByIds, each with who may see its conversation under team-scoped visibility
 * (core/domain/team-visibility.ts audienceColumns): the live events' read, which so learns where
 * each event may go without a query of its own.
 */
export async function messagesWithAudience(
  q: Queryable,
  businessId: string,
  ids: string[],
): Promise<{ message: Message; audience: { team_visibility: boolean; audience: string[] | null } }[]> {
  if (ids.length === 0) return [];
  const rows = await q.any(
    prepared(sql.type(messageWithAudience)`
    select ${messageColumns}, ${audienceColumns('c')}
    from messages m join conversations c on c.id = m.conversation_id and c.business_id = m.business_id
    where m.business_id = ${businessId} and m.id = any(${sql.array([...new Set(ids)], 'uuid')})`),
  );
  return rows.map((row) => ({ message: presentMessage(row), audience: { team_visibility: row.team_visibility, audience: row.audience } }));
}

/**
 * The conversation's latest message the customer can see, as a select for a lateral join on a
 * conversation id: a private note is left out, as it leaves `last_message_at` and the
 * conversation's place in the inbox (docs/decisions.md#private-notes-and-mentions).
 */
export const latestVisibleMessage = (conversationId: FragmentSqlToken) => sql.fragment`
  select ${messageColumns} from messages m
  where m.conversation_id = ${conversationId} and not m.private and m.delivery_status is distinct from 'scheduled'
  order by m.created_at desc, m.id desc limit 1`;

/**
 * The conversation's latest message that a person wrote (the customer, an agent, the AI agent),
 * as latestVisibleMessage selects it: what the inbox row previews, so an automatic message (the
 * away reply, the satisfaction question) or a note of Parley's never hides what the customer said.
 */
export const latestConversationalMessage = (conversationId: FragmentSqlToken) => sql.fragment`
  select ${messageColumns} from messages m
  where m.conversation_id = ${conversationId} and not m.private and m.delivery_status is distinct from 'scheduled' and m.sender_type <> 'system'
  order by m.created_at desc, m.id desc limit 1`;

const pagedMessageRow = messageRow.extend({ cursor_at: z.string() });

/**
 * A page of a conversation's messages, oldest first: the `limit` latest ones before the cursor
 * (or overall). `next` pages further back in time. `images`: show the remote images of HTML mail.
 */
export async function messagePage(
  q: Queryable,
  conversationId: string,
  limit: number,
  before?: Cursor,
  options: { images?: boolean } = {},
): Promise<{ messages: Message[]; next: Cursor | null }> {
  const rows = await q.any(sql.type(pagedMessageRow)`
    select ${messageColumns}, ${cursorColumn(sql.fragment`m.created_at`)} as cursor_at
    from messages m
    where m.conversation_id = ${conversationId}
      ${before ? sql.fragment`and (m.created_at, m.id) < (${before.at}::timestamptz, ${before.id}::uuid)` : sql.fragment``}
    order by m.created_at desc, m.id desc
    limit ${limit + 1}`);
  const page = rows.slice(0, limit);
  const oldest = page.at(-1);
  const next = rows.length > limit && oldest ? { at: oldest.cursor_at, id: oldest.id } : null;
  return { messages: page.reverse().map((row) => presentMessage(row, options)), next };
}

/** Every message of these conversations of the business, oldest first (the customer export). */
export async function allMessages(q: Queryable, businessId: string, conversationIds: string[]): Promise<Message[]> {
  if (conversationIds.length === 0) return [];
  const rows = await q.any(sql.type(messageRow)`
    select ${messageColumns} from messages m
    where m.business_id = ${businessId} and m.conversation_id = any(${sql.array(conversationIds, 'uuid')})
    order by m.created_at, m.id`);
  return rows.map((row) => presentMessage(row));
}
