/** The list named "Conversations" (keyboard shortcuts: Shortcuts.tsx), with the bulk bar over it when conversations are ticked. */
import { linkClick } from '../router.ts';
import { conversations, listError, listState, loadMore, nextCursor } from './store.ts';
import { useAction } from '../ui/useAction.ts';
import { filters, selectedId } from './filters.ts';
import { BulkBar } from './BulkBar.tsx';
import { ConversationRow } from './ConversationRow.tsx';
import { Notice } from '../ui/Notice.tsx';
import { hiddenNotice } from './hidden.ts';

function EmptyList() {
  const f = filters.value;
  const filtered = f.view !== 'all' || f.status !== 'active' || f.channel || f.label || f.priority;
  if (f.view === 'snoozed')
    return (
      <div class="empty">
        <p class="empty-title">Nothing snoozed</p>
        <p class="muted">Snooze a conversation to set it aside until a time or until the customer replies. It comes back to the inbox by itself.</p>
      </div>
    );
  return (
    <div class="empty">
      <p class="empty-title">{filtered ? 'Nothing here' : 'No conversations waiting'}</p>
      <p class="muted">
        {filtered
          ? 'No conversation matches these filters.'
          : 'When customers write through your widget or a connected channel, their conversations appear here instantly.'}
      </p>
      {!filtered && (
        <a class="btn" href="/app/settings/widget" onClick={(e) => linkClick(e, '/app/settings/widget')}>
          Add the chat widget to your site
        </a>
      )}
    </div>
  );
}

function ShowMore() {
  const more = useAction(loadMore);
  if (!nextCursor.value) return null;
  return (
    <div class="show-more">
      <button class="btn small" onClick={() => more.run()} disabled={more.busy}>
        {more.busy ? 'Loading…' : 'Show more'}
      </button>
      <Notice>{more.error}</Notice>
    </div>
  );
}

export function ConversationList() {
  if (listState.value === 'loading')
    return (
      <div class="list-loading" aria-busy="true">
        <div class="spinner" role="status" aria-label="Loading conversations" />
      </div>
    );
  if (listState.value === 'error')
    return (
      <div class="empty">
        <Notice>{listError.value}</Notice>
      </div>
    );
  const list = conversations.value;
  return (
    <>
      <BulkBar />
      {listError.value && <Notice>{listError.value}</Notice>}
      {hiddenNotice.value && <Notice kind="info">{hiddenNotice.value}</Notice>}
      {list.length === 0 ? (
        <EmptyList />
      ) : (
        <div class="conv-scroll">
          <ul class="conv-list" aria-label="Conversations">
            {list.map((c) => (
              <ConversationRow key={c.id} conversation={c} selected={c.id === selectedId.value} />
            ))}
          </ul>
          <ShowMore />
        </div>
      )}
    </>
  );
}
