/**
 * Search over a business's whole history (GET /api/v1/search): messages by their words,
 * customers by partial name, e-mail or phone, and conversations by either. Newest first, paged
 * by keyset cursors over (timestamp, id), every statement scoped to one business.
 *
 * Words: PostgreSQL full text with the language-neutral `simple` configuration and
 * `websearch_to_tsquery` (what people type in a search box: words are ANDed, "quoted phrases",
 * `or`, `-excluded`; never a syntax error). Partial values: trigram-indexed substring matches
 * (pg_trgm). Index choice and measurements: sql/migrations/0070_search.sql, bench/rows/search.ts.
 */
import { z } from 'zod';
import type { FragmentSqlToken } from 'slonik';
import { sql, withCustomPlans, type Queryable } from '../../adapters/postgres/db.ts';
import { digitsOf, markDigits, markSubstring, markWords, queryWords, type Segment } from './highlight.ts';

export const searchTypes = ['conversations', 'customers', 'messages'] as const;
export type SearchType = (typeof searchTypes)[number];

/** A keyset position: the row's timestamp with microseconds in UTC (ISO) and its id. */
export type SearchCursor = { at: string; id: string };

export type SearchInput = {
  businessId: string;
  /** What the member typed, trimmed, 1–200 characters (checked by the route). */
  text: string;
  /** Results after this position (the previous page's last), or null for the first page. */
  after: SearchCursor | null;
  /** Results per page. */
  limit: number;
  /**
   * Which conversations the searcher may see (team-scoped visibility), as a condition over the
   * conversations row `c` (core/domain/team-visibility.ts `visibleTo`); omitted: all of them.
   * Customers are listed whatever it says; their latest conversation is the latest visible one.
   */
  visible?: FragmentSqlToken;
  /** Messages only: the walk's windows (default WALK_WINDOWS; tests make them small to reach every step). */
  walkWindows?: readonly number[];
  /** Conversations only: the walk's window, taken whatever the words (default: CONVERSATION_WALK when WALK_SAMPLE finds the words common, else 0: the GIN index at once). */
  conversationWalk?: number;
};

export type Page<T> = { results: T[]; next: SearchCursor | null };

export type MessageHit = {
  id: string;
  conversation_id: string;
  sender_type: string;
  /** A private note of the team. */
  private: boolean;
  created_at: string;
  customer: { uuid: string; name: string } | null;
  snippet: Segment[];
};

export type CustomerHit = {
  uuid: string;
  /** The customer's integer number (the id in /customers/{id}). */
  id: number;
  name: string;
  email: string | null;
  phone: string | null;
  created_at: string;
  /** Their most recently active conversation, to open it from the result; null when none. */
  latest_conversation_id: string | null;
  snippet: Segment[];
};

export type ConversationHit = {
  id: string;
  status: string;
  channel_type: string;
  updated_at: string;
  customer: { uuid: string; name: string; email: string | null; phone: string | null } | null;
  /** Why it was found: a message's words, or its customer's name, e-mail or phone. */
  matched_in: 'message' | 'customer';
  snippet: Segment[];
};

const tsquery = (text: string) => sql.fragment`websearch_to_tsquery('simple'::regconfig, ${text})`;

