/** Structured logging (pino). Authorization headers, tokens and passwords are redacted. */
import { pino, type Logger } from 'pino';

export type { Logger };

export const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  '*.password',
  '*.access_token',
  '*.id_token',
  '*.token',
  'password',
  'access_token',
  'token',
];

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: redactPaths, censor: '[redacted]' } });
}
