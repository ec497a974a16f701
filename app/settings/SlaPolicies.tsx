/** SLA policies: response and resolution targets for channels, labels or every conversation (owner or admin; agents read). */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { can } from '../session.ts';
import { channelLabel } from '../channel-types.ts';
import type { Channel, SlaPolicy } from '../types.ts';
import { Field } from '../ui/Field.tsx';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { useLoad } from '../ui/useLoad.ts';
import { labels, loadLabels } from '../inbox/labels.ts';
import { Section } from './Section.tsx';

type Draft = { name: string; first: string; next: string; resolution: string; hoursOnly: boolean; channelIds: string[]; labels: string[] };

const emptyDraft: Draft = { name: '', first: '60', next: '', resolution: '', hoursOnly: false, channelIds: [], labels: [] };
const minutes = (v: string) => (v.trim() ? Number(v) : null);
/** The three targets: the draft's key, the field's label, the API's field. */
const TARGETS = [
  ['first', 'First response (minutes)', 'first_response_minutes'],
  ['next', 'Next response (minutes)', 'next_response_minutes'],
  ['resolution', 'Resolution (minutes)', 'resolution_minutes'],
] as const;

const toBody = (d: Draft) => ({
  name: d.name.trim(),
  first_response_minutes: minutes(d.first),
  next_response_minutes: minutes(d.next),
  resolution_minutes: minutes(d.resolution),
  business_hours_only: d.hoursOnly,
  channel_ids: d.channelIds,
  labels: d.labels,
});
const draftOf = (p: SlaPolicy): Draft => ({
  name: p.name,
  first: p.first_response_minutes?.toString() ?? '',
  next: p.next_response_minutes?.toString() ?? '',
  resolution: p.resolution_minutes?.toString() ?? '',
  hoursOnly: p.business_hours_only,
  channelIds: p.channel_ids,
  labels: p.labels,
});

/** "90 min", "4 h", "2 d 3 h". */
export function humanMinutes(m: number | null): string {
  if (m === null) return '—';
  if (m < 60) return `${m} min`;
  if (m < 1440) return m % 60 ? `${Math.floor(m / 60)} h ${m % 60} min` : `${m / 60} h`;
  const d = Math.floor(m / 1440);
  const h = Math.round((m % 1440) / 60);
  return h ? `${d} d ${h} h` : `${d} d`;
}

function channelName(channels: Channel[], id: string): string {
  const ch = channels.find((c) => c.id === id);
  if (!ch) return 'Deleted channel';
  const name = (ch.config as { name?: unknown }).name;
  return typeof name === 'string' && name ? `${channelLabel(ch.type)} · ${name}` : channelLabel(ch.type);
}

