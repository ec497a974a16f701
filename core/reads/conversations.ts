/**
 * The conversation reads: every Conversation and ConversationListItem the API presents
 * (GET /conversations and /conversations/{id}, the answers of the writes that return one, the
 * `conversation_created` / `conversation_updated` events, the `conversation.*` webhooks, the
 * customer export) is read here and presented by core/presenters/conversation.ts, with its
 * customer (core/reads/customers.ts), its labels, its messages or latest message
 * (core/reads/messages.ts) and its SLA and CSAT (core/reads/service-levels.ts). Each read is a
 * fixed number of queries, however many conversations it returns (no N+1).
 *
 * Whom a read is for (`Reader`): a member, whom team-scoped visibility may limit
 * (core/domain/team-visibility.ts `visibleTo`, applied in the read's own query), or the business
 * itself: live events (core/events/live.ts sends each to the members who may see it), webhooks
 * (the business's own endpoints), and the answer of a write the caller just made.
 */
import { z } from '../../lib/zod.ts';
import { prepared, sql, type Queryable } from '../adapters/postgres/db.ts';
import { notFound } from '../errors.ts';
import { audienceColumns, audienceFields, visibleTo, type Viewer } from '../domain/team-visibility.ts';
import {
  conversationColumns,
  conversationRow,
  presentConversation,
  presentConversationListItem,
  type Conversation,
  type ConversationListItem,
  type ConversationRow,
} from '../presenters/conversation.ts';
import type { Message } from '../presenters/message.ts';
import { SLA_DUE_SOON_MINUTES } from '../presenters/service-levels.ts';
import { customerColumns, customerRow, presentCustomer } from '../presenters/customer.ts';
import { messageRow, presentMessage } from '../presenters/message.ts';
import { cursorColumn, pageOf, type Cursor } from './keyset.ts';
import { allMessages, latestConversationalMessage, latestVisibleMessage, messagePage } from './messages.ts';
import { serviceLevelsOf, slaExtrasColumns, slaExtrasFields } from './service-levels.ts';

/** Whom a read is for: a member (team-scoped visibility applies), or the business as a whole. */
export type Reader = Viewer | { businessId: string };

/** The condition "the reader may see the conversation" on `conversations c`. */
const seenBy = (reader: Reader) => ('teamScoped' in reader ? visibleTo(reader) : sql.fragment`true`);

const labelNameRow = z.object({ conversation_id: z.string(), name: z.string() });

/** Each conversation's label names, in alphabetical order (one query however many conversations). */
export async function labelsByConversation(q: Queryable, rows: readonly Pick<ConversationRow, 'id' | 'business_id'>[]): Promise<Map<string, string[]>> {
  const byConversation = new Map<string, string[]>();
  if (rows.length === 0) return byConversation;
  const businesses = [...new Set(rows.map((r) => r.business_id))];
  const found = await q.any(
    prepared(sql.type(labelNameRow)`
    select cl.conversation_id, l.name
    from conversation_labels cl join labels l on l.business_id = cl.business_id and l.id = cl.label_id
    where cl.business_id = any(${sql.array(businesses, 'uuid')}) and cl.conversation_id = any(${sql.array([...new Set(rows.map((r) => r.id))], 'uuid')})
    order by lower(l.name)`),
  );
  for (const r of found) {
    const names = byConversation.get(r.conversation_id);
    if (names) names.push(r.name);
    else byConversation.set(r.conversation_id, [r.name]);
  }
  return byConversation;
}

/** A column of the extras statement, named `${part}.${column}` (customer, last message). */
const partColumns = (alias: string, part: string, row: z.ZodObject) =>
  sql.join(
    Object.keys(row.shape).map((name) => sql.fragment`${sql.identifier([alias, name])} as ${sql.identifier([`${part}.${name}`])}`),
    sql.fragment`, `,
  );

