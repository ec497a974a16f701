/**
 * A `parley worker` process gives way to `web` on a host they share: it lowers its own CPU
 * priority (nice, `WORKER_NICE`, default 10). When both want the cores, web's answers (webhook
 * acknowledgements, agents' requests) run first and background work (drains, deliveries, the AI
 * agent) takes what is left; on an idle host, or on a host of its own, nothing changes. Measured
 * on 2 shared cores (bench/README.md): webhook ack p99 at 500/s from a median of 23 ms to 15 ms
 * (ten runs each), the inbound drain's rate and inbound end-to-end latency unchanged.
 *
 * Linux keeps a priority per thread: every thread the process has by now (V8's and libuv's) is
 * lowered, and threads started later inherit the main thread's. A priority is only ever lowered
 * (raising it back needs privileges), so a process started under `nice` keeps its own if lower.
 */
import { readdirSync } from 'node:fs';
import os from 'node:os';
import type { Logger } from '../core/adapters/logger.ts';

/** The ids of this process's threads (Linux), else this thread alone (0). */
function threadIds(): number[] {
  try {
    return readdirSync('/proc/self/task').map(Number);
  } catch {
    return [0];
  }
}

export function lowerCpuPriority(nice: number, logger: Pick<Logger, 'warn'>): void {
  if (nice <= 0) return;
  for (const thread of threadIds()) {
    try {
      if (os.getPriority(thread) < nice) os.setPriority(thread, nice);
    } catch (error) {
      // A thread that ended meanwhile has nothing to lower; anything else is said once.
      if ((error as { info?: { code?: string } }).info?.code === 'ESRCH') continue;
      logger.warn({ err: error, nice }, 'could not lower the worker CPU priority (WORKER_NICE): it runs at its current one');
      return;
    }
  }
}
