/**
 * Snooze and priority: the snooze menu (1 hour, tomorrow 9:00, next week, until the customer
 * replies; Wake up when snoozed), the priority picker, and the priority mark of list rows.
 * The same snooze choices serve the bulk bar and the `s` shortcut.
 */
import { signal } from '@preact/signals';
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { api } from '../api.ts';
import { can } from '../session.ts';
import type { ConversationDetail, Priority } from '../types.ts';
import { useAction } from '../ui/useAction.ts';
import { Notice } from '../ui/Notice.tsx';
import { clockTime, HOUR } from '../ui/time.ts';
import { PRIORITIES } from './filters.ts';
import { loadConversations } from './store.ts';
import { loadThread } from './thread-store.ts';

/** What a snooze choice sends: `{until}` or `{until_customer_replies: true}`. */
export type SnoozeBody = { until: string } | { until_customer_replies: true };

/** 9:00 local time `days` from today. */
function nineOClock(days: number): Date {
  const at = new Date();
  at.setDate(at.getDate() + days);
  at.setHours(9, 0, 0, 0);
  return at;
}

/** The menu's choices, computed when it opens (so "1 hour" is from now). */
export function snoozeChoices(): { id: string; label: string; hint: string; body: SnoozeBody }[] {
  const hour = new Date(Date.now() + 3600_000);
  const tomorrow = nineOClock(1);
  // Next Monday (a week from today when today is Monday).
  const toMonday = (8 - new Date().getDay()) % 7 || 7;
  const nextWeek = nineOClock(toMonday);
  const day = (d: Date) => d.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short' });
  const time = (d: Date) => d.toLocaleTimeString(undefined, { hour: HOUR, minute: '2-digit' });
  return [
    { id: 'hour', label: '1 hour', hint: time(hour), body: { until: hour.toISOString() } },
    { id: 'tomorrow', label: 'Tomorrow 9:00', hint: day(tomorrow), body: { until: tomorrow.toISOString() } },
    { id: 'week', label: 'Next week', hint: `${day(nextWeek)}, 9:00`, body: { until: nextWeek.toISOString() } },
    { id: 'reply', label: 'Until the customer replies', hint: '', body: { until_customer_replies: true } },
  ];
}

/** The snooze menu of the open conversation is open (the `s` shortcut opens it too). */
export const snoozeMenuOpen = signal(false);

/** "Snoozed until Tue 12 Mar, 09:00", or "Snoozed until the customer replies". */
export const snoozeText = (c: { snoozed: boolean; snoozed_until: string | null }) =>
  !c.snoozed ? '' : c.snoozed_until ? `Snoozed until ${clockTime(c.snoozed_until)}` : 'Snoozed until the customer replies';

/**
 * The snooze menu's keys (the WAI-ARIA menu pattern): Up and Down move between its items,
 * wrapping; Home and End go to the first and last; Tab leaves it, closed.
 */
function menuKeys(e: KeyboardEvent): void {
  const items = [...(e.currentTarget as HTMLElement).querySelectorAll<HTMLElement>('[role="menuitem"]')];
  if (e.key === 'Tab') {
    snoozeMenuOpen.value = false;
    return;
  }
  const at = items.indexOf(document.activeElement as HTMLElement);
  const next = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: items.length - 1 }[e.key];
  if (next === undefined || items.length === 0) return;
  e.preventDefault();
  items[(next + items.length) % items.length]?.focus();
}

