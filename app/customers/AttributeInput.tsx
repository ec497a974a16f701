/**
 * The controls of an attribute: its key picked from the definitions (AttributeKeySelect), and its
 * value by its type (AttributeInput): a select for lists and yes/no, a date picker, a number or text box.
 */
import type { AttributeDefinition, AttributeValue } from '../types.ts';

/** The typed text of the control as the attribute's value; an error text when it is not one. */
export function parseAttribute(definition: AttributeDefinition | undefined, text: string): { value: AttributeValue } | { error: string } {
  const type = definition?.type ?? 'text';
  if (type === 'number') {
    const n = Number(text);
    return text.trim() === '' || !Number.isFinite(n) ? { error: 'The value is not a number' } : { value: n };
  }
  if (type === 'boolean') return { value: text === 'true' };
  if (type === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(text)) return { error: 'Pick a date' };
  if (type === 'list' && !definition?.options?.includes(text)) return { error: 'Pick one of the options' };
  return { value: text };
}

export function AttributeInput({
  definition,
  value,
  onChange,
  label = 'Attribute value',
}: {
  definition: AttributeDefinition | undefined;
  value: string;
  onChange: (text: string) => void;
  label?: string;
}) {
  const type = definition?.type ?? 'text';
  if (type === 'boolean')
    return (
      <select class="input attr-input-value" aria-label={label} value={value === 'true' ? 'true' : 'false'} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="true">Yes</option>
        <option value="false">No</option>
      </select>
    );
  if (type === 'list')
    return (
      <select class="input attr-input-value" aria-label={label} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">Choose…</option>
        {(definition?.options ?? []).map((o) => (
          <option value={o}>{o}</option>
        ))}
      </select>
    );
  if (type === 'date')
    return <input class="input attr-input-value" aria-label={label} type="date" value={value} onInput={(e) => onChange(e.currentTarget.value)} />;
  return (
    <input
      class="input attr-input-value"
      aria-label={label}
      placeholder="Value"
      type="text"
      inputMode={type === 'number' ? 'decimal' : undefined}
      maxLength={500}
      value={value}
      onInput={(e) => onChange(e.currentTarget.value)}
    />
  );
}

/** The key of an attribute, picked from the business's definitions (Settings → Customer attributes). */
export function AttributeKeySelect({
  definitions,
  value,
  onChange,
  label,
}: {
  definitions: AttributeDefinition[];
  value: string;
  onChange: (key: string) => void;
  label: string;
}) {
  return (
    <select class="input" aria-label={label} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
      <option value="">Attribute…</option>
      {definitions.map((d) => (
        <option value={d.key}>{d.label}</option>
      ))}
    </select>
  );
}
