/**
 * Something the web process builds on the first request that needs it and keeps for its life:
 * a browser bundle (/widget.js, the agent app), a rendered page (/docs/decisions). A failed
 * build is logged, answered 503 with `unavailable`, and tried again by the next request.
 */
import { serviceUnavailable } from '../core/errors.ts';
import type { Logger } from '../core/adapters/logger.ts';

export function buildOnce<T>(build: () => Promise<T>, what: string, unavailable: string): (logger: Logger) => Promise<T> {
  let built: Promise<T> | null = null;
  return (logger) => {
    built ??= build().catch((error: unknown) => {
      built = null;
      logger.error({ err: error }, `${what}: building failed`);
      throw serviceUnavailable(unavailable);
    });
    return built;
  };
}
