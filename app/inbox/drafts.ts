/**
 * Unsent replies and notes, one per conversation, kept in this browser (localStorage) under the
 * signed-in user's id: opening another conversation, reloading or an expired session keeps what
 * was being written; sending (or emptying the box) removes it, and signing out removes them all.
 * A draft untouched for 30 days is dropped. The conversation list marks conversations with one.
 */
import { signal } from '@preact/signals';
import type { Attachment } from '../types.ts';
import { readStored, store } from '../ui/stored.ts';

export type Draft = { text: string; mode: 'reply' | 'note'; files: Attachment[] };

const PREFIX = 'parley.draft.';
const MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

/** Bumped by every change, so views that show drafts read them again. */
export const draftsChanged = signal(0);

const keyOf = (userId: string, conversationId: string) => `${PREFIX}${userId}.${conversationId}`;

export function readDraft(userId: string | undefined, conversationId: string): Draft | null {
  if (!userId) return null;
  const stored = readStored<(Draft & { at: number }) | null>(keyOf(userId, conversationId), null);
  if (!stored || typeof stored.text !== 'string' || Date.now() - stored.at > MAX_AGE_MS) return null;
  return { text: stored.text, mode: stored.mode === 'note' ? 'note' : 'reply', files: Array.isArray(stored.files) ? stored.files : [] };
}

/** Keeps the draft, or removes it when there is nothing in it. */
export function writeDraft(userId: string | undefined, conversationId: string, draft: Draft): void {
  if (!userId) return;
  const key = keyOf(userId, conversationId);
  const empty = !draft.text.trim() && draft.files.length === 0;
  const had = localStorage.getItem(key) !== null;
  if (empty && !had) return;
  // Storage full or refused (private mode): the draft lives as long as the page.
  if (!store(key, empty ? null : { ...draft, at: Date.now() })) return;
  // The list marks which conversations have one: told when that changes, not at every keystroke.
  if (had === empty) draftsChanged.value++;
}

/** Removes every draft of this browser (signing out), or those older than 30 days. */
export function forgetDrafts(options: { staleOnly?: boolean } = {}): void {
  for (let i = localStorage.length - 1; i >= 0; i--) {
    const key = localStorage.key(i);
    if (!key?.startsWith(PREFIX)) continue;
    // Unreadable: dropped.
    if (options.staleOnly && Date.now() - (readStored<{ at?: number } | null>(key, null)?.at ?? 0) <= MAX_AGE_MS) continue;
    localStorage.removeItem(key);
  }
  draftsChanged.value++;
}

forgetDrafts({ staleOnly: true });
