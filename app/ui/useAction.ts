/**
 * Runs an async action once at a time, keeping its error for the form to show. A form names the
 * API fields it shows (`fields`): a validation error of one of them is shown at its field
 * (`fieldErrors`, given to `<Field error>`), the form's notice then only says to check them,
 * and the first field marked invalid takes the focus, so a screen reader reads its label,
 * "invalid" and the reason. Errors of fields the form does not show stay in `error`.
 */
import { useState } from 'preact/hooks';
import { ApiError } from '../api.ts';

type Failure = { message: string | null; fields: Record<string, string> };
const none: Failure = { message: null, fields: {} };

/** A form's field shows the API's reasons for it and for its parts ("tags" for "tags.3"). */
const within = (key: string, field: string) => key === field || key.startsWith(`${field}.`);

/** Splits an error into what the form's fields show and what its notice says. */
function failureOf(e: unknown, shown: readonly string[]): Failure {
  const message = (e as Error).message;
  if (!(e instanceof ApiError)) return { message, fields: {} };
  const reasons = Object.entries(e.fields);
  const fields: Record<string, string> = {};
  for (const field of shown) {
    const reason = reasons.find(([key]) => within(key, field));
    if (reason) fields[field] = reason[1];
  }
  const marked = Object.keys(fields).length;
  // Every reason shown at its field: the notice only points at them.
  const allShown = marked > 0 && reasons.every(([key]) => shown.some((field) => within(key, field)));
  if (!allShown) return { message, fields };
  return { message: marked === 1 ? 'Check the marked field.' : `Check the ${marked} marked fields.`, fields };
}

export function useAction<A extends unknown[]>(action: (...args: A) => Promise<unknown>, options: { fields?: readonly string[] } = {}) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure>(none);
  const run = async (...args: A): Promise<boolean> => {
    if (busy) return false;
    setBusy(true);
    setFailure(none);
    try {
      await action(...args);
      return true;
    } catch (e) {
      setFailure(failureOf(e, options.fields ?? []));
      return false;
    } finally {
      setBusy(false);
    }
  };
  const setError = (message: string | null) => setFailure({ message, fields: {} });
  /** For <form onSubmit>: no page reload; after a refusal the first invalid field has the focus. */
  const onSubmit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    void run(...([] as unknown as A)).then((done) => {
      if (!done) requestAnimationFrame(() => form.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
    });
  };
  return { busy, error: failure.message, fieldErrors: failure.fields as Readonly<Record<string, string | undefined>>, setError, run, onSubmit };
}

/** A form's own check failing at one of its fields, shown there like the API's. */
export const refusal = (field: string, message: string) => new ApiError(0, message, { [field]: message });
