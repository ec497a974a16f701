#!/usr/bin/env node
/**
 * The parley command.
 *   parley start     API and workers in one process (embedded PostgreSQL when DATABASE_URL is unset)
 *   parley web       the API only (Procfile `web`)
 *   parley worker    the workers only (Procfile `worker`)
 *   parley migrate   apply database migrations and exit (Procfile `release`)
 */
import { ConfigError, loadConfig } from '../core/config.ts';
import { boot } from '../core/boot.ts';
import { startWebServer } from '../api/server.ts';
import { startWorker } from '../workers/main.ts';

const usage = `usage: parley <command>

commands:
  start      run the API and the workers in one process
  web        run the API (HTTP + realtime)
  worker     run the background workers
  migrate    apply database migrations and exit
`;

function onStop(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    stop().then(
      () => process.exit(0),
      (error) => {
        console.error(`parley: error while stopping after ${signal}:`, error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => handler('SIGINT'));
  process.on('SIGTERM', () => handler('SIGTERM'));
}

async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(usage);
    return command ? 0 : 2;
  }
  const config = loadConfig();
  if ((command === 'web' || command === 'worker') && !config.DATABASE_URL) {
    console.error(`parley ${command}: DATABASE_URL must be set (separately scaled processes share one database; 'parley start' runs everything with an embedded one)`);
    return 2;
  }
  switch (command) {
    case 'migrate': {
      const booted = await boot({ config, migrate: true });
      booted.deps.logger.info('database is up to date');
      await booted.shutdown();
      return 0;
    }
    case 'start':
    case 'web':
    case 'worker': {
      const booted = await boot({ config, migrate: true });
      const { deps } = booted;
      const web = command === 'worker' ? null : await startWebServer(deps, config.PORT);
      if (web) deps.logger.info({ port: web.port, url: config.publicUrl }, 'API listening');
      const worker =
        command === 'web'
          ? null
          : await startWorker(deps, { connectionString: booted.database.url, only: config.WORKER_TASKS?.split(',').map((s) => s.trim()).filter(Boolean) });
      if (worker) deps.logger.info('workers running');
      onStop(async () => {
        deps.logger.info('stopping');
        await web?.close();
        await worker?.stop();
        await booted.shutdown();
      });
      return -1;
    }
    default:
      process.stderr.write(`parley: unknown command '${command}'\n\n${usage}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error) => {
    if (error instanceof ConfigError) console.error(error.message);
    else console.error('parley:', error);
    process.exit(1);
  },
);
