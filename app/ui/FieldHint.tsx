/**
 * A field's hint ("At least 8 characters."), read by screen readers as the control's
 * description, not as part of its name. Inside a `<label>` every word would become the name
 * ("Password At least 8 characters."), so the hint is hidden from the name's computation
 * (aria-hidden) and its control points at it (`aria-describedby={id}`): a description is read
 * from the node it names even when that node is hidden (the accessible-name rules, step 2A).
 *
 *   const hint = useId();
 *   <label class="field"><span class="field-label">Phone</span>
 *     <input aria-describedby={hint} /><FieldHint id={hint}>With the country code.</FieldHint></label>
 *
 * The reason the API refused a field's value is the same kind of text (`error`): shown in the
 * error colour, its control marked `aria-invalid` and described by it first.
 */
import type { ComponentChildren } from 'preact';

export function FieldHint({ id, error, children }: { id: string; error?: boolean; children: ComponentChildren }) {
  return (
    <span class={error ? 'field-hint field-error' : 'field-hint'} id={id} aria-hidden="true">
      {children}
    </span>
  );
}
