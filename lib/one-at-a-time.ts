/**
 * A turnstile: work given to `inTurn` runs after the work given before it has settled, one at a
 * time per process (a failure does not hold up the next). Used where each piece of work holds
 * much memory for a moment, so that a burst of them cannot add up: see api/routes/webhooks.
 */
export type Turnstile = { inTurn: <T>(work: () => Promise<T>) => Promise<T> };

export function turnstile(): Turnstile {
  let last: Promise<unknown> = Promise.resolve();
  return {
    inTurn: (work) => {
      const turn = last.then(work);
      last = turn.catch(() => undefined);
      return turn;
    },
  };
}
