/** Runs an async action once at a time, keeping its error message for the form to show. */
import { useState } from 'preact/hooks';

export function useAction<A extends unknown[]>(action: (...args: A) => Promise<unknown>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (...args: A): Promise<boolean> => {
    if (busy) return false;
    setBusy(true);
    setError(null);
    try {
      await action(...args);
      return true;
    } catch (e) {
      setError((e as Error).message);
      return false;
    } finally {
      setBusy(false);
    }
  };
  /** For <form onSubmit>: no page reload. */
  const onSubmit = (event: Event) => {
    event.preventDefault();
    void run(...([] as unknown as A));
  };
  return { busy, error, setError, run, onSubmit };
}
