/**
 * Every relative link in the project's Markdown (README, docs/, bench/, sql/) reaches a file that
 * exists, and every `#anchor` on such a link (or on the page itself) is a heading of the target,
 * with GitHub's ids (the renderer the server uses for /docs/decisions). Moving a section from
 * one page to another cannot leave a dead link behind.
 */
import test from 'ava';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { headingIds } from '../api/decisions-page.ts';

const root = path.resolve(import.meta.dirname, '..');

/** The Markdown files of the project (not node_modules, not test artifacts). */
function markdownFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (['node_modules', '.git', 'test-artifacts', '.data'].includes(name)) continue;
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith('.md')) found.push(full);
    }
  };
  walk(root);
  return found;
}

/** Inline links `[text](target)` outside fenced code blocks and inline code. */
function links(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]);
}

test('the Markdown files are found', (t) => {
  const files = markdownFiles().map((f) => path.relative(root, f));
  t.true(files.includes('README.md'));
  t.true(files.includes(path.join('docs', 'decisions.md')));
});

test('the link finder skips code and reads titles', (t) => {
  t.deepEqual(links('[a](x.md) `[b](y.md)` [c](z.md#top "title")\n```\n[d](w.md)\n```\n'), ['x.md', 'z.md#top']);
});

test("every relative link in the project's Markdown reaches a file, and every anchor a heading", (t) => {
  const dead: string[] = [];
  for (const file of markdownFiles()) {
    const text = readFileSync(file, 'utf8');
    for (const link of links(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // http:, https:, mailto:
      const [target, anchor] = link.split('#') as [string, string | undefined];
      const targetFile = target ? path.resolve(path.dirname(file), decodeURI(target)) : file;
      const where = `${path.relative(root, file)}: ${link}`;
      if (!existsSync(targetFile)) {
        dead.push(`${where} (no such file)`);
        continue;
      }
      if (anchor && targetFile.endsWith('.md') && !headingIds(readFileSync(targetFile, 'utf8')).includes(anchor)) dead.push(`${where} (no such heading)`);
    }
  }
  t.deepEqual(dead, []);
});
