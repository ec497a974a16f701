/** The `parley` command as a child process, with only the environment a test gives it. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';

export const repoRoot = path.resolve(import.meta.dirname, '..', '..');
export const parleyEntry = path.join(repoRoot, 'bin', 'parley.js');

export type CliRun = { code: number | null; stdout: string; stderr: string };

export type CliOptions = {
  /** The Node.js binary (default: the one running the tests). */
  node?: string;
};

/** Starts `parley ARGS` with PATH plus `env`; the caller reads its streams and ends it. */
export function spawnParley(args: string[], env: Record<string, string>, options: CliOptions = {}): ChildProcessWithoutNullStreams {
  return spawn(options.node ?? process.execPath, [parleyEntry, ...args], { cwd: repoRoot, env: { PATH: process.env.PATH ?? '', ...env } });
}

/** Runs `parley ARGS` to its end. */
export function runParley(args: string[], env: Record<string, string>, options: CliOptions = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawnParley(args, env, options);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
