/**
 * Maps telegraf's failures onto ConnectorError. telegraf throws TelegramError for `ok:false`
 * answers and for HTTP ≥ 500 (with the status as error_code), and node-fetch's FetchError for
 * network failures and unparseable answers.
 */
import { TelegramError } from 'telegraf';
import { ConnectorError } from '../types.ts';
import { httpStatusError, networkError } from '../http-errors.ts';

export function telegramConnectorError(error: unknown): ConnectorError {
  if (error instanceof ConnectorError) return error;
  if (error instanceof TelegramError) {
    const retryAfter = error.parameters?.retry_after;
    const mapped = httpStatusError('Telegram', error.code, error.description, typeof retryAfter === 'number' ? retryAfter : undefined);
    mapped.cause = error;
    return mapped;
  }
  return networkError('Telegram', error);
}

/** A 400 from Telegram (possibly wrapped as a ConnectorError's cause): the request itself was refused (bad chat, unfetchable URL, wrong file type). */
export function isTelegramBadRequest(error: unknown): boolean {
  const original = error instanceof ConnectorError ? error.cause : error;
  return original instanceof TelegramError && original.code === 400;
}
