/**
 * The open conversation (GET /conversations/{id}: customer and latest 100 messages), re-read
 * when a live event names it and whenever the live connection comes up (the first time too),
 * debounced into one read. When reads overlap, the last one started wins.
 */
import { signal } from '@preact/signals';
import { ApiError, api } from '../api.ts';
import { followConversationLive, onLive, onResync } from '../live.ts';
import type { ConversationDetail } from '../types.ts';
import { CONVERSATION_EVENTS, CUSTOMER_EVENTS } from './store.ts';
import { markSeen } from './unread.ts';

export const thread = signal<ConversationDetail | null>(null);
export const threadError = signal<string | null>(null);

let current: string | null = null;
let generation = 0;

const goneListeners = new Set<(id: string) => void>();

/**
 * Called when a re-read of the conversation shown finds it gone (404): it left this agent's view
 * or was deleted while no event said so (the live connection was down). Returns the stop function.
 */
export function onThreadGone(listener: (id: string) => void): () => void {
  goneListeners.add(listener);
  return () => goneListeners.delete(listener);
}

export async function loadThread(id: string): Promise<void> {
  const mine = ++generation;
  try {
    const detail = await api.get<ConversationDetail>(`/api/v1/conversations/${id}`);
    if (id !== current || mine !== generation) return; // another conversation, or a newer read of this one, wins
    thread.value = detail;
    threadError.value = null;
    if (!document.hidden) markSeen(id, detail.messages.at(-1)?.created_at);
  } catch (e) {
    if (id !== current || mine !== generation) return;
    threadError.value = (e as Error).message;
    if (e instanceof ApiError && e.status === 404 && thread.value?.id === id) for (const listener of goneListeners) listener(id);
  }
}

/** Shows one conversation and follows its changes; returns the stop function. */
export function followThread(id: string): () => void {
  current = id;
  if (thread.value?.id !== id) thread.value = null;
  threadError.value = null;
  void loadThread(id);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const soon = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void loadThread(id), 80);
  };
  const stopLive = onLive((e) => {
    if (CONVERSATION_EVENTS.has(e.name) && e.payload.conversation_id === id) soon();
    // The customer shown was edited, merged (or merged into another) or erased.
    const customer = thread.value?.customer_id;
    if (CUSTOMER_EVENTS.has(e.name) && customer && (e.payload.customer_id === customer || e.payload.from_customer_id === customer)) soon();
  });
  const stopResync = onResync(soon);
  // Joined for its typing and presence (app/inbox/presence.ts).
  const stopFollowing = followConversationLive(id);
  const onVisible = () => {
    if (!document.hidden) markSeen(id, thread.value?.messages.at(-1)?.created_at);
  };
  document.addEventListener('visibilitychange', onVisible);
  return () => {
    current = null;
    clearTimeout(timer);
    stopLive();
    stopResync();
    stopFollowing();
    document.removeEventListener('visibilitychange', onVisible);
  };
}
