/**
 * The Content-Security-Policy of a self-contained page Parley serves (/docs, /docs/decisions):
 * its one inline stylesheet and, if it has one, its one inline script, each allowed by its hash;
 * the empty `data:` icon (so a browser does not ask for a /favicon.ico there is none of);
 * fetches only to this origin when the page makes them. Nothing else loads or runs, no forms,
 * no framing by other sites.
 */
import { createHash } from 'node:crypto';

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

export function inlinePagePolicy(page: { style: string; script?: string; fetchesOwnOrigin?: boolean }): string {
  return [
    "default-src 'none'",
    ...(page.script === undefined ? [] : [`script-src ${sha256(page.script)}`]),
    `style-src ${sha256(page.style)}`,
    ...(page.fetchesOwnOrigin ? ["connect-src 'self'"] : []),
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
