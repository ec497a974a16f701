/**
 * Unread markers, kept per browser: a conversation is unread while its latest message is the
 * customer's and newer than the last time this agent looked at it, or while the agent marked it
 * unread ("Mark unread", to come back to it) until they open it again. Stored in localStorage,
 * so every tab of the browser agrees (the storage event keeps them in step); a browser that
 * refuses storage keeps them for the page's life.
 */
import { signal } from '@preact/signals';
import type { ConversationListItem } from '../types.ts';
import { readStored, store } from '../ui/stored.ts';

const KEY = 'parley.seen';
const read = (): Record<string, string> => readStored<Record<string, string>>(KEY, {});

const seen = signal<Record<string, string>>(read());

/** Conversations the agent marked unread, by id. */
const MARKED_KEY = 'parley.marked-unread';
const readMarked = (): string[] => {
  const ids = readStored<unknown>(MARKED_KEY, []);
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
};
const marked = signal<string[]>(readMarked());
const keepMarked = (ids: string[]) => {
  marked.value = ids.slice(-500);
  store(MARKED_KEY, marked.value);
};

addEventListener('storage', (e) => {
  if (e.key === KEY) seen.value = read();
  if (e.key === MARKED_KEY) marked.value = readMarked();
});

/** Unread until it is opened again, whoever wrote last. */
export function markUnread(conversationId: string): void {
  if (!marked.value.includes(conversationId)) keepMarked([...marked.value, conversationId]);
}

export function isUnread(c: ConversationListItem): boolean {
  if (marked.value.includes(c.id)) return true;
  const last = c.last_message;
  if (!last || last.sender_type !== 'customer') return false;
  const at = seen.value[c.id];
  return !at || at < last.created_at;
}

/** Marks a conversation read up to its latest message (keeps the 500 most recent entries). */
export function markSeen(conversationId: string, lastAt: string | null | undefined): void {
  if (marked.value.includes(conversationId)) keepMarked(marked.value.filter((id) => id !== conversationId));
  if (!lastAt || (seen.value[conversationId] ?? '') >= lastAt) return;
  const next = { ...seen.value, [conversationId]: lastAt };
  const entries = Object.entries(next)
    .sort((a, b) => (a[1] < b[1] ? 1 : -1))
    .slice(0, 500);
  seen.value = Object.fromEntries(entries);
  store(KEY, seen.value);
}
