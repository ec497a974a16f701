#!/usr/bin/env node
/**
 * The parley command.
 *   parley start     API and workers in one process (embedded PostgreSQL when DATABASE_URL is unset)
 *   parley web       the API only (Procfile `web`)
 *   parley worker    the workers only (Procfile `worker`)
 *   parley migrate   apply database migrations and exit (Procfile `release`)
 *   parley jobs …    inspect the job queue and retry failed jobs (bin/jobs-command.ts)
 *   parley business … list workspaces, set a workspace's plan (bin/business-command.ts)
 */
import { loadConfig } from '../core/config.ts';
import { failureMessage } from './failure-message.ts';
import { jobsCli, jobsUsage } from './jobs-command.ts';
import { businessCli, businessUsage } from './business-command.ts';
import { lowerCpuPriority } from '../workers/cpu-priority.ts';

// The API and the workers load on demand: `parley --help` and `parley jobs` stay quick.
const load = {
  boot: () => import('../core/boot.ts'),
  startWebServer: () => import('../api/server.ts').then((m) => m.startWebServer),
  startWorker: () => import('../workers/main.ts').then((m) => m.startWorker),
};

const usage = `usage: parley <command>

commands:
  start      run the API and the workers in one process
  web        run the API (HTTP + realtime)
  worker     run the background workers (at a lower CPU priority than web: WORKER_NICE)
  migrate    apply database migrations and exit
  jobs       inspect the job queue and retry failed jobs (parley jobs --help)
  business   list workspaces and set their plan (parley business --help)

On SIGTERM or SIGINT the API stops accepting connections and the workers take no new jobs;
running jobs finish before the process exits. A second signal exits at once.

exit codes: 0 ok, 1 error, 2 usage (parley jobs and parley business add 3, below)

${jobsUsage.replace(/^usage: /, '')}
${businessUsage.replace(/^usage: /, '')}`;

function onStop(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) {
      console.error(`parley: ${signal} again: exiting without waiting for running jobs`);
      process.exit(1);
    }
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
  const io = { out: (text: string) => process.stdout.write(text), err: (text: string) => process.stderr.write(text) };
  if (command === 'jobs') return jobsCli(loadConfig, argv.slice(1), io);
  if (command === 'business') return businessCli(loadConfig, argv.slice(1), io);
  const config = loadConfig();
  if ((command === 'web' || command === 'worker') && !config.DATABASE_URL) {
    console.error(
      `parley ${command}: DATABASE_URL must be set (separately scaled processes share one database; 'parley start' runs everything with an embedded one)`,
    );
    return 2;
  }
  switch (command) {
    case 'migrate': {
      const { boot } = await load.boot();
      const booted = await boot({ config, migrate: true });
      booted.deps.logger.info('database is up to date');
      await booted.shutdown();
      return 0;
    }
    case 'start':
    case 'web':
    case 'worker': {
      const [{ boot, poolSizeFor }, startWebServer, startWorker] = await Promise.all([
        load.boot(),
        command === 'worker' ? null : load.startWebServer(),
        command === 'web' ? null : load.startWorker(),
      ]);
      const maxPoolSize = poolSizeFor({ web: command !== 'worker', worker: command !== 'web' }, config);
      const booted = await boot({ config, migrate: true, maxPoolSize });
      const { deps } = booted;
      const web = startWebServer ? await startWebServer(deps, config.PORT) : null;
      if (web) deps.logger.info({ port: web.port, url: config.publicUrl }, 'API listening');
      const worker = startWorker
        ? await startWorker(deps, {
            connectionString: booted.database.url,
            only: config.WORKER_TASKS?.split(',')
              .map((s) => s.trim())
              .filter(Boolean),
          })
        : null;
      // A worker of its own gives way to web on a shared host (not `start`: one process is both).
      if (worker && command === 'worker') lowerCpuPriority(config.WORKER_NICE, deps.logger);
      if (worker) deps.logger.info('workers running');
      onStop(async () => {
        deps.logger.info('stopping');
        // Both at once: the API stops taking requests while running jobs finish.
        await Promise.all([web?.close(), worker?.stop()]);
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
    console.error(failureMessage(error));
    process.exit(1);
  },
);
