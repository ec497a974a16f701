/**
 * A browser bundle built by esbuild on the first request and kept for the life of the process
 * (/widget.js, the agent app). A failed build is logged, answered 503 with `unavailable`, and
 * tried again by the next request.
 */
import { serviceUnavailable } from '../core/errors.ts';
import type { Logger } from '../core/adapters/logger.ts';

export function bundleOnce<T>(build: () => Promise<T>, what: string, unavailable: string): (logger: Logger) => Promise<T> {
  let bundle: Promise<T> | null = null;
  return (logger) => {
    bundle ??= build().catch((error: unknown) => {
      bundle = null;
      logger.error({ err: error }, `${what}: bundling failed`);
      throw serviceUnavailable(unavailable);
    });
    return bundle;
  };
}
