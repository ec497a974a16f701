/** A labelled input: the label names the control for screen readers and tests; its hint describes it (FieldHint). */
// Aria roles are tied to input types in preact's typings; a field takes any text-like type.
import type { InputHTMLAttributes, PartialInputHTMLAttributes } from 'preact';
import { useId } from 'preact/hooks';
import { FieldHint } from './FieldHint.tsx';

type Props = Omit<PartialInputHTMLAttributes<HTMLInputElement>, 'type'> & { type?: string } & { label: string; hint?: string };

export function Field({ label, hint, ...input }: Props) {
  const hintId = useId();
  return (
    <label class="field">
      <span class="field-label">{label}</span>
      <input class="input" aria-describedby={hint ? hintId : undefined} {...(input as InputHTMLAttributes<HTMLInputElement>)} />
      {hint && <FieldHint id={hintId}>{hint}</FieldHint>}
    </label>
  );
}
