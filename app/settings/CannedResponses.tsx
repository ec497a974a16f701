/** Canned responses: saved replies every teammate adds, edits and inserts with `/` in the reply box. */
import { useId, useState } from 'preact/hooks';
import { FieldHint } from '../ui/FieldHint.tsx';
import { api, getPage, qs } from '../api.ts';
import type { CannedResponse } from '../types.ts';
import { Field } from '../ui/Field.tsx';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { useLoad } from '../ui/useLoad.ts';
import { Section } from './Section.tsx';

type Draft = { short_code: string; content: string };

const PLACEHOLDERS = ['{{customer.name}}', '{{customer.first_name}}', '{{customer.email}}', '{{agent.name}}', '{{business.name}}'];

function CannedForm({
  initial,
  submitLabel,
  onSave,
  onCancel,
}: {
  initial: Draft;
  submitLabel: string;
  onSave: (d: Draft) => Promise<void>;
  onCancel?: () => void;
}) {
  const contentHint = useId();
  const [draft, setDraft] = useState(initial);
  const act = useAction(
    async () => {
      await onSave(draft);
      if (!onCancel) setDraft(initial);
    },
    { fields: ['short_code'] },
  );
  return (
    <form class="card stack" onSubmit={act.onSubmit} aria-label={onCancel ? `Edit /${initial.short_code}` : 'New canned response'}>
      <Field
        label="Short code"
        error={act.fieldErrors.short_code}
        required
        maxLength={50}
        pattern="[^\s]+"
        title="No spaces"
        value={draft.short_code}
        placeholder="refund"
        hint="Type / and this code in the reply box to insert it."
        onInput={(e) => setDraft({ ...draft, short_code: e.currentTarget.value })}
      />
      <label class="field">
        <span class="field-label">Content</span>
        <textarea
          class="input"
          aria-describedby={contentHint}
          rows={4}
          required
          maxLength={10000}
          value={draft.content}
          onInput={(e) => setDraft({ ...draft, content: e.currentTarget.value })}
        />
        <FieldHint id={contentHint}>
          Placeholders:{' '}
          {PLACEHOLDERS.map((p) => (
            <code class="placeholder">{p}</code>
          ))}
          . When one may be empty, give a fallback: <code class="placeholder">{'{{customer.first_name | default: "there"}}'}</code>.
        </FieldHint>
      </label>
      <Notice>{act.error}</Notice>
      <div class="row-end">
        {onCancel && (
          <button type="button" class="btn ghost" onClick={onCancel}>
            Cancel
          </button>
        )}
        <button class="btn primary" type="submit" disabled={act.busy || !draft.short_code.trim() || !draft.content.trim()}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}

export function CannedResponses() {
  const [q, setQ] = useState('');
  const [shown, setShown] = useState<{ items: CannedResponse[]; next: string | null } | null>(null);
  const { error, reload } = useLoad(async () => setShown(await getPage<CannedResponse>(`/api/v1/canned-responses${qs({ q: q.trim(), limit: 100 })}`)), [q]);
  const [editing, setEditing] = useState<string | null>(null);
  const more = useAction(async () => {
    if (!shown?.next) return;
    const page = await getPage<CannedResponse>(`/api/v1/canned-responses${qs({ q: q.trim(), limit: 100, cursor: shown.next })}`);
    setShown({ items: [...shown.items, ...page.items], next: page.next });
  });
  const remove = useAction(async (c: CannedResponse) => {
    await api.delete(`/api/v1/canned-responses/${c.id}`);
    await reload();
  });
  const create = async (d: Draft) => {
    await api.post('/api/v1/canned-responses', d);
    await reload();
  };
  const update = (id: string) => async (d: Draft) => {
    await api.patch(`/api/v1/canned-responses/${id}`, d);
    setEditing(null);
    await reload();
  };
  const items = shown?.items ?? [];
  return (
    <Section
      title="Canned responses"
      intro="Saved replies for what customers ask again and again. Type / at the start of the reply box to pick one; placeholders are filled for the conversation."
      error={error}
      loading={!shown}
    >
      <input
        class="input"
        type="search"
        aria-label="Search canned responses"
        placeholder="Search by short code or text…"
        value={q}
        onInput={(e) => setQ(e.currentTarget.value)}
      />
      <ul class="cards" aria-label="Canned responses">
        {items.map((c) =>
          editing === c.id ? (
            <li>
              <CannedForm
                initial={{ short_code: c.short_code, content: c.content }}
                submitLabel="Save"
                onSave={update(c.id)}
                onCancel={() => setEditing(null)}
              />
            </li>
          ) : (
            <li class="card card-row canned-card" aria-label={`/${c.short_code}`}>
              <div class="grow stack-tight">
                <div class="card-title canned-code">/{c.short_code}</div>
                <div class="small muted canned-content" dir="auto">
                  {c.content}
                </div>
              </div>
              <div class="card-actions">
                <button class="btn small" onClick={() => setEditing(c.id)} aria-label={`Edit /${c.short_code}`}>
                  Edit
                </button>
                <button
                  class="btn small danger"
                  disabled={remove.busy}
                  onClick={() => confirm(`Delete /${c.short_code}?`) && remove.run(c)}
                  aria-label={`Delete /${c.short_code}`}
                >
                  Delete
                </button>
              </div>
            </li>
          ),
        )}
      </ul>
      {shown?.next && (
        <div class="row-end">
          <button class="btn" onClick={() => void more.run()} disabled={more.busy}>
            Show more
          </button>
        </div>
      )}
      {shown && items.length === 0 && <p class="muted">{q.trim() ? 'No canned response matches.' : 'No canned responses yet.'}</p>}
      <Notice>{remove.error ?? more.error}</Notice>
      <h3 class="subhead">Add a canned response</h3>
      <CannedForm initial={{ short_code: '', content: '' }} submitLabel="Add canned response" onSave={create} />
    </Section>
  );
}
