/**
 * What the app keeps in this browser (localStorage) beside the session: read as JSON, with the
 * fallback when it is missing or unreadable, and written knowing that a browser may refuse
 * (private mode, a full quota): the value then lives as long as the page, and nothing breaks.
 */

/** The JSON stored under `key`, or `fallback` when there is none or it does not parse. */
export function readStored<T>(key: string, fallback: T): T {
  try {
    const text = localStorage.getItem(key);
    return text === null ? fallback : (JSON.parse(text) as T);
  } catch {
    return fallback;
  }
}

/** Stores `value` as JSON (null removes the key); false when the browser refused. */
export function store(key: string, value: unknown): boolean {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, JSON.stringify(value));
    return true;
  } catch {
    return false;
  }
}
