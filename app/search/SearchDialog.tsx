/**
 * Search over the whole history (GET /api/v1/search): `/` or Ctrl+K (⌘K) anywhere opens it,
 * Escape closes it. As the agent types, conversations, customers and messages are searched at
 * once, each list with its own "More" (keyset pages). Every result opens its conversation.
 * Snippets are text pieces from the server, rendered as text: nothing found is ever HTML.
 */
import { signal } from '@preact/signals';
import { useEffect, useRef, useState } from 'preact/hooks';
import { getPage, qs } from '../api.ts';
import { linkClick } from '../router.ts';
import { can } from '../session.ts';
import { Notice } from '../ui/Notice.tsx';
import { Modal } from '../ui/Modal.tsx';
import { shortTime } from '../ui/time.ts';
import type { HistoryHit, SnippetSegment } from '../types.ts';

export const searchOpen = signal(false);

type Kind = 'conversations' | 'customers' | 'messages';
const KINDS: { kind: Kind; title: string }[] = [
  { kind: 'conversations', title: 'Conversations' },
  { kind: 'customers', title: 'Customers' },
  { kind: 'messages', title: 'Messages' },
];
/** Results per list and per "More". */
const PAGE = 5;
/** Quiet time after the last keystroke before searching, ms. */
const DEBOUNCE_MS = 200;

type List = { items: HistoryHit[]; next: string | null };
type Lists = Record<Kind, List>;

const typing = (target: EventTarget | null) => target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));

