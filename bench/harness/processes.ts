/**
 * Child processes of a bench run: Parley's own `web` and `worker` (`node <the Procfile's flags> bin/parley.js …`, as the Procfile), the
 * baseline servers in bench/baselines, and a private redis-server. Output goes to a log file in
 * bench/results/logs (read it when a row fails); readiness is a line in that log or an HTTP
 * answer. Peak RSS is the kernel's high-water mark (VmHWM), so no sampling can miss a peak.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { sleep, waitUntil } from './stats.ts';
import { closedPort as freePort } from '../../test/helpers/ports.ts';

export const root = path.resolve(import.meta.dirname, '..', '..');
export const logDir = path.join(root, 'bench', 'results', 'logs');

export type Child = {
  name: string;
  pid: number;
  /** Peak resident set size since start, MiB (VmHWM of /proc/<pid>/status). */
  peakRssMiB: () => number;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop: (graceMs?: number) => Promise<void>;
  exited: () => boolean;
  logFile: string;
};

/** Empties bench/results/logs, so every log there is of this run. */
export function clearLogs(): void {
  rmSync(logDir, { recursive: true, force: true });
  mkdirSync(logDir, { recursive: true });
}

/** A TCP port on 127.0.0.1 that was free a moment ago (the tests' helper: bound, then released). */
export { freePort };

function peakRss(pid: number): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Spawns `command args` with `env` added to ours, output to logs/<name>.log. */
export function spawnChild(name: string, command: string, args: string[], env: Record<string, string>): Child {
  mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, `${name}.log`);
  const fd = openSync(logFile, 'w');
  const child: ChildProcess = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  let gone = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      gone = true;
      resolve();
    }),
  );
  return {
    name,
    pid: child.pid!,
    logFile,
    peakRssMiB: () => peakRss(child.pid!),
    exited: () => gone,
    stop: async (graceMs = 10_000) => {
      if (gone) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exit;
      clearTimeout(timer);
    },
  };
}

/** A Node script of this repository (a baseline) as a child. */
export const spawnNode = (name: string, script: string, args: string[], env: Record<string, string>) =>
  spawnChild(name, process.execPath, [script, ...args], env);

/** Waits until the child's log contains `text` (it failed if it exited first). */
export async function untilLogged(child: Child, text: string, timeoutMs = 60_000): Promise<void> {
  await waitUntil(
    async () => {
      if (readFileSync(child.logFile, 'utf8').includes(text)) return true;
      if (child.exited()) throw new Error(`${child.name} exited before it was ready; see ${child.logFile}`);
      return false;
    },
    timeoutMs,
    `${child.name}: "${text}"`,
    50,
  );
}

/** Waits until GET `url` answers 200. */
export async function untilHttpOk(child: Child, url: string, timeoutMs = 60_000): Promise<void> {
  await waitUntil(
    async () => {
      if (child.exited()) throw new Error(`${child.name} exited before it was ready; see ${child.logFile}`);
      return fetch(url, { signal: AbortSignal.timeout(2000) }).then(
        (r) => r.ok,
        () => false,
      );
    },
    timeoutMs,
    `${child.name}: ${url}`,
    50,
  );
}

/** A private redis-server (no persistence) on a free port, so no one else's events mix in. */
export async function startRedis(): Promise<{ url: string; child: Child }> {
  const port = await freePort();
  const child = spawnChild(`redis-${port}`, 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {});
  await untilLogged(child, 'Ready to accept connections', 20_000);
  await sleep(10);
  return { url: `redis://127.0.0.1:${port}`, child };
}
