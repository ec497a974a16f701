/**
 * Connecting a bot: with an https PUBLIC_URL Telegram pushes updates to the channel's webhook
 * (and echoes a per-channel secret in a header); otherwise (local and private installs)
 * the webhook is removed and the poll task fetches updates with getUpdates.
 */
import { createHash } from 'node:crypto';
import type { Telegram } from 'telegraf';
import { ConnectorError, type InboundMessage, type PollResult, type RegisterResult } from '../types.ts';
import { callTelegram } from './client.ts';
import { parseTelegramUpdate } from './parse.ts';

/** Only new messages: edits, reactions and callbacks are not handled, so Telegram need not send them. */
export const TELEGRAM_ALLOWED_UPDATES = ['message'] as const;

/** Updates per getUpdates call (Telegram's maximum). */
export const TELEGRAM_POLL_LIMIT = 100;

/** Telegram accepts 1–256 characters of A-Z, a-z, 0-9, _ and - as a webhook secret. */
export function telegramSecretToken(secret: string): string {
  return /^[A-Za-z0-9_-]{1,256}$/.test(secret) ? secret : createHash('sha256').update(secret).digest('hex');
}

function offsetOf(state: Record<string, unknown>): number {
  return typeof state.offset === 'number' && Number.isInteger(state.offset) && state.offset >= 0 ? state.offset : 0;
}

/**
 * A refused token or webhook URL is an `error` status with Telegram's reason; an unreachable
 * Telegram throws a transient ConnectorError so the register job retries.
 */
export async function registerTelegramBot(
  client: Telegram,
  input: { webhookUrl: string; secret: string; state: Record<string, unknown> },
): Promise<RegisterResult> {
  try {
    const me = await callTelegram(client, 'getMe', {});
    const bot = { bot_id: me.id, ...(me.username ? { bot_username: me.username } : {}) };
    if (new URL(input.webhookUrl).protocol === 'https:') {
      const secret = telegramSecretToken(input.secret);
      await callTelegram(client, 'setWebhook', { url: input.webhookUrl, secret_token: secret, allowed_updates: [...TELEGRAM_ALLOWED_UPDATES] });
      return { status: 'connected', state: { mode: 'webhook', webhook_secret: secret, ...bot } };
    }
    // Keep pending updates: they are customer messages not yet seen.
    await callTelegram(client, 'deleteWebhook', { drop_pending_updates: false });
    return { status: 'connected', state: { mode: 'polling', offset: offsetOf(input.state), ...bot } };
  } catch (error) {
    if (error instanceof ConnectorError && error.kind === 'permanent') return { status: 'error', last_error: error.message };
    throw error;
  }
}

/** One getUpdates round without waiting (the poll task runs on a schedule); confirms what it returns. */
export async function pollTelegramBot(client: Telegram, state: Record<string, unknown>): Promise<PollResult> {
  const offset = offsetOf(state);
  const updates = await callTelegram(client, 'getUpdates', {
    offset,
    limit: TELEGRAM_POLL_LIMIT,
    timeout: 0,
    allowed_updates: [...TELEGRAM_ALLOWED_UPDATES],
  });
  let next = offset;
  const events: InboundMessage[] = [];
  for (const update of updates) {
    next = Math.max(next, update.update_id + 1);
    const event = parseTelegramUpdate(update);
    if (event) events.push(event);
  }
  return { events, state: { ...state, mode: 'polling', offset: next } };
}
