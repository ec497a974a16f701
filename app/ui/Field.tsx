/**
 * A labelled input: the label names the control for screen readers and tests; its hint, and the
 * reason the API refused its value (`error`, from useAction's `fieldErrors`), describe it (FieldHint).
 */
// Aria roles are tied to input types in preact's typings; a field takes any text-like type.
import type { InputHTMLAttributes, PartialInputHTMLAttributes } from 'preact';
import { useId } from 'preact/hooks';
import { FieldHint } from './FieldHint.tsx';

type Props = Omit<PartialInputHTMLAttributes<HTMLInputElement>, 'type'> & { type?: string } & { label: string; hint?: string; error?: string | undefined };

export function Field({ label, hint, error, ...input }: Props) {
  const hintId = useId();
  const errorId = useId();
  const describedBy = [error && errorId, hint && hintId].filter(Boolean).join(' ');
  return (
    <label class="field">
      <span class="field-label">{label}</span>
      <input
        class="input"
        aria-describedby={describedBy || undefined}
        aria-invalid={error ? 'true' : undefined}
        {...(input as InputHTMLAttributes<HTMLInputElement>)}
      />
      {error && (
        <FieldHint id={errorId} error>
          {error}
        </FieldHint>
      )}
      {hint && <FieldHint id={hintId}>{hint}</FieldHint>}
    </label>
  );
}
