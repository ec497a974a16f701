/** What the API and the workers are built from: one object, passed down, never global. */
import type { Config } from './config.ts';
import type { Db } from './adapters/postgres/db.ts';
import type { EventBus } from './events/bus.ts';
import type { Logger } from './adapters/logger.ts';

export type Deps = {
  config: Config;
  db: Db;
  events: EventBus;
  logger: Logger;
};
