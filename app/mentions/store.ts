/**
 * The signed-in member's mentions in private notes (GET /api/v1/mentions): the unread count for
 * the navigation badge, and the list for the Mentions page. Re-read on `mention_created` and
 * whenever the live connection comes up (what arrived meanwhile reached no socket of this tab).
 */
import { signal } from '@preact/signals';
import { api, getPageWithHeaders, qs } from '../api.ts';
import { onLive, onResync } from '../live.ts';
import type { Mention } from '../types.ts';

export const mentions = signal<Mention[]>([]);
export const unreadMentions = signal(0);
export const mentionsNext = signal<string | null>(null);
export const mentionsState = signal<'loading' | 'ready' | 'error'>('loading');

let reads = 0;

/** The first page (unread first) and the unread count; the last read started wins. */
export async function loadMentions(): Promise<void> {
  const mine = ++reads;
  try {
    const res = await fetchPage();
    if (mine !== reads) return;
    mentions.value = res.items;
    mentionsNext.value = res.next;
    unreadMentions.value = res.unread;
    mentionsState.value = 'ready';
  } catch {
    if (mine === reads && mentionsState.value === 'loading') mentionsState.value = 'error';
  }
}

async function fetchPage(before?: string): Promise<{ items: Mention[]; next: string | null; unread: number }> {
  const page = await getPageWithHeaders<Mention>(`/api/v1/mentions${qs({ limit: 30, before })}`);
  return { items: page.items, next: page.next, unread: Number(page.headers.get('X-Unread-Count') ?? 0) };
}

export async function loadMoreMentions(): Promise<void> {
  const cursor = mentionsNext.value;
  if (!cursor) return;
  const page = await fetchPage(cursor);
  unreadMentions.value = page.unread;
  const known = new Set(mentions.value.map((m) => m.id));
  mentions.value = [...mentions.value, ...page.items.filter((m) => !known.has(m.id))];
  mentionsNext.value = page.next;
}

/** Marks one read (shown at once; the server's answer replaces it). */
export async function markMentionRead(id: string): Promise<void> {
  const current = mentions.value.find((m) => m.id === id);
  if (!current || current.read_at) return;
  unreadMentions.value = Math.max(0, unreadMentions.value - 1);
  mentions.value = mentions.value.map((m) => (m.id === id ? { ...m, read_at: new Date().toISOString() } : m));
  const updated = await api.patch<Mention>(`/api/v1/mentions/${id}/read`, {});
  mentions.value = mentions.value.map((m) => (m.id === id ? updated : m));
}

let timer: ReturnType<typeof setTimeout> | undefined;

/** Keeps the list and count current; returns the stop function. */
export function followMentions(): () => void {
  const soon = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void loadMentions(), 100);
  };
  const stops = [onLive((e) => e.name === 'mention_created' && soon()), onResync(soon)];
  void loadMentions();
  return () => {
    stops.forEach((stop) => stop());
    clearTimeout(timer);
  };
}
