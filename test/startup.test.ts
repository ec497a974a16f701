/**
 * Startup mistakes, run as the operator would (`parley …` as a child process): each prints one
 * sentence naming the variable or the fix and exits 1, never a stack trace; a database that
 * comes up after Parley is waited for (DATABASE_CONNECT_TIMEOUT).
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../core/config.ts';
import { loadEmbeddedPostgres } from '../core/adapters/postgres/embedded-postgres.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { repoRoot, runParley, spawnParley, type CliRun } from './helpers/cli.ts';
import { closedPort } from './helpers/ports.ts';

let app: TestApp;
let dataDir: string;
test.before(async () => {
  app = await startTestApp();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'parley-startup-'));
});
test.after.always(async () => {
  await app?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const secrets = () => ({ JWT_SECRET: randomBytes(32).toString('hex'), CONFIG_ENCRYPTION_KEY: randomBytes(32).toString('hex') });
const parley = (args: string[], env: Record<string, string>) => runParley(args, { DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...secrets(), ...env });

/** Exit 1 with one line on stderr matching `sentence`, and no stack trace anywhere. */
function assertOneSentence(t: import('ava').ExecutionContext, run: CliRun, sentence: RegExp): void {
  t.is(run.code, 1, run.stderr);
  t.regex(run.stderr, sentence);
  t.notRegex(run.stderr + run.stdout, /^\s+at /m, 'no stack trace');
  t.notRegex(run.stderr, /undefined/);
}

function serverUrl(database: string, user?: string): string {
  const url = new URL(process.env.PARLEY_TEST_ADMIN_URL!);
  url.pathname = `/${database}`;
  if (user) url.username = user;
  return url.toString();
}

test('an unreachable database: one sentence naming DATABASE_URL', async (t) => {
  const port = await closedPort();
  const run = await parley(['migrate'], { DATABASE_URL: `postgres://parley@127.0.0.1:${port}/parley`, DATABASE_CONNECT_TIMEOUT: '0' });
  assertOneSentence(
    t,
    run,
    new RegExp(`^parley: cannot reach the database at 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\): start PostgreSQL there or correct DATABASE_URL\\.$`, 'm'),
  );
  const retried = await parley(['migrate'], { DATABASE_URL: `postgres://parley@127.0.0.1:${port}/parley`, DATABASE_CONNECT_TIMEOUT: '1' });
  assertOneSentence(
    t,
    retried,
    new RegExp(
      `^parley: cannot reach the database at 127\\.0\\.0\\.1:${port} after retrying for 1s \\(DATABASE_CONNECT_TIMEOUT\\) \\(ECONNREFUSED\\): start PostgreSQL there or correct DATABASE_URL\\.$`,
      'm',
    ),
  );
});

test('a database that refuses (unknown role, unknown database): one sentence naming DATABASE_URL', async (t) => {
  const role = await parley(['migrate'], { DATABASE_URL: serverUrl('postgres', `nobody_${randomBytes(3).toString('hex')}`) });
  // A server with trust auth says the role does not exist; one with passwords (the embedded
  // default npm test boots) says the password failed for it: each sentence names what to correct.
  assertOneSentence(t, role, /^parley: the database at .* refused the connection \(.*\): correct the user( or password)? in DATABASE_URL/m);
  const database = await parley(['migrate'], { DATABASE_URL: serverUrl(`missing_${randomBytes(3).toString('hex')}`) });
  assertOneSentence(
    t,
    database,
    /^parley: the database at .* refused the connection \(database "missing_\w+" does not exist\): create that database or correct its name in DATABASE_URL\.$/m,
  );
});

test('a mysql:// DATABASE_URL is refused before connecting', async (t) => {
  const run = await parley(['migrate'], { DATABASE_URL: 'mysql://root@127.0.0.1:3306/parley' });
  assertOneSentence(t, run, /^\s+DATABASE_URL: must be a PostgreSQL URL/m);
});

test('a port in use: one sentence naming PORT', async (t) => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '0.0.0.0', resolve));
  t.teardown(() => taken.close());
  const port = (taken.address() as { port: number }).port;
  const run = await parley(['web'], { DATABASE_URL: app.databaseUrl, PORT: String(port) });
  assertOneSentence(t, run, new RegExp(`^parley: port ${port} is already in use \\(PORT\\): stop the program using it or set PORT to a free port\\.$`, 'm'));
});

test('production with DATABASE_URL and no CONFIG_ENCRYPTION_KEY stops, naming it; elsewhere it starts with a warning', async (t) => {
  const env = { DATABASE_URL: app.databaseUrl, JWT_SECRET: 'j'.repeat(40), CONFIG_ENCRYPTION_KEY: '' };
  const production = await parley(['migrate'], { ...env, NODE_ENV: 'production' });
  assertOneSentence(t, production, /^\s+CONFIG_ENCRYPTION_KEY: not set; with DATABASE_URL set, every process/m);
  const development = await parley(['migrate'], env);
  t.is(development.code, 0, development.stderr);
  const warning = development.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .find((entry) => entry.level === 40);
  t.regex(warning?.msg ?? '', /^CONFIG_ENCRYPTION_KEY: not set/, development.stdout);
});

