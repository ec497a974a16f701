/**
 * Real Parley processes for tests about processes: `parley <command>` spawned against a test
 * app's database (and data directory, so it reads the same generated encryption key), and
 * stopped with the signal the test is about.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { TestApp } from './app.ts';

const root = path.resolve(import.meta.dirname, '..', '..');

export function spawnParley(app: TestApp, args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawnParleyWith(args, { DATABASE_URL: app.databaseUrl, DATA_DIR: app.deps.config.dataDir, ...env });
}

/** `parley <args>` with only this environment (DATABASE_URL and DATA_DIR included). */
export function spawnParleyWith(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [path.join(root, 'bin', 'parley.ts'), ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', JWT_SECRET: randomBytes(32).toString('hex'), LOG_LEVEL: 'silent', ...env },
  });
}

/** Runs `parley <args>` to its end. */
export function runParley(app: TestApp, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnParley(app, args, env);
    let stdout = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

/** Sends `signal` and waits for the process to exit (at once when it already has). */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}
