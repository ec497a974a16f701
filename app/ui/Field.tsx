/** A labelled input: the label names the control for screen readers and tests. */
// Aria roles are tied to input types in preact's typings; a field takes any text-like type.
import type { InputHTMLAttributes, PartialInputHTMLAttributes } from 'preact';

type Props = Omit<PartialInputHTMLAttributes<HTMLInputElement>, 'type'> & { type?: string } & { label: string; hint?: string };

export function Field({ label, hint, ...input }: Props) {
  return (
    <label class="field">
      <span class="field-label">{label}</span>
      <input class="input" {...(input as InputHTMLAttributes<HTMLInputElement>)} />
      {hint && <span class="field-hint">{hint}</span>}
    </label>
  );
}
