/** A label as a small pill with its color (the name is the text, so it reads without color too). */
import { labelNamed } from '../inbox/labels.ts';

export function LabelChip({ name, color }: { name: string; color?: string }) {
  const c = color ?? labelNamed(name)?.color ?? '#98a2b3';
  return (
    <span class="label-chip" title={name} data-label={name}>
      <span class="label-dot" style={{ background: c }} aria-hidden="true" />
      {name}
    </span>
  );
}
