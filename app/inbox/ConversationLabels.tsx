/** A conversation's labels in the thread header, and the menu that sets them (any member). */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { linkClick } from '../router.ts';
import { can } from '../session.ts';
import type { ConversationDetail } from '../types.ts';
import { LabelChip } from '../ui/LabelChip.tsx';
import { Notice } from '../ui/Notice.tsx';
import { labels } from './labels.ts';
import { loadConversations } from './store.ts';
import { loadThread, thread } from './thread-store.ts';

export function ConversationLabels({ conversation: c }: { conversation: ConversationDetail }) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const box = useRef<HTMLDivElement>(null);
  // The set the agent wants now (shown at once) and whether a PUT is on its way: clicks during
  // a save are folded into the next PUT, so the last click wins and none is lost.
  const wanted = useRef<string[] | null>(null);
  const saving = useRef(false);
  const show = (labels: string[]) => {
    if (thread.value?.id === c.id) thread.value = { ...thread.value, labels };
  };
  async function save(): Promise<void> {
    if (saving.current) return;
    saving.current = true;
    setError(null);
    try {
      while (wanted.current) {
        const next = wanted.current;
        const result = await api.put<{ labels: string[] }>(`/api/v1/conversations/${c.id}/labels`, { labels: next });
        if (wanted.current === next) {
          wanted.current = null;
          show(result.labels);
        }
      }
      void loadConversations();
    } catch (e) {
      wanted.current = null;
      setError((e as Error).message);
      void loadThread(c.id);
    } finally {
      saving.current = false;
    }
  }
  useEffect(() => {
    if (!open) return;
    const outside = (e: MouseEvent) => box.current && !box.current.contains(e.target as Node) && setOpen(false);
    // Escape closes it and gives the focus back to the button that opened it.
    const onEscape = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setOpen(false);
      box.current?.querySelector<HTMLElement>('button[aria-expanded]')?.focus();
    };
    document.addEventListener('mousedown', outside);
    document.addEventListener('keydown', onEscape);
    return () => {
      document.removeEventListener('mousedown', outside);
      document.removeEventListener('keydown', onEscape);
    };
  }, [open]);

  const has = (name: string) => c.labels.some((l) => l.toLowerCase() === name.toLowerCase());
  const toggle = (name: string) => {
    const next = has(name) ? c.labels.filter((l) => l.toLowerCase() !== name.toLowerCase()) : [...c.labels, name];
    wanted.current = next;
    show([...next].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())));
    void save();
  };
  const editable = can('conversations.label');
  return (
    <div class="thread-labels" ref={box}>
      {c.labels.map((name) => (
        <LabelChip name={name} />
      ))}
      {editable && (
        <button type="button" class="btn ghost xsmall" aria-expanded={open} onClick={() => setOpen(!open)}>
          {c.labels.length ? 'Edit labels' : '+ Label'}
        </button>
      )}
      {open && (
        <div class="label-menu" role="group" aria-label="Labels of this conversation">
          {labels.value.length === 0 && <p class="muted small">No labels yet.</p>}
          {labels.value.map((l) => (
            <label class="label-option">
              <input type="checkbox" checked={has(l.name)} onChange={() => toggle(l.name)} />
              <LabelChip name={l.name} color={l.color} />
            </label>
          ))}
          {can('labels.manage') && (
            <a class="small" href="/app/settings/labels" onClick={(e) => linkClick(e, '/app/settings/labels')}>
              Manage labels
            </a>
          )}
          <Notice>{error}</Notice>
        </div>
      )}
    </div>
  );
}
