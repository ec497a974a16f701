/** Loads something once (and again on reload()), with its loading and error states. */
import { useCallback, useEffect, useState } from 'preact/hooks';

export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(() => load().then((d) => (setData(d), setError(null)), (e: Error) => setError(e.message)), deps);
  useEffect(() => void reload(), [reload]);
  return { data, error, reload, setData };
}