/** A TCP proxy on `port` to the server of `target`. */
function proxyTo(port: number, target: URL): Promise<Server> {
  const proxy = createServer((socket) => {
    const upstream = createConnection(Number(target.port || 5432), target.hostname);
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  return new Promise((resolve) => proxy.listen(port, '127.0.0.1', () => resolve(proxy)));
}

test('a database that comes up after Parley is waited for (DATABASE_CONNECT_TIMEOUT)', async (t) => {
  const port = await closedPort();
  const url = new URL(app.databaseUrl);
  url.host = `127.0.0.1:${port}`;
  const child = spawnParley(['migrate'], { DATA_DIR: dataDir, ...secrets(), DATABASE_URL: url.toString(), DATABASE_CONNECT_TIMEOUT: '60' });
  let stdout = '';
  let proxy: Promise<Server> | null = null;
  t.teardown(async () => (await proxy)?.close());
  // The database appears only once Parley has found it missing.
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    if (!proxy && stdout.includes('database not reachable yet')) proxy = proxyTo(port, new URL(app.databaseUrl));
  });
  const code = await new Promise((resolve) => child.on('close', resolve));
  t.is(code, 0, stdout);
  t.regex(stdout, /database not reachable yet \(.*ECONNREFUSED.*\); retrying for up to 60s \(DATABASE_CONNECT_TIMEOUT\)/);
  t.regex(stdout, /database is up to date/);
});

test('without the optional embedded-postgres package, the embedded default says what to do', async (t) => {
  const error = await t.throwsAsync(loadEmbeddedPostgres('embedded-postgres-not-installed'), { instanceOf: ConfigError });
  t.regex(error!.message, /^DATABASE_URL is unset and the embedded PostgreSQL is not installed .*: set DATABASE_URL/);
});

/** The machine's older Node.js (/usr/bin/node is Node 20 here), if there is one. */
function olderNode(): string | null {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(candidate)) continue;
    const major = Number(execFileSync(candidate, ['-p', 'process.versions.node.split(".")[0]']).toString().trim());
    if (major < 24) return candidate;
  }
  return null;
}
const oldNode = olderNode();

(oldNode ? test : test.skip)('Node.js older than 24: one sentence, not ERR_UNKNOWN_FILE_EXTENSION', async (t) => {
  for (const command of [['start'], ['jobs', 'stats']]) {
    const run = await runParley(command, {}, { node: oldNode! });
    assertOneSentence(t, run, /^parley: Node\.js 24 or newer is required, this is v\d+\.[\d.]+: install Node\.js 24 LTS/m);
    t.notRegex(run.stderr, /ERR_UNKNOWN_FILE_EXTENSION/);
  }
  // npm install's postinstall (stripping types ahead) does nothing there rather than fail the install.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'parley-strip-old-'));
  try {
    const out = execFileSync(oldNode!, ['scripts/strip-types.js'], { cwd: repoRoot, env: { ...process.env, PARLEY_STRIPPED_DIR: dir } }).toString();
    t.is(out, '');
    t.deepEqual(readdirSync(dir), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('npm scripts, the bin, the Procfile and the image enter through the plain-JS version check', (t) => {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
  t.is(pkg.bin.parley, './bin/parley.js');
  // Stripping types ahead (scripts/strip-types.js) is plain JavaScript that loads no .ts file and
  // does nothing on an older Node: npm install must not fail there (test below).
  const plainJs = new Set(['strip', 'postinstall']);
  for (const [name, script] of Object.entries<string>(pkg.scripts)) {
    if (plainJs.has(name)) {
      t.regex(script, /scripts\/strip-types\.js/, name);
      continue;
    }
    // V8 flags (such as --max-semi-space-size) may come first: they never load a .ts file.
    if (/^node /.test(script)) t.regex(script, /^node (--[\w-]+=\S+ )*(bin\/parley\.js|--import \.\/bin\/require-node24\.js) /, name);
  }
  const processes = readFileSync(path.join(repoRoot, 'Procfile'), 'utf8')
    .split('\n')
    .filter((line) => /^\w+:/.test(line));
  t.deepEqual(
    processes.map((line) => line.split(':')[0]),
    ['release', 'web', 'worker'],
  );
  for (const line of processes) t.regex(line, /^\w+: node (--[\w-]+=\S+ )*bin\/parley\.js /);
  t.regex(readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8'), /^CMD \["node", ("--[\w-]+=\S+", )*"bin\/parley\.js", "web"\]$/m);
});
