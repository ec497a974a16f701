/**
 * A library loaded on first use rather than at process start: stripe, telegraf and
 * twitter-api-v2 each add 18-33 MiB of RSS to every process that imports them, while most
 * deployments use few channel types and a given process (web or worker) few of their code paths.
 * `loaded()` serves synchronous checks such as `instanceof` on a library's error class: an error
 * can only be an instance of that class if the library has been loaded, so "not loaded" means "no".
 */
export type LazyModule<M> = {
  /** Imports the module once; later calls return the same promise. */
  load(): Promise<M>;
  /** The module if it has finished loading, else undefined (never triggers a load). */
  loaded(): M | undefined;
};

export function lazyModule<M>(importer: () => Promise<M>): LazyModule<M> {
  let promise: Promise<M> | undefined;
  let module: M | undefined;
  return {
    load() {
      promise ??= importer().then(
        (value) => (module = value),
        (error: unknown) => {
          promise = undefined; // a failed import (e.g. EMFILE) is tried again on the next use
          throw error;
        },
      );
      return promise;
    },
    loaded: () => module,
  };
}
