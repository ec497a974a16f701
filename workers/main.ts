/**
 * The worker process: a graphile-worker runner with every task (or those WORKER_TASKS names).
 * Payloads are checked with each task's zod schema. On stop, running jobs finish or are
 * released (graphile-worker's graceful shutdown).
 */
import { run, type Runner, type TaskList } from 'graphile-worker';
import type { Deps } from '../core/deps.ts';
import { allTasks } from './tasks/index.ts';
import type { AnyTask } from './task.ts';

export type WorkerOptions = {
  connectionString: string;
  concurrency?: number;
  /** Restrict to these task names (default: all). */
  only?: string[];
  tasks?: AnyTask[];
  /** Poll interval in ms (graphile-worker also listens for new jobs). */
  pollInterval?: number;
};

export function buildTaskList(deps: Deps, tasks: AnyTask[]): TaskList {
  const list: TaskList = {};
  for (const task of tasks) {
    list[task.name] = async (raw, helpers) => {
      const parsed = task.payload.safeParse(raw);
      if (!parsed.success) {
        deps.logger.error({ task: task.name, job_id: helpers.job.id, issues: parsed.error.issues }, 'invalid job payload: dropped');
        return;
      }
      await task.run(parsed.data, deps, helpers);
    };
  }
  return list;
}

export async function startWorker(deps: Deps, options: WorkerOptions): Promise<Runner> {
  const available = options.tasks ?? allTasks;
  const only = options.only;
  if (only) {
    const unknown = only.filter((name) => !available.some((t) => t.name === name));
    if (unknown.length) throw new Error(`WORKER_TASKS names unknown tasks: ${unknown.join(', ')}`);
  }
  const tasks = only ? available.filter((t) => only.includes(t.name)) : available;
  return run({
    connectionString: options.connectionString,
    concurrency: options.concurrency ?? deps.config.WORKER_CONCURRENCY,
    noHandleSignals: true,
    pollInterval: options.pollInterval ?? 1000,
    taskList: buildTaskList(deps, tasks),
  });
}
