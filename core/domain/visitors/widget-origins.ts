/**
 * Which web pages may open visitor sessions of a widget: its `domain` and that domain's
 * subdomains, judged by the request's `Origin`. The widget's owner may write the domain as a
 * bare host (`shop.example.com`), with a scheme, port or path (only the host counts), or `*`
 * for any site. A request without `Origin` comes from no web page (a mobile app, a server) and
 * is not judged here: Origin only stops other sites from embedding the widget in a browser.
 */

export type OriginRules = {
  /** Pages on localhost, 127.0.0.0/8 and ::1 may embed any widget (development; off in production). */
  allowLocalhost: boolean;
};

/** The host a widget's `domain` names: lower-case, without scheme, credentials, port, path or trailing dot. */
export function domainHost(domain: string): string {
  let host = domain
    .trim()
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  host = host.replace(/[/?#].*$/, '').replace(/^.*@/, '');
  host = host.startsWith('[') ? host.replace(/\]:\d+$/, ']') : host.replace(/:\d+$/, '');
  return host.replace(/\.+$/, '').replace(/^\*\./, '');
}

function originHost(origin: string): string | null {
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.hostname.toLowerCase().replace(/\.+$/, '');
  } catch {
    return null; // `null` (sandboxed frames, file://) or garbage: no site to match
  }
}

const isLocalHost = (host: string) => host === 'localhost' || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host) || host === '[::1]';

/** True when a page of `origin` may use the widget of `domain`; `origin` undefined (no header) is always allowed. */
export function originAllowed(domain: string, origin: string | undefined, rules: OriginRules): boolean {
  if (origin === undefined) return true;
  if (domain.trim() === '*') return true;
  const host = originHost(origin);
  if (host === null) return false;
  if (rules.allowLocalhost && isLocalHost(host)) return true;
  const allowed = domainHost(domain);
  return allowed !== '' && (host === allowed || host.endsWith(`.${allowed}`));
}
