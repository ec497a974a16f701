/**
 * Configuration: parsed once from the environment; a bad variable is a ConfigError naming it;
 * secrets that are not given are generated once and kept in DATA_DIR.
 */
import test from 'ava';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig, parseEnv } from '../core/config.ts';
import { connectorFor, connectors } from '../connectors/index.ts';
import { connectorContext } from '../core/domain/channels/connector-context.ts';

function tempDir(t: import('ava').ExecutionContext): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'parley-config-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('defaults: an empty environment is a valid configuration', (t) => {
  const env = parseEnv({});
  t.is(env.PORT, 3000);
  t.is(env.DATABASE_URL, undefined);
  t.is(env.ACCESS_TOKEN_TTL, 24 * 3600);
  t.is(env.GOOGLE_CLIENT_ID, undefined);
  t.is(env.GOOGLE_JWKS_URL, 'https://www.googleapis.com/oauth2/v3/certs');
  t.deepEqual(env.CORS_ORIGINS, []);
  t.is(env.SMTP_URL, undefined);
  t.is(env.TRUST_PROXY_HOPS, 0);
});

test('values are parsed: numbers, durations, lists, empty strings as unset', (t) => {
  const env = parseEnv({
    PORT: '8080',
    ACCESS_TOKEN_TTL: '90m',
    CORS_ORIGINS: ' https://a.example ,https://b.example,, ',
    GOOGLE_CLIENT_ID: '  ',
    SMTP_URL: '',
    DATABASE_URL: 'postgres://u:p@db.internal:5432/parley',
  });
  t.is(env.PORT, 8080);
  t.is(env.ACCESS_TOKEN_TTL, 90 * 60);
  t.deepEqual(env.CORS_ORIGINS, ['https://a.example', 'https://b.example']);
  t.is(env.GOOGLE_CLIENT_ID, undefined);
  t.is(env.SMTP_URL, undefined);
  t.is(env.DATABASE_URL, 'postgres://u:p@db.internal:5432/parley');
  for (const [ttl, seconds] of [
    ['3600', 3600],
    ['45s', 45],
    ['24h', 86400],
    ['7d', 604800],
  ] as const) {
    t.is(parseEnv({ ACCESS_TOKEN_TTL: ttl }).ACCESS_TOKEN_TTL, seconds);
  }
});

test('a bad variable throws ConfigError naming it', (t) => {
  const cases: [Record<string, string>, string][] = [
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ PORT: '80.5' }, 'PORT'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'localhost 6379' }, 'REDIS_URL'],
    [{ JWT_SECRET: 'too-short' }, 'JWT_SECRET'],
    [{ ACCESS_TOKEN_TTL: '0' }, 'ACCESS_TOKEN_TTL'],
    [{ ACCESS_TOKEN_TTL: '1 week' }, 'ACCESS_TOKEN_TTL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ GOOGLE_JWKS_URL: 'nope' }, 'GOOGLE_JWKS_URL'],
    [{ BCRYPT_ROUNDS: '2' }, 'BCRYPT_ROUNDS'],
    [{ TRUST_PROXY_HOPS: '-1' }, 'TRUST_PROXY_HOPS'],
  ];
  for (const [env, name] of cases) {
    const error = t.throws(() => parseEnv(env), { instanceOf: ConfigError }, name);
    t.regex(error!.message, new RegExp(`^\\s+${name}: `, 'm'), name);
    // loadConfig checks the same way before touching anything.
    t.throws(() => loadConfig({ ...env, DATA_DIR: path.join(os.tmpdir(), 'parley-never-created') }), { instanceOf: ConfigError }, name);
  }
});

