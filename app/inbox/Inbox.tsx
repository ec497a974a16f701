/** Three panes on a desktop (list · thread · customer); one at a time on a phone. */
import { useEffect } from 'preact/hooks';
import { linkClick } from '../router.ts';
import { conversations, followInbox } from './store.ts';
import { followHidden } from './hidden.ts';
import { loadLabels } from './labels.ts';
import { loadTeams } from './teams.ts';
import { onResync } from '../live.ts';
import { selectedId } from './filters.ts';
import { thread } from './thread-store.ts';
import { ListHeader } from './ListHeader.tsx';
import { ConversationList } from './ConversationList.tsx';
import { Thread } from './Thread.tsx';
import { NewConversationDialog } from './NewConversation.tsx';
import { ShortcutsDialog, shortcutsOpen, useInboxShortcuts } from './Shortcuts.tsx';
import { usePageTitle } from '../shell/title.ts';

function NoSelection() {
  return (
    <section class="thread-pane no-selection">
      <div class="empty">
        <p class="empty-title">Pick a conversation</p>
        <p class="muted">
          Choose one from the list, or press <kbd>j</kbd> / <kbd>k</kbd> to move through them.
        </p>
        <p class="muted small">
          <button class="link-button" onClick={() => (shortcutsOpen.value = true)}>
            Keyboard shortcuts
          </button>{' '}
          (<kbd>?</kbd>)
        </p>
        <p class="muted small">
          Set up where customers reach you in{' '}
          <a href="/app/settings/channels" onClick={(e) => linkClick(e, '/app/settings/channels')}>
            Settings → Channels
          </a>
          .
        </p>
      </div>
    </section>
  );
}

export function Inbox() {
  useEffect(() => followInbox(), []);
  useEffect(() => followHidden(), []);
  useInboxShortcuts();
  // Labels change rarely and send no event: read them on entering the inbox and on every reconnect.
  useEffect(() => {
    void loadLabels().catch(() => {});
    void loadTeams().catch(() => {});
    return onResync(() => {
      void loadLabels().catch(() => {});
      void loadTeams().catch(() => {});
    });
  }, []);
  const id = selectedId.value;
  // The open conversation's customer, from its thread or, while that loads, from its row in the list.
  const shown = !id ? null : thread.value?.id === id ? thread.value : (conversations.value.find((c) => c.id === id) ?? null);
  usePageTitle(shown ? `${shown.customer?.name || 'Visitor'} · Inbox` : 'Inbox');
  return (
    <div class={`inbox${id ? ' has-selection' : ''}`}>
      {/* The page's heading while a phone shows the conversation alone (the list, with its heading, is hidden then). */}
      {id && <h1 class="visually-hidden inbox-heading-alone">Inbox</h1>}
      <section class="list-pane" aria-label="Conversation list">
        <ListHeader />
        <ConversationList />
      </section>
      {id ? <Thread id={id} /> : <NoSelection />}
      <ShortcutsDialog />
      <NewConversationDialog />
    </div>
  );
}
