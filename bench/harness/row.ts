/** A benchmark row: a name for --only and a run that measures its figures against their baselines. */
import type { Result } from './table.ts';
import type { Stack } from './stack.ts';

export type Row = {
  /** Short id used by `--only` (e.g. "agent-reply"). */
  id: string;
  /** Measures and returns one or more results; `stack.quick` makes it small. */
  run: (stack: Stack) => Promise<Result[]>;
};

/** Full size or quick size of a parameter. */
export const size = (stack: Stack, full: number, quick: number) => (stack.quick ? quick : full);
