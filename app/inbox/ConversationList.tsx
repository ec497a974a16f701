/** The list named "Conversations"; `j`/`k` move the selection from anywhere outside a text field. */
import { useEffect } from 'preact/hooks';
import { navigate } from '../router.ts';
import { linkClick } from '../router.ts';
import { conversations, listError, listState, loadMore, nextCursor } from './store.ts';
import { useAction } from '../ui/useAction.ts';
import { filters, inboxUrl, selectedId } from './filters.ts';
import { ConversationRow } from './ConversationRow.tsx';
import { Notice } from '../ui/Notice.tsx';

const typing = (target: EventTarget | null) => target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));

function move(step: number): void {
  const list = conversations.value;
  if (!list.length) return;
  const at = list.findIndex((c) => c.id === selectedId.value);
  const next = list[Math.min(list.length - 1, Math.max(0, at === -1 ? 0 : at + step))]!;
  navigate(inboxUrl({}, next.id));
  requestAnimationFrame(() => document.querySelector<HTMLElement>(`.conv-row[data-id="${next.id}"] a`)?.focus());
}

function EmptyList() {
  const f = filters.value;
  const filtered = f.view !== 'all' || f.status !== 'active' || f.channel;
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
      <button class="btn small" onClick={() => more.run()} disabled={more.busy}>{more.busy ? 'Loading…' : 'Show more'}</button>
      <Notice>{more.error}</Notice>
    </div>
  );
}

export function ConversationList() {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.metaKey || e.ctrlKey || e.altKey || typing(e.target)) return;
      if (e.key === 'j') move(1);
      else if (e.key === 'k') move(-1);
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
  if (listState.value === 'loading') return <div class="list-loading" aria-busy="true"><div class="spinner" role="status" aria-label="Loading conversations" /></div>;
  if (listState.value === 'error') return <div class="empty"><Notice>{listError.value}</Notice></div>;
  const list = conversations.value;
  return (
    <>
      {listError.value && <Notice>{listError.value}</Notice>}
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
