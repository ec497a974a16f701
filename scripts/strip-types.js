// `npm run strip`: strips the types of Parley's server TypeScript ahead of time into
// node_modules/.cache/parley-ts (bin/stripped-sources.js explains why and how it is used).
// Entries no longer matching a file are removed. Plain JavaScript: loading a .ts file here would
// load the stripper anyway, but this script is run where the sources may not exist yet
// (postinstall in the Dockerfile's dependency layer), and then does nothing.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import path from 'node:path';
import { entryName, root, strippedDir } from '../bin/stripped-sources.js';

/** The directories Node loads server code from (app/ and widget/ are bundled for browsers by esbuild). */
const serverDirs = ['api', 'bench', 'bin', 'connectors', 'core', 'lib', 'scripts', 'workers'];

function* typescriptFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') yield* typescriptFiles(full);
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) yield full;
  }
}

const dirs = serverDirs.map((d) => path.join(root, d)).filter((d) => existsSync(d));
// An older Node (npm install under it) has no stripper: nothing to do; Parley refuses to start there anyway.
if (dirs.length > 0 && nodeModule.stripTypeScriptTypes) {
  mkdirSync(strippedDir, { recursive: true });
  const wanted = new Set();
  let made = 0;
  for (const dir of dirs) {
    for (const file of typescriptFiles(dir)) {
      const source = readFileSync(file);
      const name = entryName(source);
      wanted.add(name);
      if (existsSync(path.join(strippedDir, name))) continue;
      writeFileSync(path.join(strippedDir, name), nodeModule.stripTypeScriptTypes(source.toString('utf8'), { mode: 'strip' }));
      made += 1;
    }
  }
  let removed = 0;
  for (const name of readdirSync(strippedDir)) {
    if (!wanted.has(name)) {
      rmSync(path.join(strippedDir, name));
      removed += 1;
    }
  }
  if (process.env.npm_lifecycle_event !== 'postinstall' || made > 0)
    console.log(`parley: ${wanted.size} TypeScript files stripped ahead (${made} new, ${removed} stale removed) in ${path.relative(root, strippedDir)}`);
}