/** Opens the search on `/` (outside a text field) and on Ctrl+K / ⌘K anywhere; returns the cleanup. */
export function followSearchKeys(): () => void {
  const onKey = (e: KeyboardEvent) => {
    const chord = (e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'k';
    const slash = e.key === '/' && !e.ctrlKey && !e.metaKey && !e.altKey && !typing(e.target);
    if (!chord && !slash) return;
    e.preventDefault();
    searchOpen.value = true;
  };
  addEventListener('keydown', onKey);
  return () => removeEventListener('keydown', onKey);
}

const fetchPage = (kind: Kind, q: string, cursor?: string) => getPage<HistoryHit>(`/api/v1/search${qs({ q, type: kind, limit: PAGE, cursor })}`);

function Snippet({ segments }: { segments: SnippetSegment[] }) {
  return (
    <span class="search-snippet" dir="auto">
      {segments.map((s) => (s.match ? <mark>{s.text}</mark> : s.text))}
    </span>
  );
}

/** Where a result leads: its conversation (any status, so the inbox shows it whatever the filter); a message, scrolled to. */
function targetOf(hit: HistoryHit): string | null {
  if (hit.type === 'message') return `/app/inbox/${hit.conversation_id}?status=any&message=${hit.id}`;
  const id = hit.type === 'customer' ? hit.latest_conversation_id : hit.id;
  return id ? `/app/inbox/${id}?status=any` : null;
}

function Result({ hit, onOpen }: { hit: HistoryHit; onOpen: () => void }) {
  const to = targetOf(hit);
  const title = hit.type === 'customer' ? hit.name || hit.email || hit.phone || 'Customer' : hit.customer?.name || 'Visitor';
  const meta =
    hit.type === 'message'
      ? `${hit.sender_type === 'customer' ? 'Customer' : hit.sender_type === 'agent' ? 'Agent' : hit.sender_type === 'ai' ? 'AI agent' : 'System'} · ${shortTime(hit.created_at)}`
      : hit.type === 'conversation'
        ? `${hit.status} · ${hit.channel_type} · ${shortTime(hit.updated_at)}`
        : [hit.email, hit.phone].filter(Boolean).join(' · ');
  const body = (
    <>
      <span class="search-hit-head">
        <strong>{title}</strong>
        <span class="muted small">{meta}</span>
      </span>
      <Snippet segments={hit.snippet} />
      {hit.type === 'customer' && !to && <span class="muted small">No conversation yet</span>}
    </>
  );
  return (
    <li>
      {to ? (
        <a
          class="search-hit"
          href={to}
          onClick={(e) => {
            linkClick(e, to);
            onOpen();
          }}
        >
          {body}
        </a>
      ) : (
        <div class="search-hit">{body}</div>
      )}
    </li>
  );
}

function Section({
  kind,
  title,
  q,
  list,
  onMore,
  onOpen,
}: {
  kind: Kind;
  title: string;
  q: string;
  list: List | undefined;
  onMore: (kind: Kind) => Promise<void>;
  onOpen: () => void;
}) {
  const [busy, setBusy] = useState(false);
  if (!list) return null;
  return (
    <section class="search-section" aria-label={title}>
      <h2 class="search-section-title">{title}</h2>
      {list.items.length === 0 ? (
        <p class="muted small search-none">
          No {title.toLowerCase()} match “{q}”.
        </p>
      ) : (
        <ul class="search-hits">
          {list.items.map((hit) => (
            <Result key={`${hit.type}:${hit.type === 'customer' ? hit.uuid : hit.id}`} hit={hit} onOpen={onOpen} />
          ))}
        </ul>
      )}
      {list.next && (
        <button
          class="btn small ghost"
          disabled={busy}
          onClick={() => {
            setBusy(true);
            void onMore(kind).finally(() => setBusy(false));
          }}
        >
          {busy ? 'Loading…' : `More ${title.toLowerCase()}`}
        </button>
      )}
    </section>
  );
}

export function SearchDialog() {
  const [q, setQ] = useState('');
  const [lists, setLists] = useState<Partial<Lists>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const latest = useRef('');
  const open = searchOpen.value;

  useEffect(() => {
    if (open) input.current?.focus();
  }, [open]);

  useEffect(() => {
    const text = q.trim();
    latest.current = text;
    if (!text) {
      setLists({});
      setError(null);
      return;
    }
    const timer = setTimeout(() => {
      setBusy(true);
      Promise.all(KINDS.map(({ kind }) => fetchPage(kind, text)))
        .then((pages) => {
          if (latest.current !== text) return; // an answer for what the agent typed before
          setLists(Object.fromEntries(KINDS.map(({ kind }, i) => [kind, pages[i]!])) as Lists);
          setError(null);
        })
        .catch((e: Error) => latest.current === text && setError(e.message))
        .finally(() => latest.current === text && setBusy(false));
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [q]);

  if (!open || !can('search.read')) return null;
  const close = () => (searchOpen.value = false);
  const more = async (kind: Kind) => {
    const list = lists[kind];
    if (!list?.next) return;
    const text = q.trim();
    try {
      const page = await fetchPage(kind, text, list.next);
      if (latest.current !== text) return;
      setLists((now) => ({ ...now, [kind]: { items: [...(now[kind]?.items ?? []), ...page.items], next: page.next } }));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <Modal class="search-backdrop" label="Search" onClose={close}>
      <div class="search-dialog">
        <div class="search-bar">
          <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
            <path d="M11 4a7 7 0 1 0 0 14 7 7 0 0 0 0-14z M20 20l-4-4" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" />
          </svg>
          <input
            ref={input}
            class="search-input"
            type="search"
            aria-label="Search conversations, customers and messages"
            placeholder="Search words, names, e-mails, phone numbers…"
            value={q}
            onInput={(e) => setQ(e.currentTarget.value)}
          />
          {busy && <span class="spinner small" role="status" aria-label="Searching" />}
          <button class="btn small ghost" onClick={close}>
            Close
          </button>
        </div>
        <div class="search-results">
          <Notice>{error}</Notice>
          {!q.trim() && (
            <p class="muted small search-hint">
              Every conversation of your history: words in any language, part of a name or e-mail, phone digits. <kbd>/</kbd> or <kbd>Ctrl</kbd>+<kbd>K</kbd>{' '}
              opens this, <kbd>Esc</kbd> closes it.
            </p>
          )}
          {q.trim() &&
            KINDS.map(({ kind, title }) => <Section key={kind} kind={kind} title={title} q={q.trim()} list={lists[kind]} onMore={more} onOpen={close} />)}
        </div>
      </div>
    </Modal>
  );
}
