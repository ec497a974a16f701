/**
 * Configuration comes only from the environment and is checked once, at start, by one zod
 * schema. A bad variable stops the process with a message that names it.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { connectors } from '../connectors/index.ts';

const optionalUrl = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .pipe(z.url().optional())
  .optional();
const optionalString = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional();

/** `true`/`false` (also `1`/`0`); unset or empty: undefined, so a default can depend on NODE_ENV. */
const optionalFlag = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((v) => (v === undefined || v === '' ? undefined : v === 'true' || v === '1'));

const envSchema = z.object({
  NODE_ENV: z.string().default('development'),
  /** HTTP port of the API (default 3000). */
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** PostgreSQL connection string (postgres:// or postgresql://); unset boots an embedded PostgreSQL in DATA_DIR. */
  DATABASE_URL: optionalUrl.refine((v) => v === undefined || /^postgres(ql)?:\/\//i.test(v), {
    message: 'must be a PostgreSQL URL (postgres://user:password@host:5432/database); Parley runs on PostgreSQL only',
  }),
  /** Seconds a starting process keeps retrying an unreachable database (default 30; 0: try once). */
  DATABASE_CONNECT_TIMEOUT: z.coerce.number().min(0).max(3600).default(30),
  /**
   * Seconds to wait for PostgreSQL (a connection, or a query's answer) before a request
   * answers 503 (default 5); the server also cancels a statement running longer.
   */
  DB_TIMEOUT: z.coerce.number().min(0.1).max(300).default(5),
  /** Redis connection string; unset keeps events in-process (single-process mode). */
  REDIS_URL: optionalUrl,
  /**
   * Where files (agent uploads, customers' media) are kept: `postgres` (in the database, in
   * chunks: every web and worker node sees the same files), `disk` (DATA_DIR/uploads: one
   * machine) or `s3` (S3_BUCKET on S3 or an S3-compatible service). Default: `postgres` when
   * DATABASE_URL is set, else `disk` (the embedded `npm start`).
   */
  STORAGE_DRIVER: z.enum(['postgres', 'disk', 's3']).optional(),
  /** The bucket of the `s3` storage driver (required with STORAGE_DRIVER=s3). */
  S3_BUCKET: optionalString,
  /** An S3-compatible service's URL (MinIO, Ceph, R2…; path-style addressing); unset: Amazon S3. */
  S3_ENDPOINT: optionalUrl,
  /** The bucket's region (default us-east-1; most S3-compatible services ignore it). */
  S3_REGION: optionalString.transform((v) => v ?? 'us-east-1'),
  /** Largest customer attachment downloaded from a platform, in bytes (default 25 MB). */
  MAX_ATTACHMENT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .default(25 * 1024 * 1024),
  /** Where local state lives: embedded database, generated secrets, uploads (default ./.data). */
  DATA_DIR: z.string().default('.data'),
  /** Port of the embedded PostgreSQL (default 54329). */
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  /** Public base URL of this service, used in links, upload URLs and webhook callbacks. */
  PUBLIC_URL: optionalUrl,
  /** URL of the web app, used for the return pages of the checkout (default PUBLIC_URL). */
  APP_URL: optionalUrl,
  /** HS256 key for access tokens; unset: generated once and kept in DATA_DIR. */
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Access token lifetime in seconds, or with a unit: 90m, 24h, 7d (default 24h). */
  ACCESS_TOKEN_TTL: z
    .string()
    .default('24h')
    .transform((v, ctx) => {
      const m = /^(\d+)\s*([smhd]?)$/.exec(v.trim());
      if (!m || Number(m[1]) <= 0) {
        ctx.addIssue({ code: 'custom', message: 'must be a positive number of seconds or end in s, m, h or d' });
        return z.NEVER;
      }
      const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as '' | 's' | 'm' | 'h' | 'd'];
      return Number(m[1]) * unit;
    }),
  GOOGLE_CLIENT_ID: optionalString,
  GOOGLE_JWKS_URL: z.url().default('https://www.googleapis.com/oauth2/v3/certs'),
  /** smtp://user:pass@host:port for system mail; unset: mail is written to the log. */
  SMTP_URL: optionalUrl,
  MAIL_FROM: z.string().default('Parley <no-reply@parley.local>'),
  /** Comma-separated origins allowed by CORS on the authenticated API. */
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** 32-byte key (hex or base64) for credentials at rest; unset: generated once in DATA_DIR. */
  CONFIG_ENCRYPTION_KEY: optionalString,
  /** Stripe's secret key: set, this server sells plans (checkout, upgrades); unset, the operator gives them (PLAN_WITHOUT_BILLING). */
  STRIPE_SECRET_KEY: optionalString,
  /**
   * Without billing (STRIPE_SECRET_KEY unset) the plan of every workspace (Free, Mini or Pro;
   * default Pro), applied to new workspaces and, at each start, to every workspace whose plan
   * `parley business plan` did not set. Ignored when STRIPE_SECRET_KEY is set (new workspaces
   * start on Free and upgrade through Stripe).
   */
  PLAN_WITHOUT_BILLING: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return 'Pro' as const;
      const plan = (['Free', 'Mini', 'Pro'] as const).find((p) => p.toLowerCase() === v.toLowerCase());
      if (!plan) {
        ctx.addIssue({ code: 'custom', message: 'must be Free, Mini or Pro' });
        return z.NEVER;
      }
      return plan;
    }),
  STRIPE_WEBHOOK_SECRET: optionalString,
  STRIPE_PRICE_MINI: optionalString,
  STRIPE_PRICE_PRO: optionalString,
  STRIPE_API_URL: optionalUrl,
  OLLAMA_URL: z.url().default('http://127.0.0.1:11434'),
  /** Ollama model that embeds knowledge base chunks and search queries (default nomic-embed-text). */
  OLLAMA_EMBED_MODEL: z.string().trim().min(1).default('nomic-embed-text'),
  /** Ollama model the AI agent answers with (default llama3.1). */
  OLLAMA_CHAT_MODEL: z.string().trim().min(1).default('llama3.1'),
  /**
   * Cosine similarity (0–1) a knowledge base chunk needs before the AI agent may answer from it
   * (default 0.5, suited to nomic-embed-text; other embedding models may need another value).
   */
  AI_MIN_RELEVANCE: z.coerce.number().min(0).max(1).default(0.5),
  /**
   * MiB of decoded knowledge base vectors each process keeps for search, least recently searched
   * business evicted first (default 32: about 10,000 chunks of 768 dimensions; 0 turns it off).
   */
  KB_SEARCH_CACHE_MIB: z.coerce.number().min(0).max(65536).default(32),
  /** Comma-separated task names this worker process runs (default: all). */
  WORKER_TASKS: optionalString,
  /** Seconds without a heartbeat after which a worker's locked jobs are released (default 60). */
  WORKER_LIVENESS_TIMEOUT: z.coerce.number().min(1).max(86400).default(60),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(5),
  /**
   * The CPU priority (nice, 0-19) a `parley worker` process lowers itself to, so that on a host
   * shared with `web` web's answers get the cores first (default 10; 0: unchanged). See
   * workers/cpu-priority.ts.
   */
  WORKER_NICE: z.coerce.number().int().min(0).max(19).default(10),
  /**
   * How many proxies (load balancers) in front of the API append to X-Forwarded-For (default 0:
   * clients connect directly). Decides which address the login lockout counts per.
   */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  /**
   * Failed logins from one client address (an IPv6 /64), whatever the e-mails, within 15 minutes
   * before that address is refused (default 50). Raise it when many people sign in from behind
   * one NAT address.
   */
  /** A socket's repeated `typing: true` is relayed at most once per this many ms per conversation (default 1000; a stop always goes through). */
  TYPING_RELAY_MIN_MS: z.coerce.number().int().min(0).max(600000).default(1000),
  LOGIN_MAX_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).max(100000).default(50),
  /**
   * Refuse WhatsApp and Instagram webhook posts for channels without an `app_secret` (nothing
   * can check them). Default: on when NODE_ENV=production, off otherwise.
   */
  META_REQUIRE_SIGNATURE: optionalFlag,
  /**
   * Let channel settings name hosts on loopback or private networks (a self-hosted mail server
   * on the LAN). Link-local (cloud metadata) and unspecified addresses stay refused. Default off.
   */
  ALLOW_PRIVATE_HOSTS: optionalFlag,
  /** bcrypt cost factor (default 10; tests lower it). */
  BCRYPT_ROUNDS: z.coerce.number().int().min(4).max(15).default(10),
});

