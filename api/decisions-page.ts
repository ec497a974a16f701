/**
 * docs/decisions.md as a readable page for GET /docs/decisions. The OpenAPI descriptions and the
 * README link its headings as `docs/decisions.md#<heading>`, so every heading gets GitHub's id
 * (github-slugger: lower-case, punctuation dropped, spaces → '-', repeats -1, -2 …) and the same
 * link works on GitHub and on a running server. markdown-it escapes raw HTML (`html: false`) and
 * refuses `javascript:` links, so nothing in the Markdown can put a script on the page; the page
 * itself has no script and a Content-Security-Policy that allows none.
 */
import MarkdownIt from 'markdown-it';
import anchor from 'markdown-it-anchor';
import { slug } from 'github-slugger';
import { inlinePagePolicy } from './inline-page-policy.ts';

const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false }).use(anchor, {
  slugify: (title: string) => slug(title),
  uniqueSlugStartIndex: 1,
  tabIndex: false,
  // Each heading links to itself, so a reader can copy the address of a topic.
  permalink: anchor.permalink.headerLink(),
});

/** The HTML of a Markdown text: headings carry GitHub's ids, raw HTML comes out as text. */
export function renderMarkdown(source: string): string {
  return markdown.render(source);
}

/** The ids of the headings of a Markdown text, in order: the anchors a link may name. */
export function headingIds(source: string): string[] {
  return [...renderMarkdown(source).matchAll(/<h[1-6] id="([^"]+)"/g)].map((match) => match[1]);
}

const style = `body{font:15px/1.6 system-ui,sans-serif;margin:0;color:#1d1d2b;background:#fafaff}
header{background:#7650FF;color:#fff;padding:12px 32px;display:flex;gap:16px;align-items:baseline;flex-wrap:wrap}
header a{color:#fff}header strong{font-size:20px}
main{max-width:860px;margin:0 auto;padding:8px 32px 48px}
h1{font-size:28px;line-height:1.25}h2{border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:40px}
h1 a,h2 a,h3 a,h4 a{color:inherit;text-decoration:none}h1 a:hover,h2 a:hover,h3 a:hover{text-decoration:underline}
:target{scroll-margin-top:16px}h2:target{background:#efeaff}
code{font-family:ui-monospace,monospace;font-size:13px;background:#f0f0f7;padding:1px 4px;border-radius:4px;overflow-wrap:anywhere}
pre{background:#f4f4fa;padding:8px;overflow:auto}pre code{background:none;padding:0}
table{border-collapse:collapse;display:block;overflow-x:auto;margin:12px 0}
th,td{border:1px solid #e3e3ee;padding:4px 10px;text-align:left;vertical-align:top}th{background:#f0f0f7}
li{margin:6px 0}
@media (max-width:600px){header,main{padding-left:16px;padding-right:16px}h1{font-size:23px}}`;

/** The only style the page has, allowed by its hash; nothing else may load or run. */
export const decisionsContentSecurityPolicy = inlinePagePolicy({ style });

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The whole page: the Markdown's first `# heading` as its title, a way back to the API reference. */
export function decisionsPage(source: string): string {
  const title = /^#\s+(.+?)\s*#*\s*$/m.exec(source)?.[1] ?? 'Decisions';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(`${title} · Parley`)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<style>${style}</style></head>
<body><header><strong>Parley API</strong><a href="/docs">← API reference</a><a href="/api/v1/openapi.json">OpenAPI document</a></header>
<main>
${renderMarkdown(source)}</main></body></html>
`;
}
