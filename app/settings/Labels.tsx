/** Labels: the owner and admins add, rename, recolor and delete them; agents see the list. */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { can } from '../session.ts';
import type { Label } from '../types.ts';
import { Field } from '../ui/Field.tsx';
import { LabelChip } from '../ui/LabelChip.tsx';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { labels, loadLabels } from '../inbox/labels.ts';
import { Section } from './Section.tsx';

type Draft = { name: string; color: string; description: string };

function LabelForm({
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
  const [draft, setDraft] = useState(initial);
  const act = useAction(
    async () => {
      await onSave(draft);
      if (!onCancel) setDraft(initial);
    },
    { fields: ['name', 'description'] },
  );
  const set = (k: keyof Draft) => (e: { currentTarget: HTMLInputElement }) => setDraft({ ...draft, [k]: e.currentTarget.value });
  return (
    <form class="card stack" onSubmit={act.onSubmit} aria-label={onCancel ? `Edit ${initial.name}` : 'New label'}>
      <div class="label-form-row">
        <Field label="Name" error={act.fieldErrors.name} required maxLength={50} value={draft.name} onInput={set('name')} placeholder="billing" />
        <label class="field color-field">
          <span class="field-label">Color</span>
          <input class="input color-input" type="color" aria-label="Color" value={draft.color} onInput={set('color')} />
        </label>
      </div>
      <Field
        label="Description"
        error={act.fieldErrors.description}
        maxLength={200}
        value={draft.description}
        onInput={set('description')}
        placeholder="What this label means (optional)"
      />
      <Notice>{act.error}</Notice>
      <div class="row-end">
        {onCancel && (
          <button type="button" class="btn ghost" onClick={onCancel}>
            Cancel
          </button>
        )}
        <button class="btn primary" type="submit" disabled={act.busy || !draft.name.trim()}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}

export function Labels() {
  const [error, setError] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  useEffect(() => {
    loadLabels().then(
      () => setLoaded(true),
      (e: Error) => setError(e.message),
    );
  }, []);
  const manage = can('labels.manage');
  const remove = useAction(async (l: Label) => {
    await api.delete(`/api/v1/labels/${l.id}`);
    await loadLabels();
  });
  const create = async (d: Draft) => {
    await api.post('/api/v1/labels', d);
    await loadLabels();
  };
  const update = (id: string) => async (d: Draft) => {
    await api.patch(`/api/v1/labels/${id}`, d);
    setEditing(null);
    await loadLabels();
  };
  return (
    <Section
      title="Labels"
      intro={
        manage
          ? 'Tag conversations by topic or urgency, then filter the inbox by a label. Every teammate can label conversations.'
          : 'Labels your team tags conversations with. The owner and admins manage this list.'
      }
      error={error}
      loading={!loaded}
    >
      <ul class="cards" aria-label="Labels">
        {labels.value.map((l) =>
          editing === l.id ? (
            <li>
              <LabelForm
                initial={{ name: l.name, color: l.color, description: l.description }}
                submitLabel="Save"
                onSave={update(l.id)}
                onCancel={() => setEditing(null)}
              />
            </li>
          ) : (
            <li class="card card-row" aria-label={l.name}>
              <div class="grow stack-tight">
                <LabelChip name={l.name} color={l.color} />
                {l.description && <div class="small muted">{l.description}</div>}
              </div>
              {manage && (
                <div class="card-actions">
                  <button class="btn small" onClick={() => setEditing(l.id)} aria-label={`Edit ${l.name}`}>
                    Edit
                  </button>
                  <button
                    class="btn small danger"
                    disabled={remove.busy}
                    onClick={() => confirm(`Delete the label "${l.name}"? Conversations lose it.`) && remove.run(l)}
                    aria-label={`Delete ${l.name}`}
                  >
                    Delete
                  </button>
                </div>
              )}
            </li>
          ),
        )}
      </ul>
      {labels.value.length === 0 && (
        <p class="muted">No labels yet.{manage ? ' Start with the topics customers write about most: billing, bug, feature request.' : ''}</p>
      )}
      <Notice>{remove.error}</Notice>
      {manage && (
        <>
          <h3 class="subhead">Add a label</h3>
          <LabelForm initial={{ name: '', color: '#1f93ff', description: '' }} submitLabel="Add label" onSave={create} />
        </>
      )}
    </Section>
  );
}