/** The columns of one part of an extras row, without their prefix; null when the part is not there (its id is null). */
function partOf(row: Record<string, unknown>, part: string, schema: z.ZodObject): Record<string, unknown> | null {
  if (row[`${part}.id`] === null) return null;
  return Object.fromEntries(Object.keys(schema.shape).map((name) => [name, row[`${part}.${name}`]]));
}

/** The relation `ids` (id, business_id, customer_id, policy_id) the extras are read over, from the conversations row `alias`. */
const idsOf = (alias: string) => {
  const c = (column: string) => sql.identifier([alias, column]);
  return sql.fragment`cross join lateral (select ${c('id')} as id, ${c('business_id')} as business_id, ${c('customer_id')} as customer_id, ${c('sla_policy_id')} as policy_id) ids`;
};

/** The label names of the conversation `ids.id`, alphabetical, as the column `label_names`. */
const labelNamesColumn = sql.fragment`
  (select coalesce(array_agg(l.name order by lower(l.name)), '{}')
   from conversation_labels cl join labels l on l.business_id = cl.business_id and l.id = cl.label_id
   where cl.business_id = ids.business_id and cl.conversation_id = ids.id) as label_names`;
const customerJoin = sql.fragment`
  left join lateral (select ${customerColumns} from customers cu join businesses b on b.id = cu.business_id where cu.id = ids.customer_id) cux on true`;

/**
 * What a list entry carries beside its row, as columns over a relation `ids` (id, business_id,
 * customer_id, policy_id) with the lateral joins `extrasJoins`: the customer (`customer.*`), the
 * latest message (`last.*`), the label names, the SLA and CSAT (slaExtrasColumns). The parts are
 * read as core/reads/customers.ts, messages.ts and service-levels.ts read them, and each is
 * parsed by its own row schema.
 */
const extrasColumns = sql.fragment`
  ${partColumns('cux', 'customer', customerRow)}, ${partColumns('lm', 'last', messageRow)}, ${partColumns('pm', 'preview', messageRow)}, ${labelNamesColumn}, ${slaExtrasColumns}`;
const previewJoin = sql.fragment`left join lateral (${latestConversationalMessage(sql.fragment`ids.id`)}) pm on true`;
const extrasJoins = sql.fragment`
  ${customerJoin}
  left join lateral (${latestVisibleMessage(sql.fragment`ids.id`)}) lm on true
  ${previewJoin}`;
const extrasFields = { label_names: z.array(z.string()), ...slaExtrasFields };
type ListExtras = z.infer<z.ZodObject<typeof extrasFields>> & Record<string, unknown>;

/**
 * What every presentation of a conversation carries beside its row and messages, from its extras
 * (none: read as a conversation with no customer, labels or messages).
 */
function partsOf(r: ConversationRow, extra: ListExtras | undefined, written?: { last: Message }) {
  const customer = extra ? partOf(extra, 'customer', customerRow) : null;
  // A statement's own write (writtenEntry) names its latest message; a read has its `last.*` columns.
  const last = written ? null : extra ? partOf(extra, 'last', messageRow) : null;
  // The preview: the message written when a person wrote it, else the latest such one before it.
  const preview = written && written.last.sender_type !== 'system' && !written.last.private ? null : extra ? partOf(extra, 'preview', messageRow) : null;
  return {
    customer: customer ? presentCustomer(customerRow.parse(customer)) : null,
    labels: extra?.label_names ?? [],
    last: written ? written.last : last ? presentMessage(messageRow.parse(last)) : null,
    preview:
      written && written.last.sender_type !== 'system' && !written.last.private ? written.last : preview ? presentMessage(messageRow.parse(preview)) : null,
    levels: serviceLevelsOf(r, extra),
  };
}

/** The list entry of a row and its extras. */
function listItemOf(r: ConversationRow, extra: ListExtras | undefined): ConversationListItem {
  const { customer, labels, last, preview, levels } = partsOf(r, extra);
  return presentConversationListItem(r, customer, labels, last, levels, preview);
}

const extrasRow = z.object({ conversation_id: z.string(), ...extrasFields }).catchall(z.unknown());

