/** Builds the shared dependencies of a process: config, logger, database, events. */
import { loadConfig, type Config } from './config.ts';
import { createLogger } from './adapters/logger.ts';
import { createDb } from './adapters/postgres/db.ts';
import { createLocalEventBus, type EventBus } from './events/bus.ts';
import { createRedisEventBus } from './adapters/redis-events.ts';
import { migrate } from './adapters/postgres/migrate.ts';
import { resolveDatabase, type DatabaseHandle } from './adapters/postgres/database-url.ts';
import type { Deps } from './deps.ts';
import { applyPlanWithoutBilling } from './domain/plans.ts';

export type Booted = { deps: Deps; database: DatabaseHandle; shutdown: () => Promise<void> };

/** Connections of a process's pool when it serves requests only (`parley web`, commands). */
const WEB_POOL_SIZE = 10;
/** Beyond one per running job: a drain's live-event reads beside the connection it holds, liveness. */
const WORKER_POOL_HEADROOM = 5;

/**
 * The database pool a process needs. A worker's drains each hold a connection for their whole
 * run (their DRAIN lock is a session lock, and a delivery drain keeps it across the platform's
 * answer), so a worker needs one per job it runs at once (WORKER_CONCURRENCY) and a few more:
 * with fewer, the jobs beyond the pool waited for a connection and failed after DB_TIMEOUT.
 */
export function poolSizeFor(serves: { web: boolean; worker: boolean }, config: Pick<Config, 'WORKER_CONCURRENCY'>): number {
  const worker = serves.worker ? config.WORKER_CONCURRENCY + WORKER_POOL_HEADROOM : 0;
  return serves.web ? WEB_POOL_SIZE + worker : Math.max(worker, WEB_POOL_SIZE);
}

/**
 * `logToStderr`: for commands whose stdout is their answer (`parley jobs`). `maxPoolSize`: the
 * database pool's connections (poolSizeFor; default that of a process serving requests).
 */
export async function boot(
  options: { config?: Config; migrate?: boolean; events?: EventBus; logToStderr?: boolean; maxPoolSize?: number } = {},
): Promise<Booted> {
  const config = options.config ?? loadConfig();
  const logger = createLogger(config.LOG_LEVEL, { stderr: options.logToStderr });
  for (const warning of config.warnings) logger.warn(warning);
  const database = await resolveDatabase(config, logger);
  try {
    if (options.migrate !== false) {
      const { applied } = await migrate(database.url);
      if (applied.length) logger.info({ applied }, 'migrations applied');
    }
    const db = await createDb(database.url, { timeoutMs: config.DB_TIMEOUT * 1000, maxPoolSize: options.maxPoolSize ?? WEB_POOL_SIZE });
    // With REDIS_URL events cross processes (workers reach sockets on every API node).
    const events = options.events ?? (config.REDIS_URL ? createRedisEventBus({ url: config.REDIS_URL, logger }) : createLocalEventBus());
    const deps: Deps = { config, db, events, logger };
    if (options.migrate !== false) {
      // A server without billing: every workspace on PLAN_WITHOUT_BILLING but those the operator set.
      const moved = await applyPlanWithoutBilling(db, config);
      if (moved) logger.info({ moved, plan: config.PLAN_WITHOUT_BILLING }, 'workspaces moved to PLAN_WITHOUT_BILLING');
    }
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
