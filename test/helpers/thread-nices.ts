/** The nice value of each thread of a process, as the kernel schedules them (field 19 of /proc/<pid>/task/<tid>/stat; Linux). */
import { readdirSync, readFileSync } from 'node:fs';

export function threadNices(pid: number | 'self'): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}
