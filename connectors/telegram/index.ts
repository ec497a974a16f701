/**
 * Telegram connector, on telegraf's Bot API client. Each Telegram channel has its own webhook
 * path (`/webhooks/telegram/{channel_id}`), so events need no routing key.
 */
import { z } from 'zod';
import type { Connector } from '../types.ts';
import { safeEqual } from '../safe-equal.ts';
import { telegramClient } from './client.ts';
import { parseTelegramWebhook } from './parse.ts';
import { pollTelegramBot, registerTelegramBot } from './register.ts';
import { sendTelegramMessage } from './send.ts';

export { parseTelegramUpdate, parseTelegramWebhook } from './parse.ts';
export { TELEGRAM_ALLOWED_UPDATES } from './register.ts';

/** The header Telegram echoes the webhook's secret_token in. */
export const TELEGRAM_SECRET_HEADER = 'x-telegram-bot-api-secret-token';

export const telegramConfigSchema = z.object({
  /** From @BotFather, `<bot id>:<secret>`. */
  bot_token: z.string().trim().min(1),
});

export type TelegramConfig = z.infer<typeof telegramConfigSchema>;

const telegram: Connector<TelegramConfig> = {
  type: 'telegram',
  configSchema: telegramConfigSchema,
  secretFields: ['bot_token'],
  verifyWebhook: (request, _config, state) => {
    const expected = state.webhook_secret;
    const received = request.headers[TELEGRAM_SECRET_HEADER];
    if (typeof expected !== 'string' || expected === '' || typeof received !== 'string') return false;
    return safeEqual(received, expected);
  },
  parseWebhook: (request) => parseTelegramWebhook(request.rawBody),
  send: async (config, message, context) => sendTelegramMessage(await telegramClient(config.bot_token, context.urls.telegram), message),
  register: async (config, input, context) => registerTelegramBot(await telegramClient(config.bot_token, context.urls.telegram), input),
  poll: async (config, state, context) => pollTelegramBot(await telegramClient(config.bot_token, context.urls.telegram), state),
};

export default telegram;
