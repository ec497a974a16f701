/**
 * The visitor token, per widget, in localStorage: the visitor's identity on this site across
 * page loads. Storage can be unavailable (privacy modes, blocked third-party storage): the
 * widget then works for the page's lifetime only.
 */

const keyOf = (widgetId: string) => `parley:${widgetId}:visitor_token`;

export function readToken(widgetId: string): string | null {
  try {
    return window.localStorage.getItem(keyOf(widgetId));
  } catch {
    return null;
  }
}

export function writeToken(widgetId: string, token: string | null): void {
  try {
    if (token) window.localStorage.setItem(keyOf(widgetId), token);
    else window.localStorage.removeItem(keyOf(widgetId));
  } catch {
    // storage unavailable: keep the token in memory only
  }
}
