// Parley's TypeScript with its types stripped ahead of time, so `web` and `worker` never load
// Node's own type stripper (amaro: SWC built to WebAssembly, about 17 MiB of RSS in every
// process; 30 MiB less for an idle `web` with it gone: issue #16 item 5, docs/operations.md).
//
// `npm run strip` (also run by postinstall, the Dockerfile and the bench) writes each server
// .ts file, stripped by node:module's stripTypeScriptTypes in its default "strip" mode (the same
// stripper and mode Node uses when it loads a .ts file, so the code, its line and column
// positions and its stack traces are the same), to node_modules/.cache/parley-ts/<sha256 of the
// .ts file>.js. This load hook serves a .ts file from there when an entry for its current
// content exists; any other file (edited since, or never stripped) loads as before, through
// Node's stripping. An entry is named by the content it was made from, so it can never stand
// in for another version of the file.
//
// Plain JavaScript, imported by bin/parley.js before any .ts file.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(import.meta.dirname, '..');
/** PARLEY_STRIPPED_DIR: another place for the entries (tests). */
export const strippedDir = process.env.PARLEY_STRIPPED_DIR || path.join(root, 'node_modules', '.cache', 'parley-ts');
export const entryName = (source) => `${createHash('sha256').update(source).digest('hex')}.js`;

// (Node before 23.5 has no registerHooks: it stops in require-node24.js anyway.)
if (nodeModule.registerHooks && existsSync(strippedDir)) {
  const rootUrl = `${new URL(`file://${root}`).href}/`;
  nodeModule.registerHooks({
    load(url, context, nextLoad) {
      if (url.startsWith(rootUrl) && url.endsWith('.ts') && !url.includes('/node_modules/')) {
        try {
          const source = readFileSync(path.join(strippedDir, entryName(readFileSync(fileURLToPath(url)))), 'utf8');
          return { format: 'module', source, shortCircuit: true };
        } catch {
          // No entry for this content: Node strips it as usual.
        }
      }
      return nextLoad(url, context);
    },
  });
}
