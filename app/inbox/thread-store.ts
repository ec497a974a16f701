/**
 * The open conversation (GET /conversations/{id}: customer and latest 100 messages), re-read
 * when a live event names it and whenever the live connection comes up (the first time too),
 * debounced into one read. When reads overlap, the last one started wins.
 *
 * Its earlier messages come on request ("Show earlier messages": `loadEarlier`, 100 at a time
 * through GET …/messages?before=), kept in `earlier` while the conversation stays open. A re-read
 * moves the latest 100 forward as new messages arrive; what it no longer holds of the messages
 * shown before joins `earlier`, so nothing shown disappears from the top of the thread.
 */
import { signal } from '@preact/signals';
import { ApiError, getPage, getWithHeaders } from '../api.ts';
import { followConversationLive, onLive, onResync } from '../live.ts';
import type { Activity, ConversationDetail, Message } from '../types.ts';
import { CONVERSATION_EVENTS, CUSTOMER_EVENTS } from './store.ts';
import { markSeen } from './unread.ts';

export const thread = signal<ConversationDetail | null>(null);
/** The open conversation's activity history (GET …/events: assigned, labelled, snoozed…), oldest first. */
export const activity = signal<{ id: string; items: Activity[] } | null>(null);
export const threadError = signal<string | null>(null);

/**
 * The open conversation's messages before `thread`'s, oldest first, as far back as the agent
 * asked; `next`: the cursor for the ones before those (null: none left).
 */
export const earlier = signal<{ id: string; messages: Message[]; next: string | null } | null>(null);

/** Messages in the API's order: created_at, then id (a uuid's text sorts as its bytes). */
const before = (a: Message, b: Message) => a.created_at < b.created_at || (a.created_at === b.created_at && a.id < b.id);

/** The messages of `lists`, each once (the later list's copy wins), in order. */
function merged(...lists: Message[][]): Message[] {
  const byId = new Map<string, Message>();
  for (const list of lists) for (const m of list) byId.set(m.id, m);
  return [...byId.values()].sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
}

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
    const [{ body: detail, headers }, history] = await Promise.all([
      getWithHeaders<ConversationDetail>(`/api/v1/conversations/${id}`),
      // The history is a side line: a failed read leaves the thread as it is.
      getPage<Activity>(`/api/v1/conversations/${id}/events?limit=200`).catch(() => null),
    ]);
    if (id !== current || mine !== generation) return; // another conversation, or a newer read of this one, wins
    const shown = earlier.value?.id === id ? earlier.value : null;
    if (shown) {
      // Read before: keep what was shown that the latest 100 no longer hold (older than their
      // first); the cursor still leads to what comes before all of it.
      const first = detail.messages[0];
      const previous = thread.value?.id === id ? thread.value.messages : [];
      // A message the latest read holds is shown there only, also when it moved (a scheduled
      // reply released, a failed one sent again: their created_at becomes that moment).
      const latest = new Set(detail.messages.map((m) => m.id));
      earlier.value = { ...shown, messages: merged(shown.messages, previous).filter((m) => !latest.has(m.id) && (!first || before(m, first))) };
    } else {
      earlier.value = { id, messages: [], next: headers.get('X-Next-Cursor') };
    }
    thread.value = detail;
    if (history) activity.value = { id, items: history.items };
    threadError.value = null;
    if (!document.hidden) markSeen(id, detail.messages.at(-1)?.created_at);
  } catch (e) {
    if (id !== current || mine !== generation) return;
    threadError.value = (e as Error).message;
    if (e instanceof ApiError && e.status === 404 && thread.value?.id === id) for (const listener of goneListeners) listener(id);
  }
}

/** The 100 messages before the earliest shown of the open conversation `id`, when there are any. */
export async function loadEarlier(id: string): Promise<void> {
  const from = earlier.value;
  if (from?.id !== id || !from.next) return;
  const page = await getPage<Message>(`/api/v1/conversations/${id}/messages?limit=100&before=${encodeURIComponent(from.next)}`);
  const now = earlier.value;
  if (id !== current || now?.id !== id) return;
  earlier.value = { id, messages: merged(page.items, now.messages), next: page.next };
}

/** Shows one conversation and follows its changes; returns the stop function. */
export function followThread(id: string): () => void {
  current = id;
  if (thread.value?.id !== id) thread.value = null;
  if (earlier.value?.id !== id) earlier.value = null;
  if (activity.value?.id !== id) activity.value = null;
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
