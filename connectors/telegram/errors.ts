/**
 * Maps telegraf's failures onto ConnectorError. telegraf throws TelegramError for `ok:false`
 * answers and for HTTP ≥ 500 (with the status as error_code), and node-fetch's FetchError for
 * network failures and unparseable answers.
 */
import type { TelegramError } from 'telegraf';
import { ConnectorError } from '../types.ts';
import { httpStatusError, networkError } from '../http-errors.ts';
import { telegraf } from './library.ts';

/** Only a loaded telegraf can have thrown its TelegramError, so the check needs no import. */
function isTelegramError(error: unknown): error is TelegramError {
  const library = telegraf.loaded();
  return library !== undefined && error instanceof library.TelegramError;
}

export function telegramConnectorError(error: unknown): ConnectorError {
  if (error instanceof ConnectorError) return error;
  if (isTelegramError(error)) {
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
  return isTelegramError(original) && original.code === 400;
}
