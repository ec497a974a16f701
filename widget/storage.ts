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

/** What the widget tells the agents of this visit (POST /visitor/sessions `context`). */
export type VisitContext = {
  page_url?: string;
  page_title?: string;
  referrer?: string;
  language?: string;
  timezone?: string;
  pages?: { url: string; title?: string; at: string }[];
};

const visitKey = (widgetId: string) => `parley:${widgetId}:visit`;
/** Pages of a visit the widget remembers and reports (the server keeps the latest 20). */
const PAGES_KEPT = 50;

/** An http(s) URL short enough for the server, else undefined (a file:// page reports none). */
function webUrl(url: string): string | undefined {
  return /^https?:\/\//i.test(url) && url.length <= 2000 ? url : undefined;
}

/**
 * Records this page in the visit (sessionStorage: one tab's visit, forgotten when it closes)
 * and returns what to report: the page, the referrer of the visit's first page, the browser's
 * language and time zone, and the pages seen so far. Only values the server accepts are sent,
 * so a strange page never costs the visitor their chat.
 */
export function visitContext(widgetId: string): VisitContext {
  const url = webUrl(location.href);
  const title = document.title.trim().slice(0, 300);
  let visit: { referrer: string; pages: { url: string; title?: string; at: string }[] } = { referrer: '', pages: [] };
  try {
    visit = JSON.parse(window.sessionStorage.getItem(visitKey(widgetId)) ?? 'null') ?? { referrer: webUrl(document.referrer) ?? '', pages: [] };
  } catch {
    // storage unavailable or garbled: this page alone
  }
  if (url && visit.pages[visit.pages.length - 1]?.url !== url) {
    visit.pages.push({ url, ...(title ? { title } : {}), at: new Date().toISOString() });
    visit.pages = visit.pages.slice(-PAGES_KEPT);
  }
  try {
    window.sessionStorage.setItem(visitKey(widgetId), JSON.stringify(visit));
  } catch {
    // storage unavailable: the visit is this page
  }
  const language = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(navigator.language ?? '') ? navigator.language.slice(0, 35) : undefined;
  let timezone: string | undefined;
  try {
    timezone = Intl.DateTimeFormat().resolvedOptions().timeZone || undefined;
  } catch {
    timezone = undefined;
  }
  return {
    ...(url ? { page_url: url } : {}),
    ...(title ? { page_title: title } : {}),
    ...(visit.referrer ? { referrer: visit.referrer } : {}),
    ...(language ? { language } : {}),
    ...(timezone ? { timezone } : {}),
    pages: visit.pages.filter((p) => webUrl(p.url)),
  };
}