/**
 * The platforms' base URLs, one setting per connector that declares one (its `baseUrl`: e.g.
 * TELEGRAM_API_URL, default the real service; tests point them at fakes), keyed by variable.
 */
const platformUrlSchema = z.object(
  Object.fromEntries(
    connectors.flatMap((c) => (c.baseUrl ? [[c.baseUrl.env, c.baseUrl.default ? z.url().default(c.baseUrl.default) : optionalUrl]] : [])),
  ) as Record<string, typeof optionalUrl>,
);

export type Env = z.infer<typeof envSchema> & {
  /** Each platform base URL setting by variable name (connectors' `baseUrl`); unset without a default. */
  platformUrls: Record<string, string | undefined>;
};

export type Config = Omit<Env, 'JWT_SECRET' | 'CONFIG_ENCRYPTION_KEY' | 'META_REQUIRE_SIGNATURE' | 'ALLOW_PRIVATE_HOSTS' | 'STORAGE_DRIVER'> & {
  /** STORAGE_DRIVER resolved: its value, else `postgres` with DATABASE_URL and `disk` without. */
  STORAGE_DRIVER: 'postgres' | 'disk' | 's3';
  /** META_REQUIRE_SIGNATURE resolved: its value, else NODE_ENV === 'production'. */
  META_REQUIRE_SIGNATURE: boolean;
  /** ALLOW_PRIVATE_HOSTS resolved (default false). */
  ALLOW_PRIVATE_HOSTS: boolean;
  /** Absolute path of DATA_DIR. */
  dataDir: string;
  /** HS256 key bytes for access tokens. */
  jwtSecret: Uint8Array;
  /** AES-256-GCM key (32 bytes) for credentials at rest. */
  encryptionKey: Buffer;
  /** PUBLIC_URL without a trailing slash (default http://localhost:PORT). */
  publicUrl: string;
  /** Configuration that works here but will hurt (logged at warn level when a process starts). */
  warnings: string[];
};