test('platform base URLs: one setting per connector that declares one, defaulting to the real service; each connector gets its own', (t) => {
  const env = parseEnv({});
  const declared = connectors.flatMap((c) => (c.baseUrl ? [c] : []));
  const names = declared.map((c) => c.baseUrl!.env);
  t.deepEqual(
    Object.keys(env.platformUrls).filter((name) => !names.includes(name)),
    [],
    "only the connectors' settings",
  );
  for (const connector of declared) t.is(env.platformUrls[connector.baseUrl!.env], connector.baseUrl!.default, connector.type);
  t.is(parseEnv({}).platformUrls.TELEGRAM_API_URL, 'https://api.telegram.org');
  t.is(parseEnv({ TWILIO_API_URL: '' }).platformUrls.TWILIO_API_URL, undefined, "empty is unset: Twilio's own hosts");

  const config = loadConfig({ DATA_DIR: tempDir(t), X_API_URL: 'http://127.0.0.1:9/x', META_GRAPH_URL: 'http://127.0.0.1:9/graph' });
  t.is(connectorContext(config, connectorFor('x')).baseUrl, 'http://127.0.0.1:9/x');
  t.is(connectorContext(config, connectorFor('whatsapp')).baseUrl, 'http://127.0.0.1:9/graph');
  t.is(connectorContext(config, connectorFor('instagram')).baseUrl, 'https://graph.instagram.com/v23.0');
  t.is(connectorContext(config, connectorFor('sms')).baseUrl, '');
  t.is(connectorContext(config, connectorFor('webchat')).baseUrl, '');

  const error = t.throws(() => parseEnv({ TELEGRAM_API_URL: 'nope', PORT: 'x' }), { instanceOf: ConfigError });
  t.regex(error!.message, /^\s+TELEGRAM_API_URL: /m);
  t.regex(error!.message, /^\s+PORT: /m);
});

test('several bad variables are all named at once', (t) => {
  const error = t.throws(() => parseEnv({ PORT: 'x', DATABASE_URL: 'y y' }), { instanceOf: ConfigError });
  t.regex(error!.message, /PORT/);
  t.regex(error!.message, /DATABASE_URL/);
});

