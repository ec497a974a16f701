/** The business's attribute definitions, read once per page load (Settings → Customer attributes saves reload them). */
import { signal } from '@preact/signals';
import { api } from '../api.ts';
import type { AttributeDefinition, AttributeValue } from '../types.ts';

export const attributeDefinitions = signal<AttributeDefinition[] | null>(null);
let loading: Promise<void> | null = null;

export function loadAttributeDefinitions(force = false): Promise<void> {
  if (!force && (attributeDefinitions.value || loading)) return loading ?? Promise.resolve();
  loading = api
    .get<{ attributes: AttributeDefinition[] }>('/api/v1/settings/customer-attributes')
    .then(
      (r) => {
        attributeDefinitions.value = r.attributes;
      },
      () => {
        attributeDefinitions.value ??= [];
      },
    )
    .finally(() => {
      loading = null;
    });
  return loading;
}

/** A value as shown to people: yes/no for booleans. */
export const shownValue = (v: AttributeValue) => (typeof v === 'boolean' ? (v ? 'Yes' : 'No') : String(v));

/** The label of a key (the key itself when it is not defined). */
export const labelOf = (key: string) => attributeDefinitions.value?.find((d) => d.key === key)?.label ?? key;
