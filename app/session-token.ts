/**
 * The access token, kept in localStorage so a reload (and a second tab) stays signed in.
 * Another tab signing out or in is followed through the storage event. A browser that refuses
 * storage keeps the session for the page's life.
 */
import { signal } from '@preact/signals';

const KEY = 'parley.token';

export const token = signal<string | null>(localStorage.getItem(KEY));

export function storeToken(value: string | null): void {
  try {
    if (value) localStorage.setItem(KEY, value);
    else localStorage.removeItem(KEY);
  } catch {
    // Refused (a full quota): signed in for this page's life only.
  }
  token.value = value;
}

addEventListener('storage', (event) => {
  if (event.key === KEY) token.value = event.newValue;
});
