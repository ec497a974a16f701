/**
 * Multi-select: the conversations ticked in the list (`x` ticks the open one), and the bar that
 * acts on them at once through POST /conversations/bulk (assign to me, resolve, close, snooze,
 * priority, label). The answer is per conversation: the bar says how many were done and why
 * the others were not; the ticks of the done ones are cleared.
 */
import { signal } from '@preact/signals';
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { can, me } from '../session.ts';
import { useAction } from '../ui/useAction.ts';
import { Notice } from '../ui/Notice.tsx';
import { PRIORITIES } from './filters.ts';
import { labels } from './labels.ts';
import { conversations, loadConversations } from './store.ts';
import { loadThread, thread } from './thread-store.ts';
import { snoozeChoices } from './Triage.tsx';

/** Ticked conversation ids, in the order ticked. */
export const ticked = signal<string[]>([]);

export const toggleTicked = (id: string) => {
  ticked.value = ticked.value.includes(id) ? ticked.value.filter((x) => x !== id) : [...ticked.value, id];
};

type BulkResult = { id: string; ok: boolean; error?: string; detail?: string };

/** Runs one bulk action on the ticked conversations; returns a sentence for the bar. */
export async function runBulk(body: Record<string, unknown>, ids = ticked.value): Promise<string> {
  const { results } = await api.post<{ results: BulkResult[] }>('/api/v1/conversations/bulk', { ids, ...body });
  const failed = results.filter((r) => !r.ok);
  ticked.value = ticked.value.filter((id) => failed.some((f) => f.id === id));
  const open = thread.value;
  await Promise.all([loadConversations(), open && ids.includes(open.id) ? loadThread(open.id) : null]);
  const done = `${results.length - failed.length} of ${results.length} done`;
  if (!failed.length) return done;
  const reasons = [...new Set(failed.map((f) => f.detail ?? f.error ?? 'failed'))].join('; ');
  return `${done}. Not done: ${reasons}`;
}

export function BulkBar() {
  const [outcome, setOutcome] = useState<string | null>(null);
  const act = useAction(async (body: Record<string, unknown>) => setOutcome(await runBulk(body)));
  const count = ticked.value.length;
  if (!count)
    return outcome ? (
      <p class="bulk-outcome muted small" role="status">
        {outcome}
      </p>
    ) : null;
  const all = conversations.value.map((c) => c.id);
  const allTicked = all.length > 0 && all.every((id) => ticked.value.includes(id));
  const pick = (e: Event, run: (value: string) => void) => {
    const select = e.currentTarget as HTMLSelectElement;
    const value = select.value;
    select.value = '';
    if (value) run(value);
  };
  return (
    <div class="bulk-bar" role="toolbar" aria-label="Bulk actions">
      <div class="bulk-top">
        <strong>{count} selected</strong>
        <button class="btn xsmall" onClick={() => (ticked.value = allTicked ? [] : all)}>
          {allTicked ? 'Select none' : 'Select all'}
        </button>
        <button class="btn xsmall" onClick={() => (ticked.value = [])}>
          Clear
        </button>
      </div>
      <div class="bulk-actions">
        {can('conversations.take') && (
          <button class="btn small" disabled={act.busy} onClick={() => act.run({ action: 'assign', assignee_id: me.value?.user.id })}>
            Assign to me
          </button>
        )}
        {can('conversations.change_status') && (
          <>
            <button class="btn small primary" disabled={act.busy} onClick={() => act.run({ action: 'resolve' })}>
              Resolve
            </button>
            <button class="btn small" disabled={act.busy} onClick={() => act.run({ action: 'close' })}>
              Close
            </button>
          </>
        )}
        {can('conversations.snooze') && (
          <select
            class="input small"
            aria-label="Snooze selected"
            disabled={act.busy}
            onChange={(e) => pick(e, (id) => act.run({ action: 'snooze', ...snoozeChoices().find((c) => c.id === id)!.body }))}
          >
            <option value="">Snooze…</option>
            {snoozeChoices().map((c) => (
              <option value={c.id}>{c.label}</option>
            ))}
          </select>
        )}
        {can('conversations.set_priority') && (
          <select
            class="input small"
            aria-label="Set priority of selected"
            disabled={act.busy}
            onChange={(e) => pick(e, (priority) => act.run({ action: 'priority', priority }))}
          >
            <option value="">Priority…</option>
            {PRIORITIES.map((p) => (
              <option value={p.id}>{p.label}</option>
            ))}
          </select>
        )}
        {can('conversations.label') && labels.value.length > 0 && (
          <select
            class="input small"
            aria-label="Add label to selected"
            disabled={act.busy}
            onChange={(e) => pick(e, (name) => act.run({ action: 'label', labels: [name] }))}
          >
            <option value="">Label…</option>
            {labels.value.map((l) => (
              <option value={l.name}>{l.name}</option>
            ))}
          </select>
        )}
      </div>
      {outcome && (
        <p class="bulk-outcome muted small" role="status">
          {outcome}
        </p>
      )}
      <Notice>{act.error}</Notice>
    </div>
  );
}