function PolicyForm({
  initial,
  channels,
  submitLabel,
  onSave,
  onCancel,
}: {
  initial: Draft;
  channels: Channel[];
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
    { fields: ['name', ...TARGETS.map(([, , field]) => field)] },
  );
  const text = (k: 'name' | 'first' | 'next' | 'resolution') => (e: { currentTarget: HTMLInputElement }) => setDraft({ ...draft, [k]: e.currentTarget.value });
  const toggle = (list: 'channelIds' | 'labels', value: string) =>
    setDraft({ ...draft, [list]: draft[list].includes(value) ? draft[list].filter((v) => v !== value) : [...draft[list], value] });
  return (
    <form class="card stack" onSubmit={act.onSubmit} aria-label={onCancel ? `Edit ${initial.name}` : 'New SLA policy'}>
      <Field label="Name" error={act.fieldErrors.name} required maxLength={100} value={draft.name} onInput={text('name')} placeholder="Standard" />
      <div class="sla-targets">
        {TARGETS.map(([key, label, field]) => (
          <Field label={label} error={act.fieldErrors[field]} type="number" min={1} max={525600} value={draft[key]} onInput={text(key)} placeholder="none" />
        ))}
      </div>
      <label class="check">
        <input type="checkbox" checked={draft.hoursOnly} onChange={(e) => setDraft({ ...draft, hoursOnly: e.currentTarget.checked })} />
        <span>Count business hours only (Settings → Business hours)</span>
      </label>
      <fieldset class="sla-scope">
        <legend class="field-label">Applies to</legend>
        <p class="field-hint">A label match wins over a channel match. Choose nothing to cover every conversation no other policy covers.</p>
        {channels.length > 0 && (
          <div class="chip-choices" role="group" aria-label="Channels">
            {channels.map((ch) => (
              <label class="chip-choice">
                <input type="checkbox" checked={draft.channelIds.includes(ch.id)} onChange={() => toggle('channelIds', ch.id)} />
                <span>{channelName(channels, ch.id)}</span>
              </label>
            ))}
          </div>
        )}
        {labels.value.length > 0 && (
          <div class="chip-choices" role="group" aria-label="Labels">
            {labels.value.map((l) => (
              <label class="chip-choice">
                <input type="checkbox" checked={draft.labels.some((n) => n.toLowerCase() === l.name.toLowerCase())} onChange={() => toggle('labels', l.name)} />
                <span>{l.name}</span>
              </label>
            ))}
          </div>
        )}
      </fieldset>
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

export function SlaPolicies() {
  const { data, error, reload } = useLoad(() => Promise.all([api.get<SlaPolicy[]>('/api/v1/sla-policies'), api.get<Channel[]>('/api/v1/channels')]));
  const [editing, setEditing] = useState<string | null>(null);
  useEffect(() => void loadLabels().catch(() => {}), []);
  const manage = can('sla_policies.manage');
  const remove = useAction(async (p: SlaPolicy) => {
    await api.delete(`/api/v1/sla-policies/${p.id}`);
    await reload();
  });
  const create = async (d: Draft) => {
    await api.post('/api/v1/sla-policies', toBody(d));
    await reload();
  };
  const update = (id: string) => async (d: Draft) => {
    await api.patch(`/api/v1/sla-policies/${id}`, toBody(d));
    setEditing(null);
    await reload();
  };
  const [policies, channels] = data ?? [[], []];
  return (
    <Section
      title="SLA policies"
      intro="Promise how fast your team answers and resolves. Every conversation shows what is due; the inbox marks what is late or due soon, and can list conversations by due time."
      error={error}
      loading={!data}
    >
      <ul class="cards" aria-label="SLA policies">
        {policies.map((p) =>
          editing === p.id ? (
            <li>
              <PolicyForm initial={draftOf(p)} channels={channels} submitLabel="Save" onSave={update(p.id)} onCancel={() => setEditing(null)} />
            </li>
          ) : (
            <li class="card card-row" aria-label={p.name}>
              <div class="grow stack-tight">
                <div class="card-title">{p.name}</div>
                <div class="small sla-figures">
                  <span>
                    First response <strong>{humanMinutes(p.first_response_minutes)}</strong>
                  </span>
                  <span>
                    Next response <strong>{humanMinutes(p.next_response_minutes)}</strong>
                  </span>
                  <span>
                    Resolution <strong>{humanMinutes(p.resolution_minutes)}</strong>
                  </span>
                </div>
                <div class="small muted">
                  {p.business_hours_only ? 'Business hours only' : 'Around the clock'} ·{' '}
                  {p.labels.length === 0 && p.channel_ids.length === 0
                    ? 'Every other conversation'
                    : [...p.labels.map((l) => `Label ${l}`), ...p.channel_ids.map((id) => channelName(channels, id))].join(', ')}
                </div>
              </div>
              {manage && (
                <div class="card-actions">
                  <button class="btn small" onClick={() => setEditing(p.id)} aria-label={`Edit ${p.name}`}>
                    Edit
                  </button>
                  <button
                    class="btn small danger"
                    disabled={remove.busy}
                    onClick={() => confirm(`Delete the SLA policy "${p.name}"?`) && remove.run(p)}
                    aria-label={`Delete ${p.name}`}
                  >
                    Delete
                  </button>
                </div>
              )}
            </li>
          ),
        )}
      </ul>
      {policies.length === 0 && (
        <p class="muted">No SLA policies yet.{manage ? ' Start with one for every conversation, e.g. a first response within an hour.' : ''}</p>
      )}
      <Notice>{remove.error}</Notice>
      {manage ? (
        <>
          <h3 class="subhead">Add a policy</h3>
          <PolicyForm initial={emptyDraft} channels={channels} submitLabel="Add policy" onSave={create} />
        </>
      ) : (
        <p class="muted small">The owner and admins manage SLA policies.</p>
      )}
    </Section>
  );
}
