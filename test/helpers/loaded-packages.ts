/**
 * Run as a child process: `node test/helpers/loaded-packages.ts MODULE...` imports each module
 * (paths relative to the repo) and prints, as a JSON array, the files of npm packages that got
 * loaded (`package/path/in/it.js`), by `import` or `require`, as seen by a module resolution hook
 * installed before anything else.
 */
import { registerHooks } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const files = new Set<string>();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+\/.*)$/.exec(resolved.url);
    if (match) files.add(match[1]);
    return resolved;
  },
});

const root = path.resolve(import.meta.dirname, '..', '..');
for (const module of process.argv.slice(2)) await import(pathToFileURL(path.join(root, module)).href);
process.stdout.write(JSON.stringify([...files].sort()));