/**
 * The extras of rows already read, keyed by conversation id: one statement however many rows,
 * also inside a transaction (a write's answer, the export's snapshot).
 */
async function extrasOf(q: Queryable, rows: readonly ConversationRow[]): Promise<Map<string, ListExtras>> {
  if (rows.length === 0) return new Map();
  const found = await q.any(
    prepared(sql.type(extrasRow)`
    select ids.id as conversation_id, ${extrasColumns}
    from unnest(${sql.array(
      rows.map((r) => r.id),
      'uuid',
    )}, ${sql.array(
      rows.map((r) => r.business_id),
      'uuid',
    )}, ${sql.array(
      rows.map((r) => r.customer_id),
      'uuid',
    )}, ${sql.array(
      rows.map((r) => r.sla_policy_id),
      'uuid',
    )}) as ids(id, business_id, customer_id, policy_id)
    ${extrasJoins}`),
  );
  return new Map(found.map((f) => [f.conversation_id, f]));
}

/** List entries (GET /conversations) for rows already read, in their order. */
async function listItemsOf(q: Queryable, rows: readonly ConversationRow[]): Promise<ConversationListItem[]> {
  const extras = await extrasOf(q, rows);
  return rows.map((r) => listItemOf(r, extras.get(r.id)));
}

/** These conversations of the business with their extras, one statement: the live events' and the webhooks' read. */
const itemsByIds = <T extends z.ZodObject>(row: T, audience: boolean, businessId: string, ids: string[]) =>
  prepared(sql.type(row)`
    select ${conversationColumns}, ${audience ? sql.fragment`${audienceColumns('c')},` : sql.fragment``} ${extrasColumns}
    from conversations c
    ${idsOf('c')}
    ${extrasJoins}
    where c.business_id = ${businessId} and c.id = any(${sql.array([...new Set(ids)], 'uuid')})`);

const conversationWithExtras = conversationRow.extend(extrasFields).catchall(z.unknown());

/** The list entries of these conversations of the business (others are left out), keyed by id: live events and webhooks. */
export async function conversationListItems(q: Queryable, businessId: string, ids: string[]): Promise<Map<string, ConversationListItem>> {
  if (ids.length === 0) return new Map();
  const rows = await q.any(itemsByIds(conversationWithExtras, false, businessId, ids));
  return new Map(rows.map((row) => [row.id, listItemOf(row, row)]));
}

/**
 * The list entry of a conversation that a statement has just written, read by that statement
 * itself (the reply's, core/commands/messages.ts), so its `conversation_updated` event costs no
 * read after the commit. A statement does not see its own writes, so the row comes from the
 * write's RETURNING: `writtenEntry(alias)` selects over the relation `alias` holding
 * conversationColumns, named `conversation.*`, beside the customer (`customer.*`), the labels,
 * the SLA and CSAT, which such a statement does not write. Its latest message is the one the
 * statement wrote (writtenListEntry's `last`).
 */
export const writtenEntry = (alias: string) => sql.fragment`
  select ${partColumns(alias, 'conversation', conversationRow)}, ${partColumns('cux', 'customer', customerRow)}, ${partColumns('pm', 'preview', messageRow)}, ${labelNamesColumn}, ${slaExtrasColumns}
  from ${sql.identifier([alias])}
  ${idsOf(alias)}
  ${customerJoin}
  ${previewJoin}`;

const writtenExtras = z.object(extrasFields).catchall(z.unknown());

/** The list entry from a row that has writtenEntry's columns (null when it has none: nothing was written), and its latest message. */
export function writtenListEntry(row: Record<string, unknown>, last: Message): ConversationListItem | null {
  const written = partOf(row, 'conversation', conversationRow);
  if (!written) return null;
  const conversation = conversationRow.parse(written);
  const parts = partsOf(conversation, writtenExtras.parse(row), { last });
  return presentConversationListItem(conversation, parts.customer, parts.labels, parts.last, parts.levels, parts.preview);
}

