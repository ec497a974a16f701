/**
 * A telegraf `Telegram` client pointed at the configured Bot API root, with every call bounded in
 * time (telegraf's own timeout is 500 s, far longer than a worker should hang) and its failures
 * mapped onto ConnectorError. telegraf itself loads with the first client.
 */
import type { Telegram } from 'telegraf';
import type { Opts, Telegram as BotApi } from 'telegraf/types';
import { telegramConnectorError } from './errors.ts';
import { telegraf } from './library.ts';

/** Upper bound for one Bot API call, in milliseconds. */
export const TELEGRAM_CALL_TIMEOUT_MS = 30_000;

export async function telegramClient(botToken: string, apiRoot: string): Promise<Telegram> {
  const { Telegram } = await telegraf.load();
  // telegraf resolves `./bot<token>/<method>` against the root: without a trailing slash a
  // path in the root (a proxy prefix) would be dropped.
  const root = apiRoot.endsWith('/') ? apiRoot : `${apiRoot}/`;
  return new Telegram(botToken, { apiRoot: root });
}

/** Calls one Bot API method; throws ConnectorError (transient or permanent) on failure. */
export async function callTelegram<M extends keyof BotApi>(client: Telegram, method: M, payload: Opts<M>): Promise<ReturnType<BotApi[M]>> {
  try {
    return await client.callApi(method, payload, { signal: AbortSignal.timeout(TELEGRAM_CALL_TIMEOUT_MS) as never });
  } catch (error) {
    throw telegramConnectorError(error);
  }
}
