/**
 * The conversation list for the current filters, re-read through the REST API when a live
 * event says something changed and whenever the live connection comes up (the first time
 * too: what arrived between the first read and the connect is caught up), debounced into one
 * read. When reads overlap, the last one started wins.
 */
import { effect, signal } from '@preact/signals';
import { getPage, qs } from '../api.ts';
import { onLive, onResync } from '../live.ts';
import { me } from '../session.ts';
import type { ConversationListItem } from '../types.ts';
import { filters, type Filters } from './filters.ts';

/** Conversations per page of the list. */
const PAGE = 50;

export const conversations = signal<ConversationListItem[]>([]);
export const listState = signal<'loading' | 'ready' | 'error'>('loading');
export const listError = signal<string | null>(null);
/** Cursor of the page after those shown; null when everything is shown. */
export const nextCursor = signal<string | null>(null);
/** How many conversations the list shows: live re-reads keep at least the pages loaded. */
let shownCount = PAGE;

let generation = 0;

function query(f: Filters, limit: number, before?: string): string {
  const assignee = f.view === 'mine' ? me.value?.user.id : f.view === 'unassigned' ? 'none' : undefined;
  return qs({ status: f.status === 'active' ? 'open,pending' : f.status, channel_type: f.channel, assignee_id: assignee, limit, before });
}

export async function loadConversations(showLoading = false): Promise<void> {
  const mine = ++generation;
  if (showLoading) {
    listState.value = 'loading';
    shownCount = PAGE;
  }
  try {
    const page = await getPage<ConversationListItem>(`/api/v1/conversations${query(filters.value, Math.min(200, shownCount))}`);
    if (mine !== generation) return; // a newer filter's answer wins
    conversations.value = page.items;
    nextCursor.value = page.next;
    listState.value = 'ready';
    listError.value = null;
  } catch (e) {
    if (mine !== generation) return;
    listError.value = (e as Error).message;
    listState.value = conversations.value.length ? 'ready' : 'error';
  }
}

/** The next page, appended (the "Show more" button). */
export async function loadMore(): Promise<void> {
  const cursor = nextCursor.value;
  if (!cursor) return;
  const mine = generation;
  const page = await getPage<ConversationListItem>(`/api/v1/conversations${query(filters.value, PAGE, cursor)}`);
  if (mine !== generation) return;
  const known = new Set(conversations.value.map((c) => c.id));
  conversations.value = [...conversations.value, ...page.items.filter((c) => !known.has(c.id))];
  nextCursor.value = page.next;
  shownCount = conversations.value.length;
}

let timer: ReturnType<typeof setTimeout> | undefined;
function refreshSoon(): void {
  clearTimeout(timer);
  timer = setTimeout(() => void loadConversations(), 120);
}

export const CONVERSATION_EVENTS = new Set(['conversation_created', 'conversation_updated', 'conversation_assigned', 'message_created', 'message_updated', 'handoff_requested']);

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
    if (!CONVERSATION_EVENTS.has(event.name)) return;
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
