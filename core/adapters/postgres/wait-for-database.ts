/**
 * The first connection of a starting process, retried with backoff: under docker-compose or
 * after a reboot the database may come up after Parley (or still be running initdb). A refusal
 * that waiting cannot fix (wrong password, unknown database) ends at once.
 */
import pg from 'pg';
import type { Logger } from '../logger.ts';

/** Errors of a database that is not (yet) there: down, starting up, name not resolvable yet. */
const transient = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', '57P03', '53300']);

function isTransient(error: unknown): boolean {
  const { code, message } = error as { code?: string; message?: string };
  // node-postgres's own connect timeout and an early hang-up carry no code.
  return (code !== undefined && transient.has(code)) || /timeout|Connection terminated/i.test(message ?? '');
}

/** Resolves once `url` accepts a connection; throws the last error after `timeoutSeconds`. */
export async function waitForDatabase(url: string, timeoutSeconds: number, logger: Logger): Promise<void> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  for (let attempt = 1; ; attempt++) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    try {
      await client.connect();
      if (attempt > 1) logger.info({ attempt }, 'database reachable');
      return;
    } catch (error) {
      const delay = Math.min(250 * 2 ** (attempt - 1), 5000);
      if (!isTransient(error) || Date.now() + delay > deadline) throw error;
      const reason = (error as Error).message || (error as { code?: string }).code;
      logger.warn({ attempt, retry_in_ms: delay }, `database not reachable yet (${reason}); retrying for up to ${timeoutSeconds}s (DATABASE_CONNECT_TIMEOUT)`);
      await new Promise((resolve) => setTimeout(resolve, delay));
    } finally {
      await client.end().catch(() => {});
    }
  }
}
