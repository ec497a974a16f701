/**
 * Shared classification of failures talking to a platform over HTTP, so every connector retries
 * the same things: a network failure, a 5xx, 408 or 429 is transient (retried with backoff, 429
 * honouring Retry-After); any other 4xx is permanent and carries the platform's own message.
 */
import { ConnectorError } from './types.ts';

/** Parses a Retry-After header (delta-seconds or HTTP-date) into whole seconds, or undefined. */
export function parseRetryAfter(value: string | null | undefined, now: Date = new Date()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed));
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

/** True for the HTTP statuses worth retrying. */
export function isTransientStatus(status: number): boolean {
  return status >= 500 || status === 429 || status === 408;
}

/**
 * The ConnectorError for a non-2xx HTTP response. `platformMessage` is the platform's own
 * explanation (parsed from its error body by the caller); without one the status line is used.
 * A caller that knows better (e.g. a platform error code that means "permanent" on a 5xx) can
 * construct the ConnectorError itself instead.
 */
export function httpStatusError(platform: string, status: number, platformMessage?: string, retryAfterSeconds?: number): ConnectorError {
  const message = platformMessage && platformMessage.trim() !== '' ? platformMessage : `${platform} answered HTTP ${status}`;
  if (isTransientStatus(status)) return new ConnectorError('transient', message, retryAfterSeconds);
  return new ConnectorError('permanent', message);
}

/** A failure before any HTTP response (DNS, refused connection, reset, timeout): always transient. */
export function networkError(platform: string, cause: unknown): ConnectorError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  const error = new ConnectorError('transient', `${platform} unreachable: ${detail}`);
  error.cause = cause;
  return error;
}

/** A platform's answer text: JSON when it parses (error bodies usually are), else the text; undefined when empty. */
export function parseAnswerText(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Reads a fetch Response's body as parseAnswerText does; never throws. */
export async function readBody(response: Response): Promise<unknown> {
  let text: string;
  try {
    text = await response.text();
  } catch {
    return undefined;
  }
  return parseAnswerText(text);
}
