/**
 * Conversations that left this agent's view under team-scoped visibility (`conversation_hidden`):
 * the one named goes from the list at once and is closed if open, with a word saying why. When
 * the event names none (the agent left a team, it was deleted, or the setting was switched on:
 * any number may have left), the list is read again, and so is the open conversation, which is
 * closed the same way if it is no longer found. A conversation shown that a re-read finds gone (the
 * live connection was down when it left, so no event said so) is closed too, with a word that
 * cannot say which way it went.
 */
import { effect, signal } from '@preact/signals';
import { api, ApiError } from '../api.ts';
import { onLive } from '../live.ts';
import { navigate } from '../router.ts';
import { inboxUrl, selectedId } from './filters.ts';
import { conversations, loadConversations } from './store.ts';
import { onThreadGone } from './thread-store.ts';

const LEFT_VIEW = 'The conversation you had open is no longer visible to you: it is no longer in your teams or assigned to you.';
const GONE = 'The conversation you had open is no longer visible to you: it has left your teams or assignments, or was deleted.';

/** Shown above the list after the open conversation was closed for this reason; cleared by the next one opened. */
export const hiddenNotice = signal<string | null>(null);

/** Drops the conversation from the list and, if it is the one open, closes it with the notice. */
function close(id: string, notice: string): void {
  conversations.value = conversations.value.filter((c) => c.id !== id);
  if (selectedId.value !== id) return;
  hiddenNotice.value = notice;
  navigate(inboxUrl({}, null), { replace: true });
}

/** Starts following `conversation_hidden` and re-reads that find the open conversation gone; returns the stop function. */
export function followHidden(): () => void {
  /** Open conversations a `conversation_hidden` naming none may have taken out of view, while that is checked. */
  const checking = new Set<string>();
  const stopNotice = effect(() => {
    if (selectedId.value) hiddenNotice.value = null;
  });
  const stopLive = onLive((event) => {
    if (event.name !== 'conversation_hidden') return;
    const id = typeof event.payload.conversation_id === 'string' ? event.payload.conversation_id : null;
    // A new read also drops any read under way that started before the change.
    void loadConversations();
    if (id) {
      close(id, LEFT_VIEW);
      return;
    }
    const open = selectedId.value;
    if (!open) return;
    checking.add(open);
    api.get(`/api/v1/conversations/${open}`).then(
      () => checking.delete(open),
      (error: unknown) => {
        checking.delete(open);
        if (error instanceof ApiError && error.status === 404) close(open, LEFT_VIEW);
      },
    );
  });
  // What told the thread to re-read (a reconnect, an event) re-reads the list too. A re-read
  // that finds it gone while the event's own check is under way says why the event said.
  const stopGone = onThreadGone((id) => {
    close(id, checking.has(id) ? LEFT_VIEW : GONE);
  });
  return () => {
    stopNotice();
    stopLive();
    stopGone();
  };
}
