/**
 * The shape of the code, as DESIGN.md draws it: no import cycles (type-only ones included:
 * they are where a file stopped holding one idea), and no import upward. `connectors/` holds
 * the platforms and imports only `lib/` and itself; `lib/` imports nothing of ours; `core/`
 * never imports `api/`, `workers/` or `bin/`; the browser code (`app/`, `widget/`) imports no
 * server code.
 */
import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const layers = ['lib', 'connectors', 'core', 'api', 'workers', 'bin', 'app', 'widget'] as const;
type Layer = (typeof layers)[number];

function sources(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(rel);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** Every relative import (static, re-export, type-only or dynamic) of each file, resolved. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of layers.flatMap((layer) => sources(layer))) {
    const text = readFileSync(path.join(root, file), 'utf8');
    const specifiers = [
      ...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s*['"](\.{1,2}\/[^'"]+)['"]/g),
      ...text.matchAll(/(?:^|\n)\s*import\s*['"](\.{1,2}\/[^'"]+)['"]/g),
      ...text.matchAll(/import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g),
    ].map((m) => m[1]!);
    graph.set(
      file,
      specifiers.map((s) => path.normalize(path.join(path.dirname(file), s))),
    );
  }
  return graph;
}

const graph = importGraph();
const layerOf = (file: string) => file.split(path.sep)[0] as Layer;

test('the graph is read: every file of every layer, with its imports', (t) => {
  t.true(graph.size > 200, String(graph.size));
  t.true(graph.get(path.join('core', 'jobs.ts'))!.some((f) => f.endsWith(path.join('adapters', 'postgres', 'db.ts'))));
});

test('no import cycles', (t) => {
  const cycles: string[][] = [];
  const state = new Map<string, 'active' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'active');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'active') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  t.deepEqual(
    cycles.map((c) => c.join(' → ')),
    [],
  );
});

test('no upward imports between layers', (t) => {
  const allowed: Record<Layer, readonly Layer[]> = {
    lib: ['lib'],
    connectors: ['connectors', 'lib'],
    core: ['core', 'connectors', 'lib'],
    api: ['api', 'core', 'connectors', 'lib'],
    workers: ['workers', 'core', 'connectors', 'lib'],
    bin: ['bin', 'api', 'workers', 'core', 'connectors', 'lib'],
    app: ['app'],
    widget: ['widget'],
  };
  // The app's preview of the widget draws its text as the widget does (one pure function, no DOM).
  const shared = (file: string, target: string) => layerOf(file) === 'app' && target === path.join('widget', 'contrast.ts');
  const wrong = [...graph].flatMap(([file, imports]) =>
    imports.filter((target) => !allowed[layerOf(file)].includes(layerOf(target)) && !shared(file, target)).map((target) => `${file} → ${target}`),
  );
  t.deepEqual(wrong, []);
});
