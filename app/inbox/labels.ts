/** The business's labels (every page of GET /labels), for chips, the filter and the label menu. */
import { signal } from '@preact/signals';
import { getPage, qs } from '../api.ts';
import { onLive } from '../live.ts';
import type { Label } from '../types.ts';

export const labels = signal<Label[]>([]);

let reads = 0;

export async function loadLabels(): Promise<void> {
  const mine = ++reads;
  const all: Label[] = [];
  let cursor: string | null = null;
  do {
    const page: { items: Label[]; next: string | null } = await getPage<Label>(`/api/v1/labels${qs({ limit: 200, cursor })}`);
    all.push(...page.items);
    cursor = page.next;
  } while (cursor);
  if (mine === reads) labels.value = all;
}

// Another member changed the labels (settings_changed): read them again, so pickers and chips follow without a reload.
onLive((event) => {
  if (event.name === 'settings_changed' && (event.payload as { setting?: string }).setting === 'labels') void loadLabels().catch(() => {});
});

/** The label of this name (names are unique whatever their case). */
export const labelNamed = (name: string): Label | undefined => labels.value.find((l) => l.name.toLowerCase() === name.toLowerCase());