const conversationWithAudience = conversationRow.extend(audienceFields).extend(extrasFields).catchall(z.unknown());

/**
 * conversationListItems, each with who may see it under team-scoped visibility
 * (core/domain/team-visibility.ts audienceColumns): the live events' read, which so learns where
 * each event may go without a query of its own.
 */
export async function conversationListItemsWithAudience(
  q: Queryable,
  businessId: string,
  ids: string[],
): Promise<{ conversation: ConversationListItem; audience: { team_visibility: boolean; audience: string[] | null } }[]> {
  if (ids.length === 0) return [];
  const rows = await q.any(itemsByIds(conversationWithAudience, true, businessId, ids));
  return rows.map((row) => ({ conversation: listItemOf(row, row), audience: { team_visibility: row.team_visibility, audience: row.audience } }));
}

/** The conversation's row, when the reader may see it; 404 `Conversation not found` otherwise (as another business's). */
export async function findConversation(q: Queryable, reader: Reader, id: string): Promise<ConversationRow> {
  const row = await q.maybeOne(sql.type(conversationRow)`
    select ${conversationColumns} from conversations c where c.id = ${id} and c.business_id = ${reader.businessId} and ${seenBy(reader)}`);
  if (!row) throw notFound('Conversation not found');
  return row;
}

/** The messages a Conversation object carries: its latest ones. */
const CONVERSATION_MESSAGES = 100;

/**
 * The Conversation object (GET /conversations/{id}): with its customer, its labels and its latest
 * 100 messages, oldest first; `older`: where the messages before those continue (GET
 * …/messages?before=), null when it has no more.
 */
export async function loadConversationWithOlder(
  q: Queryable,
  reader: Reader,
  id: string,
  options: { images?: boolean } = {},
): Promise<{ conversation: Conversation; older: Cursor | null }> {
  const row = await findConversation(q, reader, id);
  const extras = await extrasOf(q, [row]);
  const { messages, next } = await messagePage(q, row.id, CONVERSATION_MESSAGES, undefined, options);
  const { customer, labels, levels } = partsOf(row, extras.get(row.id));
  return { conversation: presentConversation(row, customer, labels, messages, levels), older: next };
}

/** The Conversation object (GET /conversations/{id}), as loadConversationWithOlder reads it. */
export async function loadConversation(q: Queryable, reader: Reader, id: string, options: { images?: boolean } = {}): Promise<Conversation> {
  return (await loadConversationWithOlder(q, reader, id, options)).conversation;
}

/** What GET /conversations filters by, as its query parses it. */
export type ConversationFilter = {
  status?: readonly string[];
  /** `true`: only snoozed ones; `false`: only awake ones. */
  snoozed?: boolean;
  priority?: readonly string[];
  /** A member's user id, or `none`: unassigned. */
  assignee_id?: string;
  channel_type?: string;
  /** A team id, or `none`: no team. */
  team_id?: string;
  customer_id?: string;
  /** A label name, case-insensitive (an unknown one lists nothing). */
  label?: string;
  sla?: 'breached' | 'due_soon' | 'due';
  /** `updated` (default): most recently updated first; `sla`: soonest due first, only conversations with something due. */
  sort?: 'updated' | 'sla';
};

const pagedConversationRow = conversationRow.extend({ cursor_at: z.string() });

/**
 * GET /conversations: a page of the conversations the reader may see, as list entries; `next`
 * continues after the last of them when more exist.
 */
