/**
 * docs/decisions.md is where the OpenAPI document and the README send readers for what Parley
 * decided where its contract was silent: every `docs/decisions.md#anchor` they name must be a
 * heading of that file, with the id GitHub and GET /docs/decisions give it, so no link lands at
 * the top of the page. The ids come from api/decisions-page.ts, the renderer the server uses.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { buildOpenApiDocument } from '../api/openapi.ts';
import { allRoutes } from '../api/routes/index.ts';
import { headingIds, renderMarkdown } from '../api/decisions-page.ts';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const decisions = read('docs/decisions.md');
const readme = read('README.md');

/** The ids the served page gives the headings (GitHub's anchors), from the renderer itself. */
const headingAnchors = (markdown: string) => new Set(headingIds(markdown));

/** Every anchor a text links in docs/decisions.md (the placeholder `#…` is not a link). */
function referencedAnchors(text: string): string[] {
  return [...text.matchAll(/docs\/decisions\.md#([^\s)`'",;]+)/g)].map((m) => m[1].replace(/\.$/, '')).filter((anchor) => anchor !== '…');
}

/** Every string in a JSON value (the document's descriptions, wherever they sit). */
const strings = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(strings) : [];

test("the anchor rule is GitHub's", (t) => {
  const anchors = headingAnchors(
    '# Decisions\n## Businesses, plans and limits\n## Errors & validation\n```\n## not a heading\n```\n## Billing\n## Billing\n### `DB_TIMEOUT` — *the* wait\n',
  );
  t.deepEqual([...anchors], ['decisions', 'businesses-plans-and-limits', 'errors--validation', 'billing', 'billing-1', 'db_timeout--the-wait']);
});

test('raw HTML and script links in the Markdown come out as text, never as markup', (t) => {
  const html = renderMarkdown(
    '## Tricks\n\n<script>alert(1)</script>\n\nInline <img src=x onerror="alert(2)"> and [a link](javascript:alert(3)).\n\n<div onclick="alert(4)">block</div>\n',
  );
  t.true(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), html);
  t.true(html.includes('&lt;img src=x onerror=&quot;alert(2)&quot;&gt;'), html);
  t.true(html.includes('&lt;div onclick=&quot;alert(4)&quot;&gt;'), html);
  for (const markup of ['<script', '<img', '<div', 'href="javascript:']) t.false(html.includes(markup), markup);
  t.regex(html, /<h2 id="tricks">/);
});

test('every docs/decisions.md#anchor of the OpenAPI document is a heading of docs/decisions.md', (t) => {
  const anchors = headingAnchors(decisions);
  const document = buildOpenApiDocument(allRoutes, 'http://localhost:3000') as { info: { description: string } };
  t.true(document.info.description.includes('docs/decisions.md'), 'info.description names docs/decisions.md');
  const referenced = strings(document).flatMap(referencedAnchors);
  t.true(referenced.length >= 30, `the operations link their decisions (${referenced.length} links)`);
  t.deepEqual(
    referenced.filter((anchor) => !anchors.has(anchor)),
    [],
  );
});

test('the README links docs/decisions.md, and its anchors exist', (t) => {
  t.regex(readme, /\]\(docs\/decisions\.md(#[^)]*)?\)/);
  const anchors = headingAnchors(decisions);
  t.deepEqual(
    referencedAnchors(readme).filter((anchor) => !anchors.has(anchor)),
    [],
  );
});
