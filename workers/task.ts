/**
 * A worker task: a zod-checked payload and a run function. Every task must be safe to run
 * twice (check before the side effect). A payload that fails its schema is a permanent
 * failure: it is logged and the job is dropped rather than retried 25 times.
 */
import type { JobHelpers } from 'graphile-worker';
import type { z } from 'zod';
import type { Deps } from '../core/deps.ts';

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
