/**
 * CPU time a load cost each process: user + system time from /proc/<pid>/stat (clock ticks of
 * USER_HZ, 100 on Linux), read before and after. Unlike req/s, CPU per request hardly moves
 * with the machine's load, so it shows where each request's cost is on a noisy machine too.
 * PostgreSQL's share is its backends serving the scratch database (their command line names
 * it); background processes (WAL writer, checkpointer, autovacuum) are left out. A database on
 * another machine has no backends here: NaN.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/** CPU seconds of a process so far, NaN once it is gone. */
export function processCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name (which may hold spaces), from field 3 on.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds so far of every backend of `database`, by pid (a backend that exits meanwhile drops out). */
function backendCpuSeconds(database: string): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (!command.startsWith('postgres:') || !command.split(/[\s\0]+/).includes(database)) continue;
      byPid.set(Number(entry), processCpuSeconds(Number(entry)));
    } catch {
      // Gone while listed.
    }
  }
  return byPid;
}

export type CpuShares = Record<string, number>;

/**
 * Starts counting: `processes` by pid, PostgreSQL's backends of `database`, and this process
 * (the load generator and the fakes it hosts) as `bench`. `stop` gives each one's CPU ms.
 */
export function countCpu(processes: Record<string, number>, database: string): { stop: () => CpuShares } {
  const start = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, processCpuSeconds(pid)]));
  const backends = backendCpuSeconds(database);
  const self = process.cpuUsage();
  return {
    stop: () => {
      const shares: CpuShares = {};
      for (const [name, pid] of Object.entries(processes)) shares[name] = (processCpuSeconds(pid) - start[name]!) * 1000;
      let postgres = 0;
      // A backend that started during the load counts from zero.
      for (const [pid, seconds] of backendCpuSeconds(database)) postgres += (seconds - (backends.get(pid) ?? 0)) * 1000;
      shares.postgres = backends.size === 0 && postgres === 0 ? Number.NaN : postgres;
      const used = process.cpuUsage(self);
      shares.bench = (used.user + used.system) / 1000;
      return shares;
    },
  };
}
