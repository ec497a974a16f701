/**
 * Conversations that left this agent's view under team-scoped visibility (`conversation_hidden`):
 * the one named goes from the list at once and is closed if open, with a word saying why. When
 * the event names none (the agent left a team, it was deleted, or the setting was switched on:
 * any number may have left), the list is read again, and so is the open conversation, which is
 * closed the same way if it is no longer found.
 */
import { effect, signal } from '@preact/signals';
import { api, ApiError } from '../api.ts';
import { onLive } from '../live.ts';
import { navigate } from '../router.ts';
import { inboxUrl, selectedId } from './filters.ts';
import { conversations, loadConversations } from './store.ts';

/** Shown above the list after the open conversation was closed for this reason; cleared by the next one opened. */
export const hiddenNotice = signal<string | null>(null);

function close(id: string): void {
  if (selectedId.value !== id) return;
  hiddenNotice.value = 'The conversation you had open is no longer visible to you: it is no longer in your teams or assigned to you.';
  navigate(inboxUrl({}, null), { replace: true });
}

/** Starts following `conversation_hidden`; returns the stop function. */
export function followHidden(): () => void {
  const stopNotice = effect(() => {
    if (selectedId.value) hiddenNotice.value = null;
  });
  const stopLive = onLive((event) => {
    if (event.name !== 'conversation_hidden') return;
    const id = typeof event.payload.conversation_id === 'string' ? event.payload.conversation_id : null;
    // A new read also drops any read under way that started before the change.
    void loadConversations();
    if (id) {
      conversations.value = conversations.value.filter((c) => c.id !== id);
      close(id);
      return;
    }
    const open = selectedId.value;
    if (!open) return;
    api.get(`/api/v1/conversations/${open}`).catch((error: unknown) => {
      if (error instanceof ApiError && error.status === 404) close(open);
    });
  });
  return () => {
    stopNotice();
    stopLive();
  };
}
