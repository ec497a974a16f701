/** Search over the business's whole history: conversations, customers or messages. */
import { z } from '../../../lib/zod.ts';
import { searchConversations, searchCustomers, searchMessages, type SearchInput } from '../../../core/domain/search/history-search.ts';
import type { Queryable } from '../../../core/adapters/postgres/db.ts';
import { defineRoute } from '../../route.ts';
import { visibleTo } from '../../../core/domain/team-visibility.ts';
import { encodeCursor } from '../../cursor.ts';
import { searchHit, searchQuery, type SearchHit } from './schema.ts';

const tags = ['Search'];

async function pageOf(db: Queryable, type: 'conversations' | 'customers' | 'messages', input: SearchInput) {
  if (type === 'messages') {
    const page = await searchMessages(db, input);
    return { next: page.next, results: page.results.map((r): SearchHit => ({ type: 'message', ...r })) };
  }
  if (type === 'customers') {
    const page = await searchCustomers(db, input);
    return { next: page.next, results: page.results.map((r): SearchHit => ({ type: 'customer', ...r })) };
  }
  const page = await searchConversations(db, input);
  return { next: page.next, results: page.results.map((r): SearchHit => ({ type: 'conversation', ...r })) };
}

export const search = defineRoute({
  method: 'get',
  path: '/api/v1/search',
  summary: 'Search the whole history: conversations, customers or messages',
  description:
    "Finds, in the caller's business only, messages by their words (full text in any language: words are compared as written, lower-cased, without stemming, " +
    'so `refund` does not find `refunds`; private notes are included, only members can search) and customers by part of their name or e-mail, or at least 3 digits of their phone (however it is formatted). ' +
    '`type=messages`: matching messages, newest first. `type=customers`: matching customers, newest first, each with their latest conversation to open. ' +
    '`type=conversations` (default): conversations with a matching message or customer, most recently updated first, with the newest matching message as snippet. ' +
    'Each result carries `snippet`: plain-text pieces with the found words marked `match: true` (never HTML). ' +
    '`limit` 1–50 (default 20). When more exist, the `X-Next-Cursor` response header holds an opaque cursor: pass it as `cursor` for the next page. ' +
    '`q` missing or blank, an unknown `type` or a bad cursor: 422. Under team-scoped visibility an agent finds only messages and conversations they may see (customers are found all the same, each with the latest conversation the agent may see). See docs/decisions.md#search and docs/decisions.md#teams-and-team-scoped-visibility.',
  tags,
  auth: 'user',
  policy: 'search.read',
  query: searchQuery,
  response: z.array(searchHit),
  errors: [404],
  handler: async ({ query, member, deps, ctx }) => {
    const page = await pageOf(deps.db, query.type, {
      businessId: member.businessId,
      text: query.q,
      after: query.cursor ?? null,
      limit: query.limit,
      ...(member.teamScoped ? { visible: visibleTo(member) } : {}),
    });
    if (page.next) ctx.set('X-Next-Cursor', encodeCursor(page.next));
    return page.results;
  },
});

export default [search];
