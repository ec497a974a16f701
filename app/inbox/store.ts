/**
 * The conversation list for the current filters, re-read through the REST API when a live
 * event says something changed and whenever the live connection comes up (the first time
 * too: what arrived between the first read and the connect is caught up), debounced into one
 * read.
 *
 * Two kinds of read overlap: re-reads of the top of the list and "Show more" pages. A re-read
 * reads at least as many rows as the agent asked to see (`wanted`, raised the moment "Show
 * more" is clicked), so a page answered after a re-read started may be dropped without losing
 * anything: that re-read brings the same rows. A re-read that started before the click reads
 * again with the larger count. Only a change of filters resets the list to one page.
 */
import { effect, signal } from '@preact/signals';
import { getPage, qs } from '../api.ts';
import { onLive, onResync } from '../live.ts';
import { me } from '../session.ts';
import type { ConversationListItem } from '../types.ts';
import { filters, type Filters } from './filters.ts';

/** Conversations per page of the list. */
const PAGE = 50;
/** The API's largest page: a re-read of more rows than this follows the cursor. */
const MAX_PAGE = 200;

export const conversations = signal<ConversationListItem[]>([]);
export const listState = signal<'loading' | 'ready' | 'error'>('loading');
export const listError = signal<string | null>(null);
/** Cursor of the page after those shown; null when everything is shown. */
export const nextCursor = signal<string | null>(null);

/** How many rows the agent asked to see: one page, plus one more per "Show more". */
let wanted = PAGE;
/** Bumped by a change of filters: answers for older filters are dropped. */
let filterEpoch = 0;
/** Bumped by every re-read: the latest one started is the one applied. */
let reads = 0;

function query(f: Filters, limit: number, before?: string): string {
  const assignee = f.view === 'mine' ? me.value?.user.id : f.view === 'unassigned' ? 'none' : undefined;
  // Snoozed conversations are in the Snoozed view only.
  const snoozed = f.view === 'snoozed' ? 'true' : 'false';
  return qs({
    status: f.status === 'active' ? 'open,pending' : f.status,
    channel_type: f.channel,
    assignee_id: assignee,
    label: f.label,
    team_id: f.team,
    priority: f.priority,
    sla: f.sla,
    sort: f.sla ? 'sla' : undefined,
    snoozed,
    limit,
    before,
  });
}

/** The first `count` rows for the filters, by keyset pages of at most MAX_PAGE. */
async function readTop(f: Filters, count: number): Promise<{ items: ConversationListItem[]; next: string | null }> {
  const items: ConversationListItem[] = [];
  let next: string | null = null;
  do {
    const page: { items: ConversationListItem[]; next: string | null } = await getPage<ConversationListItem>(
      `/api/v1/conversations${query(f, Math.min(MAX_PAGE, count - items.length), next ?? undefined)}`,
    );
    items.push(...page.items);
    next = page.next;
  } while (next && items.length < count);
  return { items, next };
}

export async function loadConversations(showLoading = false): Promise<void> {
  if (showLoading) {
    filterEpoch++;
    wanted = PAGE;
    listState.value = 'loading';
  }
  const mine = ++reads;
  const epoch = filterEpoch;
  const count = wanted;
  try {
    const page = await readTop(filters.value, count);
    if (mine !== reads || epoch !== filterEpoch) return; // a newer read (or filter) wins
    if (count < wanted) return void loadConversations(); // "Show more" was asked meanwhile: read the larger list
    conversations.value = page.items;
    nextCursor.value = page.next;
    listState.value = 'ready';
    listError.value = null;
  } catch (e) {
    if (mine !== reads || epoch !== filterEpoch) return;
    listError.value = (e as Error).message;
    listState.value = conversations.value.length ? 'ready' : 'error';
  }
}

/** The next page, appended (the "Show more" button). */
export async function loadMore(): Promise<void> {
  const cursor = nextCursor.value;
  if (!cursor) return;
  // Raised before the request: any re-read from now on reads this page too.
  wanted = Math.max(wanted, conversations.value.length + PAGE);
  const epoch = filterEpoch;
  const readsAtClick = reads;
  const page = await getPage<ConversationListItem>(`/api/v1/conversations${query(filters.value, PAGE, cursor)}`);
  if (epoch !== filterEpoch) return; // other filters: the list was reset
  if (readsAtClick !== reads) return; // a re-read started since the click reads `wanted` rows, this page included
  const known = new Set(conversations.value.map((c) => c.id));
  conversations.value = [...conversations.value, ...page.items.filter((c) => !known.has(c.id))];
  nextCursor.value = page.next;
}

let timer: ReturnType<typeof setTimeout> | undefined;
function refreshSoon(): void {
  clearTimeout(timer);
  timer = setTimeout(() => void loadConversations(), 120);
}

export const CONVERSATION_EVENTS = new Set([
  'conversation_created',
  'conversation_updated',
  'conversation_assigned',
  'message_created',
  'message_updated',
  'message_deleted',
  'handoff_requested',
]);
/** Events that change what conversations show of their customer (name, details) or remove them. */
export const CUSTOMER_EVENTS = new Set(['customer_updated', 'customer_merged', 'customer_erased']);

/** Starts following the filters and live events; returns the stop function. */
export function followInbox(): () => void {
  // Selecting a conversation changes the URL but not the filters: only a change of filters reloads.
  let shown = '';
  const stopFilters = effect(() => {
    const key = JSON.stringify(filters.value);
    if (key === shown) return;
    shown = key;
    void loadConversations(true);
  });
  const stopLive = onLive((event) => {
    if (!CONVERSATION_EVENTS.has(event.name) && !CUSTOMER_EVENTS.has(event.name)) return;
    refreshSoon();
  });
  const stopResync = onResync(refreshSoon);
  return () => {
    stopFilters();
    stopLive();
    stopResync();
    clearTimeout(timer);
  };
}