test('JWT_SECRET unset: generated once, kept in DATA_DIR/secrets, the same on the next start', (t) => {
  const dataDir = tempDir(t);
  const first = loadConfig({ DATA_DIR: dataDir });
  t.is(first.dataDir, dataDir);
  t.is(first.jwtSecret.length, 48);
  const file = path.join(dataDir, 'secrets', 'jwt_secret');
  t.is(statSync(file).mode & 0o777, 0o600);
  t.deepEqual(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64'), Buffer.from(first.jwtSecret));
  const second = loadConfig({ DATA_DIR: dataDir });
  t.deepEqual(Buffer.from(second.jwtSecret), Buffer.from(first.jwtSecret));
  t.deepEqual(second.encryptionKey, first.encryptionKey);
  t.is(second.encryptionKey.length, 32);
  // No temporary files are left behind.
  t.deepEqual(readdirSync(path.join(dataDir, 'secrets')).sort(), ['config_encryption_key', 'jwt_secret']);
  // Another data directory gets another secret.
  const elsewhere = loadConfig({ DATA_DIR: tempDir(t) });
  t.notDeepEqual(Buffer.from(elsewhere.jwtSecret), Buffer.from(first.jwtSecret));
});

test('JWT_SECRET set: used as given, nothing written', (t) => {
  const dataDir = tempDir(t);
  const secret = 's'.repeat(40);
  const config = loadConfig({ DATA_DIR: dataDir, JWT_SECRET: secret, CONFIG_ENCRYPTION_KEY: 'ab'.repeat(32) });
  t.deepEqual(Buffer.from(config.jwtSecret), Buffer.from(secret));
  t.deepEqual(config.encryptionKey, Buffer.from('ab'.repeat(32), 'hex'));
  t.deepEqual(readdirSync(dataDir), []);
});

test('a damaged stored secret stops the start with a ConfigError', (t) => {
  const dataDir = tempDir(t);
  loadConfig({ DATA_DIR: dataDir });
  writeFileSync(path.join(dataDir, 'secrets', 'jwt_secret'), '\n');
  const error = t.throws(() => loadConfig({ DATA_DIR: dataDir }), { instanceOf: ConfigError });
  t.regex(error!.message, /jwt_secret/);
});

test('CONFIG_ENCRYPTION_KEY must be 32 bytes', (t) => {
  const error = t.throws(() => loadConfig({ DATA_DIR: tempDir(t), CONFIG_ENCRYPTION_KEY: 'abcd' }), { instanceOf: ConfigError });
  t.regex(error!.message, /CONFIG_ENCRYPTION_KEY/);
  t.is(loadConfig({ DATA_DIR: tempDir(t), CONFIG_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') }).encryptionKey.length, 32);
});

test('publicUrl defaults to localhost:PORT and loses trailing slashes', (t) => {
  t.is(loadConfig({ DATA_DIR: tempDir(t), PORT: '4000', JWT_SECRET: 'j'.repeat(32) }).publicUrl, 'http://localhost:4000');
  t.is(loadConfig({ DATA_DIR: tempDir(t), PUBLIC_URL: 'https://parley.example/', JWT_SECRET: 'j'.repeat(32) }).publicUrl, 'https://parley.example');
});

test('DATABASE_URL must be a PostgreSQL URL', (t) => {
  for (const url of ['mysql://root@db/parley', 'https://db.example/parley']) {
    const error = t.throws(() => parseEnv({ DATABASE_URL: url }), { instanceOf: ConfigError });
    t.regex(error!.message, /^\s+DATABASE_URL: must be a PostgreSQL URL/m);
  }
  t.is(parseEnv({ DATABASE_URL: 'postgresql://u@db/parley' }).DATABASE_URL, 'postgresql://u@db/parley');
});

const sharedDb = { DATABASE_URL: 'postgres://u:p@db.internal:5432/parley' };

test('with DATABASE_URL in production, an unset JWT_SECRET or CONFIG_ENCRYPTION_KEY stops the start, naming it, before anything is generated', (t) => {
  const dataDir = tempDir(t);
  const both = t.throws(() => loadConfig({ ...sharedDb, NODE_ENV: 'production', DATA_DIR: dataDir }), { instanceOf: ConfigError });
  t.regex(both!.message, /^\s+JWT_SECRET: not set; with DATABASE_URL set, every process/m);
  t.regex(both!.message, /^\s+CONFIG_ENCRYPTION_KEY: not set/m);
  const one = t.throws(() => loadConfig({ ...sharedDb, NODE_ENV: 'production', DATA_DIR: dataDir, JWT_SECRET: 'j'.repeat(32) }), { instanceOf: ConfigError });
  t.regex(one!.message, /CONFIG_ENCRYPTION_KEY/);
  t.notRegex(one!.message, /JWT_SECRET/);
  t.deepEqual(readdirSync(dataDir), [], 'no per-machine secret was generated');
  const config = loadConfig({ ...sharedDb, NODE_ENV: 'production', DATA_DIR: dataDir, JWT_SECRET: 'j'.repeat(32), CONFIG_ENCRYPTION_KEY: 'ab'.repeat(32) });
  t.deepEqual(config.warnings, []);
});

test('with DATABASE_URL outside production, unset secrets are generated but each is a warning naming it', (t) => {
  const config = loadConfig({ ...sharedDb, DATA_DIR: tempDir(t), JWT_SECRET: 'j'.repeat(32) });
  t.is(config.warnings.length, 1);
  t.regex(config.warnings[0], /^CONFIG_ENCRYPTION_KEY: not set; .*DATA_DIR is this machine's only/);
  t.is(config.encryptionKey.length, 32);
});

test('the embedded default (no DATABASE_URL) generates its secrets silently, even in production', (t) => {
  const config = loadConfig({ NODE_ENV: 'production', DATA_DIR: tempDir(t) });
  t.deepEqual(config.warnings, []);
  t.is(config.jwtSecret.length, 48);
});

test('security switches: META_REQUIRE_SIGNATURE defaults to on in production only; ALLOW_PRIVATE_HOSTS defaults to off', (t) => {
  const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: tempDir(t), JWT_SECRET: 'j'.repeat(32), ...env });
  t.is(load({}).META_REQUIRE_SIGNATURE, false);
  t.is(load({ NODE_ENV: 'production' }).META_REQUIRE_SIGNATURE, true);
  t.is(load({ NODE_ENV: 'production', META_REQUIRE_SIGNATURE: 'false' }).META_REQUIRE_SIGNATURE, false);
  t.is(load({ META_REQUIRE_SIGNATURE: 'true' }).META_REQUIRE_SIGNATURE, true);
  t.is(load({}).ALLOW_PRIVATE_HOSTS, false);
  t.is(load({ ALLOW_PRIVATE_HOSTS: '1' }).ALLOW_PRIVATE_HOSTS, true);
  const error = t.throws(() => load({ ALLOW_PRIVATE_HOSTS: 'yes' }), { instanceOf: ConfigError });
  t.regex(error!.message, /ALLOW_PRIVATE_HOSTS/);
});
