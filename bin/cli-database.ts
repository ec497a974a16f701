/**
 * The database of an admin command (`parley jobs`, `parley business`): booted like the other
 * commands (DATABASE_URL, or the embedded server, joining the one `npm start` runs) but with
 * neither API nor workers, no migrations, events in-process, and logs on stderr at `warn`
 * unless LOG_LEVEL says otherwise: the command's stdout is its answer.
 */
import type { Booted } from '../core/boot.ts';
import type { Config } from '../core/config.ts';

export async function withCliDatabase<T>(loadConfig: () => Config, run: (booted: Booted) => Promise<T>): Promise<T> {
  const [{ boot }, { createLocalEventBus }] = await Promise.all([import('../core/boot.ts'), import('../core/events/bus.ts')]);
  const config = loadConfig();
  const quiet: Config = process.env.LOG_LEVEL ? config : { ...config, LOG_LEVEL: 'warn' };
  const booted = await boot({ config: quiet, migrate: false, events: createLocalEventBus(), logToStderr: true });
  try {
    return await run(booted);
  } finally {
    await booted.shutdown();
  }
}
