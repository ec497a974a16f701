/**
 * Which PostgreSQL to use: DATABASE_URL when set, else the embedded server in DATA_DIR,
 * started here and stopped by the returned function.
 */
import type { Config } from '../../config.ts';
import type { Logger } from '../logger.ts';
import { startEmbeddedPostgres } from './embedded-postgres.ts';
import { waitForDatabase } from './wait-for-database.ts';

export type DatabaseHandle = { url: string; embedded: boolean; stop: () => Promise<void> };

export async function resolveDatabase(config: Config, logger: Logger): Promise<DatabaseHandle> {
  if (config.DATABASE_URL) {
    await waitForDatabase(config.DATABASE_URL, config.DATABASE_CONNECT_TIMEOUT, logger);
    return { url: config.DATABASE_URL, embedded: false, stop: async () => {} };
  }
  logger.info({ dataDir: config.dataDir, port: config.EMBEDDED_PG_PORT }, 'DATABASE_URL unset: starting embedded PostgreSQL');
  const server = await startEmbeddedPostgres({
    dataDir: config.dataDir,
    port: config.EMBEDDED_PG_PORT,
    log: (line) => logger.debug({ component: 'embedded-postgres' }, line),
  });
  return { url: server.url, embedded: true, stop: server.stop };
}
