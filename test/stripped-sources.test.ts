/**
 * bin/stripped-sources.js: `web` and `worker` run Parley's TypeScript stripped ahead of time
 * (npm run strip), so they never load Node's type stripper (amaro, ~17 MiB of RSS per process);
 * and an entry only ever stands in for the exact content it was made from.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { entryName } from '../bin/stripped-sources.js';

const root = path.resolve(import.meta.dirname, '..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'parley-stripped-'));
test.after.always(() => rmSync(dir, { recursive: true, force: true }));

/** A child that registers the hook (as bin/parley.js does), imports `modules` and reports. */
function probe(modules: string[], print: string): string {
  const imports = modules.map((m) => `await import(${JSON.stringify(pathToFileURL(path.join(root, m)).href)});`).join('\n');
  const script = `await import(${JSON.stringify(pathToFileURL(path.join(root, 'bin/stripped-sources.js')).href)});\n${imports}\n${print}`;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, PARLEY_STRIPPED_DIR: dir },
  }).trim();
}
const amaroLoaded = 'console.log(JSON.stringify(process.moduleLoadList.some((m) => m.includes("amaro"))));';

test.serial('with the sources stripped ahead, starting web or worker never loads the type stripper', (t) => {
  execFileSync(process.execPath, ['--no-warnings', 'scripts/strip-types.js'], { cwd: root, env: { ...process.env, PARLEY_STRIPPED_DIR: dir } });
  const common = ['bin/jobs-command.ts', 'bin/business-command.ts', 'core/config.ts', 'core/boot.ts'];
  t.is(probe([...common, 'api/server.ts'], amaroLoaded), 'false');
  t.is(probe([...common, 'workers/main.ts'], amaroLoaded), 'false');
  // The probe can see it: without entries, the same imports load it.
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  t.is(probe(['core/config.ts'], amaroLoaded), 'true');
});

test.serial('an entry stands in only for the content it was made from: a file edited since loads as written', (t) => {
  const probeDir = path.join(root, 'test-artifacts', 'stripped');
  mkdirSync(probeDir, { recursive: true });
  const file = path.join(probeDir, `probe-${process.pid}.ts`);
  try {
    const first = 'export const value: string = "as written";\n';
    writeFileSync(file, first);
    // An entry for this content that says something else shows that entries are used at all.
    writeFileSync(path.join(dir, entryName(Buffer.from(first))), 'export const value = "from the entry";\n');
    const module = path.relative(root, file);
    t.is(probe([], `console.log((await import(${JSON.stringify(pathToFileURL(file).href)})).value);`), 'from the entry');
    writeFileSync(file, 'export const value: string = "edited";\n');
    t.is(probe([], `console.log((await import(${JSON.stringify(pathToFileURL(file).href)})).value);`), 'edited', `${module} changed: no entry`);
  } finally {
    rmSync(file, { force: true });
  }
});
