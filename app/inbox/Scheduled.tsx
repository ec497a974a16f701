/**
 * Scheduled replies ("Send later"): the time picker of the composer, and what a reply still
 * `scheduled` shows in the thread — when it goes out, Edit (text and time) and Cancel. Both are
 * refused by the server (409) once it has gone out; the thread is then read again.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { Message } from '../types.ts';
import { useAction } from '../ui/useAction.ts';
import { Notice } from '../ui/Notice.tsx';
import { clockTime } from '../ui/time.ts';
import { loadThread } from './thread-store.ts';

/** A Date as the value of <input type="datetime-local"> (local time, minutes). */
export function localInput(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

/** Quick times for Send later: in 1 hour, tomorrow 9:00, Monday 9:00. */
export function sendLaterChoices(): { label: string; at: Date }[] {
  const nine = (days: number) => {
    const at = new Date();
    at.setDate(at.getDate() + days);
    at.setHours(9, 0, 0, 0);
    return at;
  };
  const toMonday = (8 - new Date().getDay()) % 7 || 7;
  return [
    { label: 'In 1 hour', at: new Date(Date.now() + 3600_000) },
    { label: 'Tomorrow 9:00', at: nine(1) },
    { label: 'Monday 9:00', at: nine(toMonday) },
  ];
}

/** The composer's Send later panel: a quick time or one typed, then Schedule. */
export function SendLaterPanel({ busy, onSchedule, onClose }: { busy: boolean; onSchedule: (at: Date) => void; onClose: () => void }) {
  const [value, setValue] = useState(localInput(new Date(Date.now() + 3600_000)));
  const at = value ? new Date(value) : null;
  const valid = at !== null && !Number.isNaN(at.getTime()) && at.getTime() > Date.now();
  return (
    <div class="send-later" role="group" aria-label="Send later">
      <div class="send-later-quick">
        {sendLaterChoices().map((c) => (
          <button type="button" class="btn xsmall" onClick={() => setValue(localInput(c.at))}>
            {c.label}
          </button>
        ))}
      </div>
      <div class="send-later-row">
        <input class="input small" type="datetime-local" aria-label="Send at" value={value} onInput={(e) => setValue(e.currentTarget.value)} />
        <button type="button" class="btn small primary" disabled={busy || !valid} onClick={() => at && onSchedule(at)}>
          Schedule
        </button>
        <button type="button" class="btn small ghost" onClick={onClose}>
          Cancel
        </button>
      </div>
      {!valid && value && <p class="muted small">Pick a time in the future.</p>}
    </div>
  );
}

const ClockIcon = () => (
  <svg class="inline-icon" width="13" height="13" viewBox="0 0 16 16" aria-hidden="true">
    <circle cx="8" cy="8" r="6.3" fill="none" stroke="currentColor" stroke-width="1.5" />
    <path d="M8 4.6V8l2.4 1.6" fill="none" stroke="currentColor" stroke-width="1.5" stroke-linecap="round" />
  </svg>
);

/** Under a scheduled reply in the thread: when it goes out, Edit and Cancel. */
export function ScheduledControls({ message: m }: { message: Message }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(m.content);
  const [when, setWhen] = useState(localInput(new Date(m.send_at ?? Date.now())));
  const act = useAction(async (call: () => Promise<unknown>) => {
    try {
      await call();
      setEditing(false);
    } finally {
      await loadThread(m.conversation_id);
    }
  });
  const save = () =>
    act.run(() => api.patch(`/api/v1/conversations/${m.conversation_id}/messages/${m.id}`, { content: text.trim(), send_at: new Date(when).toISOString() }));
  const cancel = () => act.run(() => api.delete(`/api/v1/conversations/${m.conversation_id}/messages/${m.id}`));
  return (
    <div class="scheduled-controls" data-status="scheduled">
      {editing ? (
        <div class="scheduled-edit" role="group" aria-label="Edit scheduled reply">
          <textarea class="composer-input" dir="auto" rows={2} aria-label="Scheduled reply text" value={text} onInput={(e) => setText(e.currentTarget.value)} />
          <div class="send-later-row">
            <input class="input small" type="datetime-local" aria-label="Send at" value={when} onInput={(e) => setWhen(e.currentTarget.value)} />
            <button class="btn small primary" disabled={act.busy || !text.trim()} onClick={save}>
              Save
            </button>
            <button class="btn small ghost" onClick={() => setEditing(false)}>
              Back
            </button>
          </div>
        </div>
      ) : (
        <div class="msg-status scheduled">
          <ClockIcon /> <span class="status-label">Scheduled for {m.send_at ? clockTime(m.send_at) : '…'}</span>
          <button class="btn xsmall" onClick={() => setEditing(true)}>
            Edit
          </button>
          <button class="btn xsmall" disabled={act.busy} onClick={cancel}>
            Cancel sending
          </button>
        </div>
      )}
      <Notice>{act.error}</Notice>
    </div>
  );
}
