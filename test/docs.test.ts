/**
 * docs/decisions.md is where the OpenAPI document and the README send readers for what Parley
 * decided where its contract was silent: every `docs/decisions.md#anchor` they name must be a
 * heading of that file (as GitHub renders it), so no link lands at the top of the page.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { buildOpenApiDocument } from '../api/openapi.ts';
import { allRoutes } from '../api/routes/index.ts';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const decisions = read('docs/decisions.md');
const readme = read('README.md');

/** GitHub's heading anchor: lower-case, punctuation dropped, spaces → '-', repeats get -1, -2 … */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1].toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-');
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** Every anchor a text links in docs/decisions.md (the placeholder `#…` is not a link). */
function referencedAnchors(text: string): string[] {
  return [...text.matchAll(/docs\/decisions\.md#([^\s)`'",;]+)/g)]
    .map((m) => m[1].replace(/\.$/, ''))
    .filter((anchor) => anchor !== '…');
}

/** Every string in a JSON value (the document's descriptions, wherever they sit). */
const strings = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(strings) : [];

test('the anchor rule is GitHub\'s', (t) => {
  const anchors = headingAnchors('# Decisions\n## Businesses, plans and limits\n## Errors & validation\n```\n## not a heading\n```\n## Billing\n## Billing\n');
  t.deepEqual([...anchors], ['decisions', 'businesses-plans-and-limits', 'errors--validation', 'billing', 'billing-1']);
});

test('every docs/decisions.md#anchor of the OpenAPI document is a heading of docs/decisions.md', (t) => {
  const anchors = headingAnchors(decisions);
  const document = buildOpenApiDocument(allRoutes, 'http://localhost:3000') as { info: { description: string } };
  t.true(document.info.description.includes('docs/decisions.md'), 'info.description names docs/decisions.md');
  const referenced = strings(document).flatMap(referencedAnchors);
  t.true(referenced.length >= 30, `the operations link their decisions (${referenced.length} links)`);
  t.deepEqual(referenced.filter((anchor) => !anchors.has(anchor)), []);
});

test('the README links docs/decisions.md, and its anchors exist', (t) => {
  t.regex(readme, /\]\(docs\/decisions\.md(#[^)]*)?\)/);
  const anchors = headingAnchors(decisions);
  t.deepEqual(referencedAnchors(readme).filter((anchor) => !anchors.has(anchor)), []);
});