/** `to_char` with microseconds in UTC: ISO strings from the row parser keep only milliseconds. */
const micros = (column: FragmentSqlToken) => sql.fragment`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** Rows strictly after the cursor in (timestamp desc, id desc) order. */
const afterCursor = (at: FragmentSqlToken, id: FragmentSqlToken, cursor: SearchCursor | null) =>
  cursor ? sql.fragment`and (${at}, ${id}) < (${cursor.at}::timestamptz, ${cursor.id}::uuid)` : sql.fragment``;

/** LIKE pattern for a substring, with the wildcards of the text taken literally. */
const containsPattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Digits to compare with phone numbers: when the text looks like (part of) a number with at least 3 digits. */
function phoneDigits(text: string): string {
  return /^[\d\s+().\-\/]+$/.test(text) && digitsOf(text).length >= 3 ? digitsOf(text) : '';
}

/** The customer (alias `cu`) has the text in their name or e-mail, or its digits in their phone. */
function customerMatches(text: string): FragmentSqlToken {
  const pattern = containsPattern(text);
  const digits = phoneDigits(text);
  return sql.fragment`(cu.name ilike ${pattern} or cu.email ilike ${pattern}
    ${digits ? sql.fragment`or regexp_replace(cu.phone, '\\D', '', 'g') like ${containsPattern(digits)}` : sql.fragment``})`;
}

function pageOf<T, R extends { cursor_at: string; id: string }>(rows: readonly R[], limit: number, present: (row: R) => T): Page<T> {
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return { results: shown.map(present), next: rows.length > limit && last ? { at: last.cursor_at, id: last.id } : null };
}

const messageRow = z.object({
  id: z.string(),
  conversation_id: z.string(),
  sender_type: z.string(),
  private: z.boolean(),
  created_at: z.string(),
  cursor_at: z.string(),
  customer_uuid: z.string().nullable(),
  customer_name: z.string().nullable(),
  content: z.string(),
});

/**
 * How many of the business's newest messages (from the cursor) are tested word by word before
 * the GIN index is asked for the older matches (steps of a widening walk). Neither index alone
 * serves "the newest 20 of this business with these words" at every word frequency: walking
 * the (business, time) btree and testing each message is fast for common words and reads the
 * whole history for rare ones; the GIN index finds rare words at once but must fetch and sort
 * every match of a common one. The planner chooses between them from word statistics and picks
 * badly for word combinations (measured on 1M messages: "w3 w40", estimated 1,600 matches,
 * walked 13,000 messages in 750 ms). So the walk is bounded to the newest WALK_WINDOWS messages
 * from the cursor (about 25 µs each on the loaded test machine: each is read from the table; the
 * btree cannot carry the words, see sql/migrations/0070_search.sql). A page found there is done;
 * otherwise the words are rarer than a page in that many messages and the GIN index returns the
 * older ones, few to sort.
 *
 * The second, wider window is walked only when the first found at least WALK_SAMPLE.enough
 * matches without filling a page (words in roughly 0.25-1 % of the messages, or a quoted phrase
 * of common words, which the GIN index cannot check for word order): there the GIN index would
 * fetch every match from the table (a phrase of two common words: hundreds of thousands, ~1 s
 * in the bench row, its p99; issue #39), while the walk stops after about a page. Rarer words
 * go to the GIN index after the first window, as before.
 */
export const WALK_WINDOWS = [2_000, 20_000];

const hitRow = z.object({ id: z.string(), created_at_micros: z.string() });
const edgeRow = z.object({ created_at_micros: z.string(), id: z.string() });

const before = (edge: SearchCursor | null) => (edge ? sql.fragment`and (m.created_at, m.id) < (${edge.at}::timestamptz, ${edge.id}::uuid)` : sql.fragment``);
// The plain `created_at >=` beside the row comparison lets the planner size the window from its histogram.
const notBefore = (edge: SearchCursor) =>
  sql.fragment`and m.created_at >= ${edge.at}::timestamptz and (m.created_at, m.id) >= (${edge.at}::timestamptz, ${edge.id}::uuid)`;

/**
 * The walk's statement: the matches among the business's messages after `from` and not before
 * `edge`, newest first. Planned for its values (withCustomPlans) it walks
 * messages_business_created_idx; planned without them it asked the GIN index for every match
 * of the words (issue #39). Exported for the test of its plan.
 */
export function windowHitsQuery(
  businessId: string,
  text: string,
  from: SearchCursor | null,
  edge: SearchCursor | null,
  limit: number,
  seen: FragmentSqlToken = sql.fragment``,
) {
  return sql.type(hitRow)`
      select m.id, ${micros(sql.fragment`m.created_at`)} as created_at_micros from messages m
      where m.business_id = ${businessId} and m.search_vector @@ ${tsquery(text)} ${before(from)} ${edge ? notBefore(edge) : sql.fragment``} ${seen}
      order by m.created_at desc, m.id desc limit ${limit}`;
}

/** Message ids matching, newest first, at most `want`, after `after` (see WALK_WINDOWS). */
async function matchingMessageIds(
  q: Queryable,
  businessId: string,
  text: string,
  after: SearchCursor | null,
  want: number,
  windows: readonly number[],
  visible: FragmentSqlToken | undefined,
): Promise<string[]> {
  const query = tsquery(text);
  // Hits in conversations the searcher may not see are skipped in the walk, so a page stays full.
  const seen = visible ? sql.fragment`and exists (select 1 from conversations c where c.id = m.conversation_id and ${visible})` : sql.fragment``;
  const found: string[] = [];
  let from = after;
  for (const [step, window] of windows.entries()) {
    // A wider window only for words common enough to fill a page there (WALK_SAMPLE.enough hits in the windows before it).
    if (step > 0 && found.length < WALK_SAMPLE.enough) break;
    // The window's oldest message (an index-only walk); none when the rest of the history is smaller.
    const edgeFound = await q.maybeOne(sql.type(edgeRow)`
      select ${micros(sql.fragment`m.created_at`)} as created_at_micros, m.id from messages m
      where m.business_id = ${businessId} ${before(from)}
      order by m.created_at desc, m.id desc offset ${window - 1} limit 1`);
    const edge = edgeFound ? { at: edgeFound.created_at_micros, id: edgeFound.id } : null;
    const hits = await q.any(windowHitsQuery(businessId, text, from, edge, want - found.length, seen));
    found.push(...hits.map((h) => h.id));
    if (found.length >= want || !edge) return found;
    from = edge;
  }
  // Rare words: every older match through the GIN index (materialized, so the planner cannot
  // turn it back into a walk), then the newest of them.
  const older = await q.any(sql.type(hitRow)`
    with hits as materialized (
      select m.id, m.created_at from messages m
      where m.business_id = ${businessId} and m.search_vector @@ ${query} ${before(from)} ${seen})
    select h.id, ${micros(sql.fragment`h.created_at`)} as created_at_micros from hits h
    order by h.created_at desc, h.id desc limit ${want - found.length}`);
  return [...found, ...older.map((h) => h.id)];
}

/**
 * Messages whose words match, newest first, each marked `private` when it is a note. Notes are
 * included on purpose (only members can search, and notes are for members); if a caller that is
 * not a member ever searches, filter `not m.private` in matchingMessageIds.
 */
export function searchMessages(q: Queryable, input: SearchInput): Promise<Page<MessageHit>> {
  return withCustomPlans(q, (t) => messagesPage(t, input));
}

async function messagesPage(q: Queryable, input: SearchInput): Promise<Page<MessageHit>> {
  const ids = await matchingMessageIds(q, input.businessId, input.text, input.after, input.limit + 1, input.walkWindows ?? WALK_WINDOWS, input.visible);
  if (ids.length === 0) return { results: [], next: null };
  const rows = await q.any(sql.type(messageRow)`
    select m.id, m.conversation_id, m.sender_type, m.private, m.created_at, ${micros(sql.fragment`m.created_at`)} as cursor_at,
           cu.id as customer_uuid, cu.name as customer_name, m.content
    from messages m
    join conversations c on c.id = m.conversation_id
    left join customers cu on cu.id = c.customer_id
    where m.id = any(${sql.array(ids, 'uuid')}) and m.business_id = ${input.businessId} and ${input.visible ?? sql.fragment`true`}
    order by m.created_at desc, m.id desc`);
  const words = queryWords(input.text);
  return pageOf(rows, input.limit, (r) => ({
    id: r.id,
    conversation_id: r.conversation_id,
    sender_type: r.sender_type,
    private: r.private,
    created_at: r.created_at,
    customer: r.customer_uuid ? { uuid: r.customer_uuid, name: r.customer_name ?? '' } : null,
    snippet: markWords(r.content, words),
  }));
}

const customerRow = z.object({
  id: z.string(),
  number: z.number(),
  name: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  created_at: z.string(),
  cursor_at: z.string(),
  latest_conversation_id: z.string().nullable(),
});

/** The matched field of a customer, marked: the name first, then the e-mail, then the phone. */
function customerSnippet(row: { name: string; email: string | null; phone: string | null }, text: string): Segment[] {
  const lower = text.toLowerCase();
  if (row.name.toLowerCase().includes(lower)) return markSubstring(row.name, text);
  if (row.email?.toLowerCase().includes(lower)) return markSubstring(row.email, text);
  const digits = phoneDigits(text);
  if (row.phone && digits && digitsOf(row.phone).includes(digits)) return markDigits(row.phone, digits);
  return [{ text: row.name || row.email || row.phone || '', match: false }];
}

/** Customers with the text in their name or e-mail, or its digits in their phone, newest first. */
export function searchCustomers(q: Queryable, input: SearchInput): Promise<Page<CustomerHit>> {
  return withCustomPlans(q, (t) => customersPage(t, input));
}

async function customersPage(q: Queryable, input: SearchInput): Promise<Page<CustomerHit>> {
  const rows = await q.any(sql.type(customerRow)`
    select cu.id, cu.number, cu.name, cu.email, cu.phone, cu.created_at, ${micros(sql.fragment`cu.created_at`)} as cursor_at,
           (select c.id from conversations c where c.customer_id = cu.id and ${input.visible ?? sql.fragment`true`}
            order by c.updated_at desc limit 1) as latest_conversation_id
    from customers cu
    where cu.business_id = ${input.businessId} and cu.merged_into is null and cu.erasing_at is null and ${customerMatches(input.text)}
      ${afterCursor(sql.fragment`cu.created_at`, sql.fragment`cu.id`, input.after)}
    order by cu.created_at desc, cu.id desc
    limit ${input.limit + 1}`);
  return pageOf(rows, input.limit, (r) => ({
    uuid: r.id,
    id: r.number,
    name: r.name,
    email: r.email,
    phone: r.phone,
    created_at: r.created_at,
    latest_conversation_id: r.latest_conversation_id,
    snippet: customerSnippet(r, input.text),
  }));
}

const conversationRow = z.object({
  id: z.string(),
  status: z.string(),
  channel_type: z.string(),
  updated_at: z.string(),
  cursor_at: z.string(),
  customer_uuid: z.string().nullable(),
  customer_name: z.string().nullable(),
  customer_email: z.string().nullable(),
  customer_phone: z.string().nullable(),
  matched_content: z.string().nullable(),
});

/**
 * How many of the business's most recently updated conversations (from the cursor) are tested
 * one by one, newest first, before the GIN index is asked for the older matches; the same two
 * paths as WALK_WINDOWS for messages. Gathering every matching message's conversation and then
 * ordering the conversations by activity (the one-statement query, still the second path) fetches
 * each match from the table: a word in 1 % of 1,000,000 messages reads ~9,900 rows from ~8,600
 * pages, 140-390 ms on the loaded bench machine, and was the search's p99; a word in half the
 * messages took seconds. Testing a conversation reads its messages newest first until one
 * matches (~0.05 ms each there), so a word in a tenth of the conversations fills a page after
 * ~220 of them. A page not found in the window means the words are in fewer than about one
 * conversation in CONVERSATION_WALK / 21 of the newest, and the GIN index returns the older ones.
 *
 * Rare words (a name, an order number: what people mostly type) would pay the whole window for
 * nothing, so the walk is taken only when the words are in at least WALK_SAMPLE.enough of the
 * business's newest WALK_SAMPLE.messages messages (read in time order, a few ms); otherwise the
 * GIN index answers at once. The sample only chooses the faster path: both give the same page.
 * Measurements: docs/decisions.md#search.
 */
export const CONVERSATION_WALK = 400;
export const WALK_SAMPLE = { messages: 2_000, enough: 5 };

const countRow = z.object({ n: z.number() });

/** Whether the words are in at least WALK_SAMPLE.enough of the business's newest WALK_SAMPLE.messages messages. */
async function commonRecently(q: Queryable, businessId: string, text: string): Promise<boolean> {
  const found = await q.one(sql.type(countRow)`
    select count(*)::int as n from (
      select 1 from (
        select m.search_vector from messages m where m.business_id = ${businessId}
        order by m.created_at desc, m.id desc limit ${WALK_SAMPLE.messages}) newest
      where newest.search_vector @@ ${tsquery(text)} limit ${WALK_SAMPLE.enough}) hits`);
  return found.n >= WALK_SAMPLE.enough;
}

const conversationEdgeRow = z.object({ cursor_at: z.string(), id: z.string() });

/**
 * The conversation of the business `offset` places after `from` in (updated_at desc, id desc)
 * order (an index-only walk of conversations_business_updated_idx); null when there are fewer.
 */
async function conversationWindowEdge(q: Queryable, businessId: string, from: SearchCursor | null, offset: number): Promise<SearchCursor | null> {
  const edge = await q.maybeOne(sql.type(conversationEdgeRow)`
    select ${micros(sql.fragment`c.updated_at`)} as cursor_at, c.id from conversations c
    where c.business_id = ${businessId} ${afterCursor(sql.fragment`c.updated_at`, sql.fragment`c.id`, from)}
    order by c.updated_at desc, c.id desc offset ${offset} limit 1`);
  return edge ? { at: edge.cursor_at, id: edge.id } : null;
}

/**
 * Conversations with a matching message or a matching customer, most recently updated first
 * (the inbox's order). The snippet is the newest matching message, else the customer's field.
 */
export function searchConversations(q: Queryable, input: SearchInput): Promise<Page<ConversationHit>> {
  return withCustomPlans(q, (t) => conversationsPage(t, input));
}

async function conversationsPage(q: Queryable, input: SearchInput): Promise<Page<ConversationHit>> {
  const query = tsquery(input.text);
  const want = input.limit + 1;
  const walk = input.conversationWalk ?? ((await commonRecently(q, input.businessId, input.text)) ? CONVERSATION_WALK : 0);
  const edge = walk > 0 ? await conversationWindowEdge(q, input.businessId, input.after, walk - 1) : null;
  // The window: each conversation tested in turn, its messages read newest first until one matches.
  // The plain `updated_at >=` beside the row comparison lets the planner size the window from its histogram.
  const walked =
    walk > 0
      ? await q.any(sql.type(conversationRow)`
    select c.id, c.status, c.channel_type, c.updated_at, ${micros(sql.fragment`c.updated_at`)} as cursor_at,
           cu.id as customer_uuid, cu.name as customer_name, cu.email as customer_email, cu.phone as customer_phone,
           hit.content as matched_content
    from conversations c
    left join customers cu on cu.id = c.customer_id
    left join lateral (
      -- ts_match_vq is what @@ calls, spelled as a function so that no index can serve it: left
      -- to itself the planner tests each conversation by intersecting its messages with every
      -- business's matches from the GIN index (1.7 ms a conversation for a word in 0.1 % of messages).
      select m.id, m.content from messages m
      where m.conversation_id = c.id and ts_match_vq(m.search_vector, ${query})
      order by m.created_at desc, m.id desc limit 1) hit on true
    where c.business_id = ${input.businessId}
      ${afterCursor(sql.fragment`c.updated_at`, sql.fragment`c.id`, input.after)}
      ${edge ? sql.fragment`and c.updated_at >= ${edge.at}::timestamptz and (c.updated_at, c.id) >= (${edge.at}::timestamptz, ${edge.id}::uuid)` : sql.fragment``}
      and ${input.visible ?? sql.fragment`true`}
      and (hit.id is not null or ${customerMatches(input.text)})
    order by c.updated_at desc, c.id desc
    limit ${want}`)
      : [];
  const older =
    walked.length >= want || (walk > 0 && !edge)
      ? []
      : await q.any(sql.type(conversationRow)`
    select p.id, p.status, p.channel_type, p.updated_at, ${micros(sql.fragment`p.updated_at`)} as cursor_at,
           cu.id as customer_uuid, cu.name as customer_name, cu.email as customer_email, cu.phone as customer_phone,
           (select m.content from messages m
            where m.conversation_id = p.id and m.search_vector @@ ${query}
            order by m.created_at desc, m.id desc limit 1) as matched_content
    from (
      select c.id, c.status, c.channel_type, c.updated_at, c.customer_id
      from conversations c
      where c.business_id = ${input.businessId} and ${input.visible ?? sql.fragment`true`}
        and c.id in (
          select m.conversation_id from messages m where m.business_id = ${input.businessId} and m.search_vector @@ ${query}
          union
          select cc.id from customers cu join conversations cc on cc.customer_id = cu.id
          where cu.business_id = ${input.businessId} and ${customerMatches(input.text)})
        ${afterCursor(sql.fragment`c.updated_at`, sql.fragment`c.id`, edge ?? input.after)}
      order by c.updated_at desc, c.id desc
      limit ${want - walked.length}
    ) p
    left join customers cu on cu.id = p.customer_id
    order by p.updated_at desc, p.id desc`);
  const words = queryWords(input.text);
  return pageOf([...walked, ...older], input.limit, (r) => {
    const customer = r.customer_uuid ? { uuid: r.customer_uuid, name: r.customer_name ?? '', email: r.customer_email, phone: r.customer_phone } : null;
    return {
      id: r.id,
      status: r.status,
      channel_type: r.channel_type,
      updated_at: r.updated_at,
      customer,
      matched_in: r.matched_content !== null ? 'message' : 'customer',
      snippet: r.matched_content !== null ? markWords(r.matched_content, words) : customer ? customerSnippet(customer, input.text) : [],
    };
  });
}
