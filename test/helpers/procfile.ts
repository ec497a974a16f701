/**
 * What the Procfile runs, for the bench and the tests that start Parley's processes as
 * production does (bench/harness/stack.ts, test/storage-memory.test.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const repoRoot = path.join(import.meta.dirname, '..', '..');

/** The node flags the Procfile gives a process type (`web: node <flags> bin/parley.js web`). */
export function procfileFlags(type: 'web' | 'worker'): string[] {
  const line = readFileSync(path.join(repoRoot, 'Procfile'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${type}:`));
  const words =
    line
      ?.slice(type.length + 1)
      .trim()
      .split(/\s+/) ?? [];
  const entry = words.indexOf('bin/parley.js');
  if (words[0] !== 'node' || entry < 0) throw new Error(`Procfile: no "${type}: node … bin/parley.js ${type}" line`);
  return words.slice(1, entry);
}
