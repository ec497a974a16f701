/** A conversation's labels in the thread header, and the menu that sets them (any member). */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { linkClick } from '../router.ts';
import { can } from '../session.ts';
import type { ConversationDetail } from '../types.ts';
import { LabelChip } from '../ui/LabelChip.tsx';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { labels } from './labels.ts';
import { loadConversations } from './store.ts';
import { thread } from './thread-store.ts';

export function ConversationLabels({ conversation: c }: { conversation: ConversationDetail }) {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const save = useAction(async (next: string[]) => {
    const result = await api.put<{ labels: string[] }>(`/api/v1/conversations/${c.id}/labels`, { labels: next });
    if (thread.value?.id === c.id) thread.value = { ...thread.value, labels: result.labels };
    void loadConversations();
  });
  useEffect(() => {
    if (!open) return;
    const outside = (e: MouseEvent) => box.current && !box.current.contains(e.target as Node) && setOpen(false);
    const escape = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    document.addEventListener('mousedown', outside);
    document.addEventListener('keydown', escape);
    return () => {
      document.removeEventListener('mousedown', outside);
      document.removeEventListener('keydown', escape);
    };
  }, [open]);

  const has = (name: string) => c.labels.some((l) => l.toLowerCase() === name.toLowerCase());
  const toggle = (name: string) => void save.run(has(name) ? c.labels.filter((l) => l.toLowerCase() !== name.toLowerCase()) : [...c.labels, name]);
  const editable = can('conversations.label');
  return (
    <div class="thread-labels" ref={box}>
      {c.labels.map((name) => (
        <LabelChip name={name} />
      ))}
      {editable && (
        <button type="button" class="btn ghost xsmall" aria-haspopup="true" aria-expanded={open} onClick={() => setOpen(!open)}>
          {c.labels.length ? 'Edit labels' : '+ Label'}
        </button>
      )}
      {open && (
        <div class="label-menu" role="group" aria-label="Labels of this conversation">
          {labels.value.length === 0 && <p class="muted small">No labels yet.</p>}
          {labels.value.map((l) => (
            <label class="label-option">
              <input type="checkbox" checked={has(l.name)} disabled={save.busy} onChange={() => toggle(l.name)} />
              <LabelChip name={l.name} color={l.color} />
            </label>
          ))}
          {can('labels.manage') && (
            <a class="small" href="/app/settings/labels" onClick={(e) => linkClick(e, '/app/settings/labels')}>Manage labels</a>
          )}
          <Notice>{save.error}</Notice>
        </div>
      )}
    </div>
  );
}
