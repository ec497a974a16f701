/** Client-side routes under /app: the current location as a signal, and navigation. */
import { signal } from '@preact/signals';

export type Location = { path: string; query: URLSearchParams };

const read = (): Location => ({ path: location.pathname.replace(/\/+$/, '') || '/app', query: new URLSearchParams(location.search) });

export const currentLocation = signal<Location>(read());

addEventListener('popstate', () => (currentLocation.value = read()));

/** Goes to an app path (`/app/inbox?view=mine`); `replace` keeps the history entry. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search) return;
  history[options.replace ? 'replaceState' : 'pushState'](null, '', to);
  currentLocation.value = read();
}

/** Click handler for in-app links: plain clicks navigate, modified clicks open a tab as usual. */
export function linkClick(event: MouseEvent, to: string): void {
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(to);
}
