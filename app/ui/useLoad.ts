/**
 * Loads something once (and again on reload()), with its loading and error states. When
 * reloads overlap (a live event and a reconnect, say), the last one started wins.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef(0);
  const reload = useCallback(() => {
    const mine = ++latest.current;
    return load().then(
      (d) => mine === latest.current && (setData(d), setError(null)),
      (e: Error) => mine === latest.current && setError(e.message),
    );
  }, deps);
  useEffect(() => void reload(), [reload]);
  return { data, error, reload, setData };
}