export function SnoozeMenu({ conversation: c }: { conversation: ConversationDetail }) {
  const box = useRef<HTMLDivElement>(null);
  const act = useAction(async (call: () => Promise<unknown>) => {
    await call();
    snoozeMenuOpen.value = false;
    await Promise.all([loadThread(c.id), loadConversations()]);
  });
  const open = snoozeMenuOpen.value;
  // A layout effect: Escape works from the moment the menu shows.
  useLayoutEffect(() => {
    if (!open) return;
    const outside = (e: MouseEvent) => box.current && !box.current.contains(e.target as Node) && (snoozeMenuOpen.value = false);
    // Escape closes it and gives the focus back to the Snooze button (it was on an item, now gone).
    const onEscape = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      snoozeMenuOpen.value = false;
      box.current?.querySelector<HTMLElement>('[aria-haspopup="menu"]')?.focus();
    };
    document.addEventListener('mousedown', outside);
    document.addEventListener('keydown', onEscape);
    // Kept inside the window: a menu opening near its right edge (a phone) moves left as far as it needs.
    const menu = box.current?.querySelector<HTMLElement>('[role="menu"]');
    if (menu) {
      const overflow = menu.getBoundingClientRect().right - (document.documentElement.clientWidth - 8);
      if (overflow > 0) menu.style.left = `${-overflow}px`;
    }
    requestAnimationFrame(() => box.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus());
    return () => {
      document.removeEventListener('mousedown', outside);
      document.removeEventListener('keydown', onEscape);
    };
  }, [open]);
  useEffect(() => () => void (snoozeMenuOpen.value = false), [c.id]);
  if (!can('conversations.snooze') || c.status === 'resolved' || c.status === 'closed') return null;
  if (c.snoozed)
    return (
      <div class="actions">
        <button class="btn small" onClick={() => act.run(() => api.delete(`/api/v1/conversations/${c.id}/snooze`))} disabled={act.busy}>
          Wake up
        </button>
        {act.error && <Notice>{act.error}</Notice>}
      </div>
    );
  return (
    <div class="menu-wrap" ref={box}>
      <button class="btn small" aria-haspopup="menu" aria-expanded={open} onClick={() => (snoozeMenuOpen.value = !open)} disabled={act.busy}>
        Snooze
      </button>
      {open && (
        <div class="menu" role="menu" aria-label="Snooze until" onKeyDown={menuKeys}>
          {snoozeChoices().map((choice) => (
            <button role="menuitem" class="menu-item" onClick={() => act.run(() => api.put(`/api/v1/conversations/${c.id}/snooze`, choice.body))}>
              <span>{choice.label}</span>
              {choice.hint && <span class="muted small">{choice.hint}</span>}
            </button>
          ))}
        </div>
      )}
      {act.error && <Notice>{act.error}</Notice>}
    </div>
  );
}

/** A small flag in the priority's color (nothing for `none`). */
export function PriorityMark({ priority }: { priority: Priority }) {
  if (priority === 'none') return null;
  const label = PRIORITIES.find((p) => p.id === priority)?.label ?? priority;
  return (
    <span class={`priority-mark priority-${priority}`} title={`Priority: ${label}`} aria-label={`Priority: ${label}`} role="img">
      <svg width="11" height="11" viewBox="0 0 12 12" aria-hidden="true">
        <path d="M2 1v10M2 1.5h7l-1.6 2.5L9 6.5H2" fill="currentColor" stroke="currentColor" stroke-width="1.4" stroke-linejoin="round" />
      </svg>
      {label}
    </span>
  );
}

export function PrioritySelect({ conversation: c }: { conversation: ConversationDetail }) {
  const act = useAction(async (priority: Priority) => {
    await api.put(`/api/v1/conversations/${c.id}/priority`, { priority });
    await Promise.all([loadThread(c.id), loadConversations()]);
  });
  if (!can('conversations.set_priority')) return null;
  return (
    <>
      <select
        class={`input small priority-select priority-${c.priority}`}
        aria-label="Priority"
        value={c.priority}
        disabled={act.busy}
        onChange={(e) => void act.run(e.currentTarget.value as Priority)}
      >
        {PRIORITIES.map((p) => (
          <option value={p.id}>{p.id === 'none' ? 'No priority' : `${p.label} priority`}</option>
        ))}
      </select>
      {act.error && <Notice>{act.error}</Notice>}
    </>
  );
}
