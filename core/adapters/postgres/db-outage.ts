/**
 * What the pool does while PostgreSQL is down or silent. Connecting is bounded by slonik's
 * connectionTimeout; a query on a connection whose server stopped answering (frozen, a
 * half-open TCP link) would wait forever, holding its pool slot, so each query is bounded
 * too: past the limit the connection is destroyed and the caller gets DatabaseTimeoutError.
 * isDatabaseUnavailable() tells these outages from mistakes, so the API can answer 503.
 */
import {
  BackendTerminatedError,
  BackendTerminatedUnexpectedlyError,
  ConnectionError,
  StatementTimeoutError,
  type DriverClient,
  type DriverFactory,
} from 'slonik';
import { createPgDriverFactory } from '@slonik/pg-driver';

/** A query got no answer within the database timeout (DB_TIMEOUT). */
export class DatabaseTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`the database did not answer within ${timeoutMs} ms`);
    this.name = 'DatabaseTimeoutError';
  }
}

/** slonik's pg driver, each query bounded by `timeoutMs`. */
export function boundedDriverFactory(timeoutMs: number): DriverFactory {
  const pgDriver = createPgDriverFactory();
  return async (options) => {
    const driver = await pgDriver(options);
    return { createClient: async () => boundedClient(await driver.createClient(), timeoutMs) };
  };
}

/** `work`, or DatabaseTimeoutError after `timeoutMs` (then `onTimeout` runs). */
export function bounded<T>(work: Promise<T>, timeoutMs: number, onTimeout: () => void = () => {}): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      onTimeout();
      reject(new DatabaseTimeoutError(timeoutMs));
    }, timeoutMs);
    work.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

function boundedClient(client: DriverClient, timeoutMs: number): DriverClient {
  return {
    ...client,
    // A connection whose answer is late is unusable (the answer may still come): destroyed, never handed out again.
    query: (text, values, queryOptions) => bounded(client.query(text, values, queryOptions), timeoutMs, () => void client.destroy().catch(() => {})),
  };
}

// Connection exceptions, shutdown / crash / starting up, too many connections.
const OUTAGE_SQLSTATE = /^(08...|57P0[1-3]|53300)$/;
const OUTAGE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
// pg and slonik errors that carry no code.
const OUTAGE_MESSAGE =
  /connection terminated|connection error|timeout exceeded when trying to connect|client is (pending )?destroy|no connections and no pending connections/i;

/** True when `error` (or an error it wraps) means PostgreSQL is unreachable or not answering. */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 5) return false;
  if (
    error instanceof DatabaseTimeoutError ||
    error instanceof ConnectionError ||
    error instanceof BackendTerminatedError ||
    error instanceof BackendTerminatedUnexpectedlyError ||
    error instanceof StatementTimeoutError
  ) {
    return true;
  }
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (OUTAGE_SQLSTATE.test(code) || OUTAGE_ERRNO.has(code))) return true;
  if (OUTAGE_MESSAGE.test(error.message)) return true;
  if (error instanceof AggregateError && error.errors.some((e) => isDatabaseUnavailable(e, depth + 1))) return true;
  return isDatabaseUnavailable(error.cause, depth + 1);
}
