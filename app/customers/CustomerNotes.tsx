/** Notes on a customer (not on one conversation): the team's knowledge of the person, newest first. */
import { useEffect, useState } from 'preact/hooks';
import { api, getPage, qs } from '../api.ts';
import { can, me } from '../session.ts';
import type { Customer, CustomerNote } from '../types.ts';
import { Notice } from '../ui/Notice.tsx';
import { shortTime } from '../ui/time.ts';
import { useAction } from '../ui/useAction.ts';

const PAGE = 20;

export function CustomerNotes({ customer }: { customer: Customer }) {
  const [notes, setNotes] = useState<CustomerNote[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [text, setText] = useState('');
  const base = `/api/v1/customers/${customer.id}/notes`;
  useEffect(() => {
    setNotes(null);
    let current = true;
    getPage<CustomerNote>(`${base}${qs({ limit: PAGE })}`).then(
      (page) => current && (setNotes(page.items), setNext(page.next)),
      () => current && setNotes([]),
    );
    return () => {
      current = false;
    };
  }, [customer.id]);
  const older = useAction(async () => {
    const page = await getPage<CustomerNote>(`${base}${qs({ limit: PAGE, before: next })}`);
    setNotes([...(notes ?? []), ...page.items]);
    setNext(page.next);
  });
  const add = useAction(async () => {
    const note = await api.post<CustomerNote>(base, { body: text });
    setNotes([note, ...(notes ?? [])]);
    setText('');
  });
  const remove = useAction(async (note: CustomerNote) => {
    await api.delete(`${base}/${note.id}`);
    setNotes((notes ?? []).filter((n) => n.id !== note.id));
  });
  const userId = me.value?.user.id;
  return (
    <section class="customer-notes" aria-label="Notes">
      <h3 class="panel-title">Notes</h3>
      {can('customer_notes.write') && (
        <form class="note-add stack-tight" aria-label="Add a customer note" onSubmit={add.onSubmit}>
          <textarea
            class="input"
            dir="auto"
            rows={2}
            maxLength={5000}
            placeholder="What should the team know about this customer?"
            aria-label="Customer note"
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
          />
          <div class="row-end">
            <button class="btn small" type="submit" disabled={add.busy || !text.trim()}>
              Save note
            </button>
          </div>
          <Notice>{add.error}</Notice>
        </form>
      )}
      {notes === null ? (
        <p class="muted small">Loading…</p>
      ) : notes.length === 0 ? (
        <p class="muted small">No notes yet.</p>
      ) : (
        <ul class="customer-note-list" aria-label="Customer notes">
          {notes.map((n) => (
            <li class="customer-note" key={n.id}>
              <p class="customer-note-body" dir="auto">
                {n.body}
              </p>
              <div class="customer-note-meta small muted">
                <span>
                  {n.author_name} · {shortTime(n.created_at)}
                </span>
                {(n.author_id === userId || can('customer_notes.delete_any')) && (
                  <button
                    class="btn ghost xsmall"
                    type="button"
                    disabled={remove.busy}
                    aria-label={`Delete note by ${n.author_name} of ${shortTime(n.created_at)}`}
                    onClick={() => confirm('Delete this note?') && remove.run(n)}
                  >
                    Delete
                  </button>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
      {next && (
        <button class="btn ghost small" type="button" disabled={older.busy} onClick={() => void older.run()}>
          Show older notes
        </button>
      )}
      <Notice>{older.error ?? remove.error}</Notice>
    </section>
  );
}
