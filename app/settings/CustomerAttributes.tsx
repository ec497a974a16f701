/**
 * Settings → Customer attributes: the business's typed custom fields (PUT replaces the whole
 * list). Owners and admins edit; everyone else reads what agents may fill in on a customer.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { can } from '../session.ts';
import type { AttributeDefinition, AttributeType } from '../types.ts';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { Section } from './Section.tsx';
import { attributeDefinitions } from '../customers/attribute-definitions.ts';

export const TYPE_NAMES: Record<AttributeType, string> = { text: 'Text', number: 'Number', date: 'Date', boolean: 'Yes / no', list: 'List' };

/** A row being edited: options as the comma-separated text typed. */
type Draft = { key: string; label: string; type: AttributeType; options: string };

const toDraft = (d: AttributeDefinition): Draft => ({ key: d.key, label: d.label, type: d.type, options: (d.options ?? []).join(', ') });
const fromDraft = (d: Draft): AttributeDefinition => ({
  key: d.key.trim(),
  label: d.label.trim() || d.key.trim(),
  type: d.type,
  ...(d.type === 'list'
    ? {
        options: d.options
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean),
      }
    : {}),
});

export function CustomerAttributes() {
  const [rows, setRows] = useState<Draft[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const mayChange = can('customer_attributes.manage');
  useEffect(
    () =>
      void api.get<{ attributes: AttributeDefinition[] }>('/api/v1/settings/customer-attributes').then(
        (r) => setRows(r.attributes.map(toDraft)),
        (e: Error) => setError(e.message),
      ),
    [],
  );
  const save = useAction(async () => {
    setSaved(false);
    const r = await api.put<{ attributes: AttributeDefinition[] }>('/api/v1/settings/customer-attributes', { attributes: (rows ?? []).map(fromDraft) });
    setRows(r.attributes.map(toDraft));
    attributeDefinitions.value = r.attributes;
    setSaved(true);
  });
  const change = (i: number, patch: Partial<Draft>) => {
    setSaved(false);
    setRows((rows ?? []).map((r, j) => (j === i ? { ...r, ...patch } : r)));
  };
  return (
    <Section
      title="Customer attributes"
      intro="The custom fields your team keeps on each customer, and what type each holds. Once you define any, customers can only hold these (the API, the widget and imports are checked against them)."
      error={error}
      loading={!rows}
    >
      {rows && (
        <form class="card stack" aria-label="Customer attributes" onSubmit={save.onSubmit}>
          {rows.length === 0 && <p class="muted small">No attributes defined: customers take any text, number or yes/no value.</p>}
          <ul class="attr-defs" aria-label="Attribute definitions">
            {rows.map((r, i) => (
              <li class="attr-def" key={i}>
                <label class="field">
                  <span class="field-label">Key</span>
                  <input
                    class="input"
                    value={r.key}
                    maxLength={50}
                    required
                    disabled={!mayChange}
                    aria-label={`Key of attribute ${i + 1}`}
                    onInput={(e) => change(i, { key: e.currentTarget.value })}
                  />
                </label>
                <label class="field">
                  <span class="field-label">Label</span>
                  <input
                    class="input"
                    value={r.label}
                    maxLength={100}
                    disabled={!mayChange}
                    aria-label={`Label of attribute ${i + 1}`}
                    onInput={(e) => change(i, { label: e.currentTarget.value })}
                  />
                </label>
                <label class="field">
                  <span class="field-label">Type</span>
                  <select
                    class="input"
                    value={r.type}
                    disabled={!mayChange}
                    aria-label={`Type of attribute ${i + 1}`}
                    onChange={(e) => change(i, { type: e.currentTarget.value as AttributeType })}
                  >
                    {Object.entries(TYPE_NAMES).map(([value, name]) => (
                      <option value={value}>{name}</option>
                    ))}
                  </select>
                </label>
                {r.type === 'list' && (
                  <label class="field attr-def-options">
                    <span class="field-label">Options (comma-separated)</span>
                    <input
                      class="input"
                      value={r.options}
                      disabled={!mayChange}
                      aria-label={`Options of attribute ${i + 1}`}
                      placeholder="free, pro, enterprise"
                      onInput={(e) => change(i, { options: e.currentTarget.value })}
                    />
                  </label>
                )}
                {mayChange && (
                  <button
                    class="btn ghost small attr-def-remove"
                    type="button"
                    aria-label={`Remove attribute ${r.key || i + 1}`}
                    onClick={() => setRows(rows.filter((_, j) => j !== i))}
                  >
                    Remove
                  </button>
                )}
              </li>
            ))}
          </ul>
          <Notice>{save.error}</Notice>
          {saved && <Notice kind="success">Saved.</Notice>}
          {mayChange ? (
            <div class="row-between">
              <button class="btn" type="button" onClick={() => setRows([...rows, { key: '', label: '', type: 'text', options: '' }])}>
                Add attribute
              </button>
              <button class="btn primary" type="submit" disabled={save.busy}>
                {save.busy ? 'Saving…' : 'Save'}
              </button>
            </div>
          ) : (
            <p class="small muted">Only the owner or an admin can change these.</p>
          )}
        </form>
      )}
    </Section>
  );
}
