/**
 * The conversation list for the current filters, re-read through the REST API when a live
 * event says something changed (debounced) and after a reconnect, so nothing is missed.
 */
import { effect, signal } from '@preact/signals';
import { api, qs } from '../api.ts';
import { onLive, onResync } from '../live.ts';
import { me } from '../session.ts';
import type { ConversationListItem } from '../types.ts';
import { filters, type Filters } from './filters.ts';

export const conversations = signal<ConversationListItem[]>([]);
export const listState = signal<'loading' | 'ready' | 'error'>('loading');
export const listError = signal<string | null>(null);

let generation = 0;

function query(f: Filters): string {
  const assignee = f.view === 'mine' ? me.value?.user.id : f.view === 'unassigned' ? 'none' : undefined;
  return qs({ status: f.status === 'active' ? 'open,pending' : f.status, channel_type: f.channel, assignee_id: assignee, limit: 100 });
}

export async function loadConversations(showLoading = false): Promise<void> {
  const mine = ++generation;
  if (showLoading) listState.value = 'loading';
  try {
    const list = await api.get<ConversationListItem[]>(`/api/v1/conversations${query(filters.value)}`);
    if (mine !== generation) return; // a newer filter's answer wins
    conversations.value = list;
    listState.value = 'ready';
    listError.value = null;
  } catch (e) {
    if (mine !== generation) return;
    listError.value = (e as Error).message;
    listState.value = conversations.value.length ? 'ready' : 'error';
  }
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
