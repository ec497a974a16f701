/** The signed-in member's mentions in private notes: unread first; opening one marks it read. */
import { navigate } from '../router.ts';
import { Avatar } from '../ui/Avatar.tsx';
import { shortTime } from '../ui/time.ts';
import type { Mention } from '../types.ts';
import { loadMoreMentions, markMentionRead, mentions, mentionsNext, mentionsState, unreadMentions } from './store.ts';
import { usePageTitle } from '../shell/title.ts';

function open(m: Mention): void {
  void markMentionRead(m.id).catch(() => {});
  // The note itself, scrolled to and marked (also when it is older than the thread's latest 100).
  navigate(`/app/inbox/${m.conversation_id}?status=any&message=${m.message_id}`);
}

export function Mentions() {
  usePageTitle('Mentions');
  const list = mentions.value;
  return (
    <div class="page mentions-page">
      <h1 class="page-title">Mentions {unreadMentions.value > 0 && <span class="muted small">{unreadMentions.value} unread</span>}</h1>
      <p class="muted">Private notes where a teammate named you. Customers never see notes.</p>
      {mentionsState.value === 'loading' && <div class="spinner" role="status" aria-label="Loading mentions" />}
      {mentionsState.value === 'error' && <p class="muted">Mentions could not be loaded.</p>}
      {mentionsState.value === 'ready' && list.length === 0 && (
        <p class="empty muted">Nobody has mentioned you yet. Teammates do it with @ in a private note.</p>
      )}
      <ul class="mention-list" aria-label="Mentions">
        {list.map((m) => (
          <li class={`mention-row${m.read_at ? '' : ' unread'}`} data-id={m.id}>
            <button type="button" class="mention-open" onClick={() => open(m)}>
              <Avatar name={m.mentioned_by_name ?? '?'} size={32} />
              <span class="grow">
                <span class="mention-line">
                  <strong>{m.mentioned_by_name ?? 'A former teammate'}</strong> mentioned you
                  {m.customer_name ? <> · {m.customer_name}</> : null}
                  <time class="muted small" dateTime={m.created_at}>
                    {shortTime(m.created_at)}
                  </time>
                </span>
                <span class="mention-text" dir="auto">
                  {m.message.content}
                </span>
              </span>
              {!m.read_at && <span class="unread-dot" aria-label="Unread" />}
            </button>
          </li>
        ))}
      </ul>
      {mentionsNext.value && (
        <button type="button" class="btn ghost" onClick={() => void loadMoreMentions()}>
          Show more
        </button>
      )}
    </div>
  );
}
