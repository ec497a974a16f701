/**
 * The inbox's keyboard shortcuts, active outside text fields, and the dialog `?` opens to list
 * them. Each acts on the open conversation, as the buttons do, through the same API calls.
 */
import { signal } from '@preact/signals';
import { useEffect, useLayoutEffect } from 'preact/hooks';
import { api } from '../api.ts';
import { Modal } from '../ui/Modal.tsx';
import { can, me, members } from '../session.ts';
import { navigate } from '../router.ts';
import { inboxUrl, selectedId } from './filters.ts';
import { conversations, loadConversations } from './store.ts';
import { loadThread, thread } from './thread-store.ts';
import { toggleTicked } from './BulkBar.tsx';
import { snoozeMenuOpen } from './Triage.tsx';

export const shortcutsOpen = signal(false);

const typing = (target: EventTarget | null) => target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));

export const SHORTCUTS: { keys: string[]; what: string }[] = [
  { keys: ['j'], what: 'Next conversation' },
  { keys: ['k'], what: 'Previous conversation' },
  { keys: ['x'], what: 'Select or unselect the open conversation (bulk actions)' },
  { keys: ['e'], what: 'Assign the open conversation to me' },
  { keys: ['r'], what: 'Resolve the open conversation' },
  { keys: ['s'], what: 'Snooze the open conversation (choose when)' },
  { keys: ['/'], what: 'Search (also Ctrl+K)' },
  { keys: ['?'], what: 'Show these shortcuts' },
  { keys: ['Esc'], what: 'Close a menu or dialog' },
];

function move(step: number): void {
  const list = conversations.value;
  if (!list.length) return;
  const at = list.findIndex((c) => c.id === selectedId.value);
  const next = list[Math.min(list.length - 1, Math.max(0, at === -1 ? 0 : at + step))]!;
  navigate(inboxUrl({}, next.id));
  requestAnimationFrame(() => document.querySelector<HTMLElement>(`.conv-row[data-id="${next.id}"] a`)?.focus());
}

async function act(call: (id: string) => Promise<unknown>): Promise<void> {
  const id = selectedId.value;
  if (!id) return;
  await call(id);
  await Promise.all([loadThread(id), loadConversations()]);
}

/** Listens while the inbox is shown. */
export function useInboxShortcuts(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.metaKey || e.ctrlKey || e.altKey || typing(e.target)) return;
      // While a dialog is open the keys are its own: only "?" closes the shortcuts' one again.
      const inDialog = document.querySelector('dialog[open]') !== null;
      if (e.key === '?' && (!inDialog || shortcutsOpen.value)) {
        e.preventDefault();
        shortcutsOpen.value = !shortcutsOpen.value;
        return;
      }
      if (inDialog) return;
      const open = thread.value?.id === selectedId.value ? thread.value : null;
      switch (e.key) {
        case 'j':
          return move(1);
        case 'k':
          return move(-1);
        case 'x':
          if (selectedId.value) toggleTicked(selectedId.value);
          return;
        case 'e': {
          const mine = members.value.find((m) => m.user_id === me.value?.user.id);
          if (open && mine && open.assignee_id !== mine.user_id && can('conversations.take'))
            void act((id) => api.put(`/api/v1/conversations/${id}/assign/${mine.agent_number}`)).catch(() => {});
          return;
        }
        case 'r':
          if (open && open.status !== 'resolved' && can('conversations.change_status'))
            void act((id) => api.put(`/api/v1/conversations/${id}/resolve`)).catch(() => {});
          return;
        case 's':
          if (open && !open.snoozed && (open.status === 'open' || open.status === 'pending') && can('conversations.snooze')) {
            e.preventDefault();
            snoozeMenuOpen.value = true;
          }
          return;
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
}

export function ShortcutsDialog() {
  if (!shortcutsOpen.value) return null;
  const close = () => (shortcutsOpen.value = false);
  return (
    <Modal class="search-backdrop" label="Keyboard shortcuts" onClose={close}>
      <div class="shortcuts-dialog">
        <div class="shortcuts-head">
          <h2>Keyboard shortcuts</h2>
          <button class="btn small ghost" onClick={close}>
            Close
          </button>
        </div>
        <dl class="shortcuts">
          {SHORTCUTS.map((s) => (
            <div class="shortcut">
              <dt>
                {s.keys.map((k) => (
                  <kbd>{k}</kbd>
                ))}
              </dt>
              <dd>{s.what}</dd>
            </div>
          ))}
        </dl>
      </div>
    </Modal>
  );
}
