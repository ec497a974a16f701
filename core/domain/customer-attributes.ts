/**
 * Typed custom attributes (docs/decisions.md#customer-records): a business defines its customer
 * fields (`GET/PUT /settings/customer-attributes`: key, label, type, and the options of a list);
 * every write of `attributes` (PATCH /customers/{id}, the widget's identified visitor, the CSV
 * import) is checked against them. A business that has defined none keeps free-form attributes
 * (text, number or boolean under any valid key), as before the definitions existed; once it has
 * one, an unknown key is 422. Removing a key (null) is always allowed, so values of a
 * definition deleted since can be cleaned up.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import type { ValidationIssue } from '../errors.ts';

export const attributeTypes = ['text', 'number', 'date', 'boolean', 'list'] as const;
export type AttributeType = (typeof attributeTypes)[number];

/** Keys: 1–50 characters of letters, digits, `_`, `-`, `.` (starting with a letter or digit). */
export const ATTRIBUTE_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,49}$/;
/** At most this many definitions per business. */
export const MAX_ATTRIBUTE_DEFINITIONS = 50;
/** Text values (and list options) are at most this long. */
export const MAX_ATTRIBUTE_TEXT = 500;

export type AttributeDefinition = { key: string; label: string; type: AttributeType; options?: string[] };

const definitionRow = z.object({ key: z.string(), label: z.string(), type: z.enum(attributeTypes), options: z.array(z.string()).nullable() });

/** The business's definitions, in their order. */
export async function loadAttributeDefinitions(q: Queryable, businessId: string): Promise<AttributeDefinition[]> {
  const rows = await q.any(sql.type(definitionRow)`
    select key, label, type, options from customer_attribute_definitions where business_id = ${businessId} order by position`);
  return rows.map((r) => ({ key: r.key, label: r.label, type: r.type, ...(r.options ? { options: r.options } : {}) }));
}

/** `YYYY-MM-DD` naming a real calendar day. */
export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

const typeNames: Record<AttributeType, string> = {
  text: 'a text',
  number: 'a number',
  date: 'a date (YYYY-MM-DD)',
  boolean: 'true or false',
  list: 'one of the options',
};

/** Why `value` does not fit `definition`, or null when it does. */
export function attributeProblem(definition: AttributeDefinition, value: unknown): string | null {
  switch (definition.type) {
    case 'text':
      if (typeof value !== 'string') return `${definition.key} must be ${typeNames.text}`;
      return value.length > MAX_ATTRIBUTE_TEXT ? `${definition.key} is at most ${MAX_ATTRIBUTE_TEXT} characters` : null;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : `${definition.key} must be ${typeNames.number}`;
    case 'date':
      return typeof value === 'string' && isCalendarDate(value) ? null : `${definition.key} must be ${typeNames.date}`;
    case 'boolean':
      return typeof value === 'boolean' ? null : `${definition.key} must be ${typeNames.boolean}`;
    case 'list':
      return typeof value === 'string' && definition.options?.includes(value)
        ? null
        : `${definition.key} must be one of: ${(definition.options ?? []).join(', ')}`;
  }
}

/**
 * The issues of `attributes` (a key set to null removes it and is always fine) against the
 * definitions, each at `[...loc, key]`. No definitions: nothing to check here (the body's own
 * schema already bounds free-form values).
 */
export function attributeIssues(definitions: readonly AttributeDefinition[], attributes: Record<string, unknown>, loc: (string | number)[]): ValidationIssue[] {
  if (definitions.length === 0) return [];
  const byKey = new Map(definitions.map((d) => [d.key, d]));
  const issues: ValidationIssue[] = [];
  for (const [key, value] of Object.entries(attributes)) {
    if (value === null) continue;
    const definition = byKey.get(key);
    if (!definition) {
      issues.push({ loc: [...loc, key], msg: `Unknown attribute ${key}: define it under Settings → Customer attributes first`, type: 'unknown_attribute' });
      continue;
    }
    const problem = attributeProblem(definition, value);
    if (problem) issues.push({ loc: [...loc, key], msg: problem, type: `attribute_${definition.type}` });
  }
  return issues;
}

/**
 * A CSV cell (always text) as the definition's type: numbers and booleans parsed, dates and list
 * options checked. Undefined (with the problem) when it does not fit.
 */
export function attributeFromText(definition: AttributeDefinition, text: string): { value: string | number | boolean } | { problem: string } {
  let value: string | number | boolean = text;
  if (definition.type === 'number') value = text.trim() === '' ? Number.NaN : Number(text);
  else if (definition.type === 'boolean') {
    const lower = text.trim().toLowerCase();
    if (['true', 'yes', '1'].includes(lower)) value = true;
    else if (['false', 'no', '0'].includes(lower)) value = false;
  }
  const problem = attributeProblem(definition, value);
  return problem ? { problem } : { value };
}

/** Filters per list request (`attr.<key>=<value>`). */
export const MAX_ATTRIBUTE_FILTERS = 5;

/**
 * The stored values `attr.<key>=<text>` matches: the definition's type parsed from the text; with
 * no definitions (free-form attributes), the text itself and the number or boolean it spells.
 */
export function attributeFilterValues(
  definitions: readonly AttributeDefinition[],
  key: string,
  text: string,
): { values: (string | number | boolean)[] } | { problem: string } {
  if (definitions.length === 0) {
    const values: (string | number | boolean)[] = [text];
    if (text.trim() !== '' && Number.isFinite(Number(text))) values.push(Number(text));
    if (text === 'true' || text === 'false') values.push(text === 'true');
    return { values };
  }
  const definition = definitions.find((d) => d.key === key);
  if (!definition) return { problem: `Unknown attribute ${key}` };
  const parsed = attributeFromText(definition, text);
  return 'problem' in parsed ? parsed : { values: [parsed.value] };
}
