/**
 * A worker task: a zod-checked payload and a run function. Every task must be safe to run
 * twice (check before the side effect). A payload that fails its schema is a permanent
 * failure: it is logged and the job is dropped rather than retried 25 times.
 */
import type { JobHelpers } from 'graphile-worker';
import type { z } from 'zod';
import type { Deps } from '../core/deps.ts';
import { jobCatalogue, type JobName, type JobPayload } from '../core/jobs.ts';

export type TaskDefinition<P> = {
  /** The graphile-worker task identifier, e.g. `deliver_message`. */
  name: string;
  payload: z.ZodType<P>;
  run: (payload: P, deps: Deps, helpers: JobHelpers) => Promise<void>;
};

export type AnyTask = TaskDefinition<any>;

export function defineTask<P>(task: TaskDefinition<P>): AnyTask {
  return task as AnyTask;
}

/** A task of the job catalogue (core/jobs.ts): its name is an entry's, its payload schema that entry's. */
export function catalogueTask<N extends JobName>(task: { name: N; run: TaskDefinition<JobPayload<N>>['run'] }): AnyTask {
  return defineTask<JobPayload<N>>({ ...task, payload: jobCatalogue[task.name].payload as z.ZodType<JobPayload<N>> });
}