export async function conversationPage(
  q: Queryable,
  reader: Reader,
  filter: ConversationFilter,
  page: { limit: number; before?: Cursor },
): Promise<{ conversations: ConversationListItem[]; next: Cursor | null }> {
  const { businessId } = reader;
  const conditions = [sql.fragment`c.business_id = ${businessId}`];
  if (filter.status) conditions.push(sql.fragment`c.status = any(${sql.array([...filter.status], 'text')})`);
  if (filter.snoozed === true) conditions.push(sql.fragment`c.snoozed_at is not null`);
  if (filter.snoozed === false) conditions.push(sql.fragment`c.snoozed_at is null`);
  if (filter.priority) conditions.push(sql.fragment`c.priority = any(${sql.array([...filter.priority], 'text')})`);
  if (filter.assignee_id === 'none') conditions.push(sql.fragment`c.assignee_id is null`);
  else if (filter.assignee_id) conditions.push(sql.fragment`c.assignee_id = ${filter.assignee_id}`);
  if (filter.channel_type) conditions.push(sql.fragment`c.channel_type = ${filter.channel_type}`);
  if (filter.team_id === 'none') conditions.push(sql.fragment`c.team_id is null`);
  else if (filter.team_id) conditions.push(sql.fragment`c.team_id = ${filter.team_id}`);
  if ('teamScoped' in reader && reader.teamScoped) conditions.push(visibleTo(reader));
  if (filter.customer_id) conditions.push(sql.fragment`c.customer_id = ${filter.customer_id}`);
  if (filter.label) {
    const label = await q.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
      select id from labels where business_id = ${businessId} and lower(name) = lower(${filter.label})`);
    if (!label) return { conversations: [], next: null };
    conditions.push(sql.fragment`exists (
      select 1 from conversation_labels cl where cl.business_id = c.business_id and cl.conversation_id = c.id and cl.label_id = ${label})`);
  }
  if (filter.sla === 'breached') conditions.push(sql.fragment`c.sla_due_at <= now()`);
  else if (filter.sla === 'due_soon')
    conditions.push(sql.fragment`c.sla_due_at > now() and c.sla_due_at <= now() + make_interval(mins => ${SLA_DUE_SOON_MINUTES})`);
  else if (filter.sla === 'due') conditions.push(sql.fragment`c.sla_due_at is not null`);
  const bySla = filter.sort === 'sla';
  if (bySla) conditions.push(sql.fragment`c.sla_due_at is not null`);
  if (page.before) {
    conditions.push(
      bySla
        ? sql.fragment`(c.sla_due_at, c.id) > (${page.before.at}::timestamptz, ${page.before.id}::uuid)`
        : sql.fragment`(c.updated_at, c.id) < (${page.before.at}::timestamptz, ${page.before.id}::uuid)`,
    );
  }
  const rows = await q.any(sql.type(pagedConversationRow)`
    select ${conversationColumns}, ${cursorColumn(bySla ? sql.fragment`c.sla_due_at` : sql.fragment`c.updated_at`)} as cursor_at
    from conversations c
    where ${sql.join(conditions, sql.fragment` and `)}
    order by ${bySla ? sql.fragment`c.sla_due_at, c.id` : sql.fragment`c.updated_at desc, c.id desc`}
    limit ${page.limit + 1}`);
  const { rows: shown, next } = pageOf(rows, page.limit);
  return { conversations: await listItemsOf(q, shown), next };
}

/**
 * Every conversation of the customer, oldest first, each with all its messages (private notes
 * included), and those messages oldest first across them all: the customer export.
 */
export async function customerHistory(q: Queryable, businessId: string, customerId: string): Promise<{ conversations: Conversation[]; messages: Message[] }> {
  const rows = await q.any(sql.type(conversationRow)`
    select ${conversationColumns} from conversations c
    where c.business_id = ${businessId} and c.customer_id = ${customerId}
    order by c.created_at, c.id`);
  const messages = await allMessages(
    q,
    businessId,
    rows.map((r) => r.id),
  );
  const extras = await extrasOf(q, rows);
  const byConversation = new Map<string, Message[]>();
  for (const m of messages) {
    const list = byConversation.get(m.conversation_id) ?? [];
    list.push(m);
    byConversation.set(m.conversation_id, list);
  }
  const conversations = rows.map((r) => {
    const { customer, labels, levels } = partsOf(r, extras.get(r.id));
    return presentConversation(r, customer, labels, byConversation.get(r.id) ?? [], levels);
  });
  return { conversations, messages };
}
