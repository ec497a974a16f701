/**
 * Telegram connector, on telegraf's Bot API client. Each Telegram channel has its own webhook
 * path (`/webhooks/telegram/{channel_id}`), so events need no routing key.
 */
import { ConnectorError, type WebhookConnector } from '../types.ts';
import { downloadMedia } from '../media.ts';
import { safeEqual } from '../safe-equal.ts';
import { callTelegram, telegramClient } from './client.ts';
import { parseTelegramWebhook } from './parse.ts';
import { pollTelegramBot, registerTelegramBot } from './register.ts';
import { sendTelegramMessage } from './send.ts';

export { parseTelegramUpdate, parseTelegramWebhook } from './parse.ts';
export { TELEGRAM_ALLOWED_UPDATES } from './register.ts';

/** The header Telegram echoes the webhook's secret_token in. */
export const TELEGRAM_SECRET_HEADER = 'x-telegram-bot-api-secret-token';

export type TelegramConfig = {
  /** From @BotFather, `<bot id>:<secret>`. */
  bot_token: string;
};

const telegram: WebhookConnector<TelegramConfig> = {
  type: 'telegram',
  label: 'Telegram',
  icon: { color: '#0EA5E9', path: 'M3 11l18-7-3 16-6-5-3 4v-6l9-7-11 6z' },
  config: [{ key: 'bot_token', required: true, secret: true, label: 'Bot token', placeholder: '123456:ABC-DEF…' }],
  // The bot id (the digits before `:` in its token): keeps a second channel from taking the bot's webhook.
  routing: (config) => ({ routingKey: /^(\d+):/.exec(config.bot_token)?.[1] ?? null, verifyToken: null }),
  duplicateAccountMessage: 'This Telegram bot is already connected to a channel',
  webhook: {
    mode: 'channel',
    audience: 'platform',
    bodyLimit: 1024 * 1024,
    summary: 'Telegram: updates for one bot',
    description: "Telegram sends the channel's secret in `X-Telegram-Bot-Api-Secret-Token` (set by registration); 401 when it does not match.",
    errors: [400, 401, 404, 413],
    verify: (request, _config, state) => {
      const expected = state.webhook_secret;
      const received = request.headers[TELEGRAM_SECRET_HEADER];
      if (typeof expected !== 'string' || expected === '' || typeof received !== 'string') return false;
      return safeEqual(received, expected);
    },
    parse: (request) => parseTelegramWebhook(request.rawBody),
  },
  setup: {
    intro: "Create a bot with @BotFather in Telegram and paste its token. Parley sets the bot's webhook itself.",
    steps: ['In Telegram, send /newbot to @BotFather and follow its questions.', 'Paste the token it gives you as the bot token.'],
  },
  baseUrl: { env: 'TELEGRAM_API_URL', default: 'https://api.telegram.org', description: 'Telegram Bot API base URL' },
  send: async (config, message, context) => sendTelegramMessage(await telegramClient(config.bot_token, context.baseUrl), message),
  register: async (config, input, context) => registerTelegramBot(await telegramClient(config.bot_token, context.baseUrl), input),
  // getFile answers the file's path (up to 20 MB for a bot), then {root}/file/bot<token>/<path> serves it.
  fetchMedia: async (config, attachment, context) => {
    if (!attachment.platform_file_id) throw new ConnectorError('permanent', 'Telegram sent no file id');
    const client = await telegramClient(config.bot_token, context.baseUrl);
    const file = await callTelegram(client, 'getFile', { file_id: attachment.platform_file_id } as never);
    if (!file.file_path) throw new ConnectorError('permanent', 'Telegram answered getFile without a file path');
    const root = context.baseUrl.replace(/\/+$/, '');
    return downloadMedia('Telegram', `${root}/file/bot${config.bot_token}/${file.file_path}`);
  },
  poll: async (config, state, context) => pollTelegramBot(await telegramClient(config.bot_token, context.baseUrl), state),
};

export default telegram;
