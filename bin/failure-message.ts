/**
 * What `parley` prints when a command fails: one sentence naming the variable or the fix for
 * the mistakes made when starting a process (database unreachable or refusing, port taken,
 * bad configuration). Anything else is a bug: its message and stack, so it can be reported.
 */
import { ConfigError } from '../core/config.ts';

type Failure = { code?: string; message?: string; port?: number; address?: string; syscall?: string; hostname?: string };

/** Where DATABASE_URL points, without its password. */
function databaseHost(url: string | undefined): string {
  if (!url) return 'the embedded PostgreSQL';
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || 5432}`;
  } catch {
    return 'the database';
  }
}

const unreachable = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);

/** PostgreSQL refusals at connect time (SQLSTATE) and what to change. */
const refusals: Record<string, string> = {
  '28P01': 'correct the user or password in DATABASE_URL',
  '28000': 'correct the user in DATABASE_URL (or allow it in pg_hba.conf)',
  '3D000': 'create that database or correct its name in DATABASE_URL',
  '57P03': 'it is still starting: raise DATABASE_CONNECT_TIMEOUT or start again shortly',
  '53300': 'it has no free connections: raise its max_connections or lower the pool sizes',
};

export function failureMessage(error: unknown, env: NodeJS.ProcessEnv = process.env): string {
  if (error instanceof ConfigError) return error.message;
  const failure = (error ?? {}) as Failure;
  const code = failure.code ?? '';
  const databaseUrl = env.DATABASE_URL?.trim() || undefined;
  if (code === 'EADDRINUSE' && failure.syscall === 'listen') {
    return `parley: port ${failure.port} is already in use (PORT): stop the program using it or set PORT to a free port.`;
  }
  if (code === 'EACCES' && failure.syscall === 'listen') {
    return `parley: not allowed to listen on port ${failure.port} (PORT): use a port above 1023 or grant the permission.`;
  }
  if (unreachable.has(code) || /connection timeout/i.test(failure.message ?? '')) {
    const reason = code || 'timeout';
    const seconds = Number(env.DATABASE_CONNECT_TIMEOUT || 30);
    const waited = databaseUrl && seconds > 0 ? ` after retrying for ${seconds}s (DATABASE_CONNECT_TIMEOUT)` : '';
    return `parley: cannot reach the database at ${databaseHost(databaseUrl)}${waited} (${reason}): start PostgreSQL there or correct DATABASE_URL.`;
  }
  if (refusals[code]) {
    return `parley: the database at ${databaseHost(databaseUrl)} refused the connection (${failure.message}): ${refusals[code]}.`;
  }
  if (error instanceof Error) return `parley: unexpected error: ${error.message || error.name}\n${error.stack ?? ''}`;
  return `parley: unexpected failure (${error === undefined ? 'no error given' : String(error)}); run again with LOG_LEVEL=debug for details.`;
}
