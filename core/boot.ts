/** Builds the shared dependencies of a process: config, logger, database, events. */
import { loadConfig, type Config } from './config.ts';
import { createLogger } from './adapters/logger.ts';
import { createDb } from './adapters/postgres/db.ts';
import { createLocalEventBus, type EventBus } from './events/bus.ts';
import { createRedisEventBus } from './adapters/redis-events.ts';
import { migrate } from './adapters/postgres/migrate.ts';
import { resolveDatabase, type DatabaseHandle } from './adapters/postgres/database-url.ts';
import type { Deps } from './deps.ts';

export type Booted = { deps: Deps; database: DatabaseHandle; shutdown: () => Promise<void> };

/** `logToStderr`: for commands whose stdout is their answer (`parley jobs`). */
export async function boot(options: { config?: Config; migrate?: boolean; events?: EventBus; logToStderr?: boolean } = {}): Promise<Booted> {
  const config = options.config ?? loadConfig();
  const logger = createLogger(config.LOG_LEVEL, { stderr: options.logToStderr });
  for (const warning of config.warnings) logger.warn(warning);
  const database = await resolveDatabase(config, logger);
  try {
    if (options.migrate !== false) {
      const { applied } = await migrate(database.url);
      if (applied.length) logger.info({ applied }, 'migrations applied');
    }
    const db = await createDb(database.url, { timeoutMs: config.DB_TIMEOUT * 1000 });
    // With REDIS_URL events cross processes (workers reach sockets on every API node).
    const events = options.events ?? (config.REDIS_URL ? createRedisEventBus({ url: config.REDIS_URL, logger }) : createLocalEventBus());
    const deps: Deps = { config, db, events, logger };
    return {
      deps,
      database,
      shutdown: async () => {
        await events.close();
        await db.end();
        await database.stop();
      },
    };
  } catch (error) {
    await database.stop();
    throw error;
  }
}