export class ConfigError extends Error {}

/** Parses the environment; throws ConfigError naming every bad variable. */
export function parseEnv(env: NodeJS.ProcessEnv = process.env): Env {
  const result = envSchema
    .refine((e) => e.STORAGE_DRIVER !== 's3' || e.S3_BUCKET !== undefined, { path: ['S3_BUCKET'], message: 'required with STORAGE_DRIVER=s3' })
    .safeParse(env);
  const urls = platformUrlSchema.safeParse(env);
  if (!result.success || !urls.success) {
    const issues = [...(result.error?.issues ?? []), ...(urls.error?.issues ?? [])];
    const lines = issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return { ...result.data, platformUrls: urls.data };
}

/** Reads a secret kept in the data directory, creating it (mode 0600) on first use. */
function storedSecret(dataDir: string, name: string, bytes: number): Buffer {
  const file = path.join(dataDir, 'secrets', name);
  const read = () => {
    const stored = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (stored.length !== bytes)
      throw new ConfigError(`Invalid configuration:\n  DATA_DIR: ${file} must hold ${bytes} base64 bytes (delete it to generate a new one)`);
    return stored;
  };
  if (existsSync(file)) return read();
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const value = randomBytes(bytes);
  // Written whole to a temporary file, then linked into place: link() fails when the name
  // exists, so two processes starting together (web and worker) agree on one secret and
  // neither can read a half-written file.
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, value.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return read();
  } finally {
    unlinkSync(temporary);
  }
  return value;
}

function decodeKey(value: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== 32) throw new ConfigError('Invalid configuration:\n  CONFIG_ENCRYPTION_KEY: must be 32 bytes, hex or base64');
  return key;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = parseEnv(env);
  const dataDir = path.resolve(parsed.DATA_DIR);
  const { JWT_SECRET, CONFIG_ENCRYPTION_KEY, ...rest } = parsed;
  const warnings = sharedSecretProblems(parsed);
  return {
    ...rest,
    META_REQUIRE_SIGNATURE: parsed.META_REQUIRE_SIGNATURE ?? parsed.NODE_ENV === 'production',
    ALLOW_PRIVATE_HOSTS: parsed.ALLOW_PRIVATE_HOSTS ?? false,
    STORAGE_DRIVER: parsed.STORAGE_DRIVER ?? (parsed.DATABASE_URL ? 'postgres' : 'disk'),
    dataDir,
    jwtSecret: JWT_SECRET ? new TextEncoder().encode(JWT_SECRET) : storedSecret(dataDir, 'jwt_secret', 48),
    encryptionKey: CONFIG_ENCRYPTION_KEY ? decodeKey(CONFIG_ENCRYPTION_KEY) : storedSecret(dataDir, 'config_encryption_key', 32),
    publicUrl: (parsed.PUBLIC_URL ?? `http://localhost:${parsed.PORT}`).replace(/\/+$/, ''),
    warnings,
  };
}

/**
 * Generated secrets live in one machine's DATA_DIR: right for the embedded default, wrong once
 * processes share a database (DATABASE_URL): a worker elsewhere gets another encryption key
 * and cannot decrypt channel credentials, and tokens die with the machine. In production that
 * stops the start; elsewhere it is a warning (a developer's single machine works).
 */
function sharedSecretProblems(parsed: Env): string[] {
  if (!parsed.DATABASE_URL) return [];
  const missing = (['JWT_SECRET', 'CONFIG_ENCRYPTION_KEY'] as const).filter((name) => !parsed[name]);
  const why =
    "with DATABASE_URL set, every process (web, worker, release, on any machine) must share one value; one generated into DATA_DIR is this machine's only";
  const problems = missing.map((name) => `${name}: not set; ${why} (generate one: \`openssl rand -hex 32\`)`);
  if (problems.length && parsed.NODE_ENV === 'production') {
    throw new ConfigError(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
  return problems;
}
