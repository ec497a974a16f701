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
  // Two-factor sign-in: the secret (and its URI), codes, recovery codes, the sign-in challenge.
  '*.secret',
  '*.otpauth_uri',
  '*.recovery_code',
  '*.recovery_codes',
  '*.challenge_token',
  '*.current_password',
  '*.new_password',
  'secret',
  'otpauth_uri',
  'recovery_code',
  'recovery_codes',
  'challenge_token',
];

/** A logger writing to stdout, or to stderr (fd 2) for commands whose stdout is their answer. */
export function createLogger(level: string, options: { stderr?: boolean } = {}): Logger {
  return pino({ level, redact: { paths: redactPaths, censor: '[redacted]' } }, pino.destination(options.stderr ? 2 : 1));
}
