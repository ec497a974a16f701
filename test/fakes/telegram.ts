/**
 * A fake Telegram Bot API on 127.0.0.1, checking requests as Telegram does: the bot token in the
 * path (`/bot<token>/<method>`, unknown token → 401), JSON bodies, required fields and limits,
 * HTTPS-only webhooks with a well-formed secret, getUpdates refused (409) while a webhook is set,
 * and file URLs it cannot fetch (localhost, private addresses, non-http) refused with 400.
 *
 *   const fake = await startFakeTelegram();
 *   const token = fake.addBot({ username: 'acme_bot' });
 *   telegram.send({ bot_token: token }, message, { baseUrl: fake.url, ... });
 *   fake.sent[0].text; fake.failNext(1, { status: 429, retryAfter: 7 });
 *
 * `telegramTextUpdate` builds an Update; `telegramWebhookRequest` / `postTelegramWebhook` deliver
 * one the way Telegram does (JSON body, X-Telegram-Bot-Api-Secret-Token header).
 */
import { randomBytes } from 'node:crypto';
import { startHttpFake, type FakeFailure, type RecordedRequest } from './http-fake.ts';
import type { WebhookRequest } from '../../connectors/types.ts';

export type FakeBot = { id: number; token: string; username: string; webhook?: { url: string; secret_token?: string; allowed_updates?: string[] } };

export type FakeTelegramMessage = {
  token: string;
  method: 'sendMessage' | 'sendPhoto' | 'sendDocument';
  chat_id: string;
  message_id: number;
  text?: string;
  photo?: string;
  document?: string;
  caption?: string;
};

export type FakeTelegram = {
  /** The apiRoot to give telegraf (TELEGRAM_API_URL). */
  url: string;
  requests: (RecordedRequest & { token: string; apiMethod: string })[];
  /** Successfully sent messages, in order. */
  sent: FakeTelegramMessage[];
  /** Registers a bot; returns its token. */
  addBot: (options?: { username?: string; token?: string }) => string;
  bot: (token: string) => FakeBot | undefined;
  /** Queues an Update for getUpdates; update_id is assigned when absent. */
  queueUpdate: (token: string, update: Record<string, unknown>) => number;
  /**
   * A file the bot can read: `getFile({file_id})` answers its `file_path`, and
   * `GET {url}/file/bot<token>/<file_path>` serves the bytes (that bot's token only; 404 otherwise).
   * Files over 20 MB answer getFile with 400 "file is too big", as Telegram does for bots.
   */
  addFile: (token: string, fileId: string, file: { bytes: Buffer; path?: string }) => void;
  /** Chats whose user blocked the bot: sends answer 403. */
  blockChat: (chatId: string | number) => void;
  /** The user unblocked the bot: sends go through again. */
  unblockChat: (chatId: string | number) => void;
  /**
   * The next `count` calls answer `status`; the body defaults to Telegram's shape
   * (`{ok:false, error_code, description}`, with `parameters.retry_after` and a Retry-After
   * header when `retryAfter` is given). 5xx answers default to an empty body, like a proxy in front of Telegram.
   */
  failNext: (count: number, failure: FakeFailure & { description?: string; retryAfter?: number }) => void;
  close: () => Promise<void>;
};

const DESCRIPTIONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden: bot was blocked by the user',
  404: 'Not Found',
  409: 'Conflict',
  429: 'Too Many Requests',
};

function isFetchableUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
  const host = url.hostname;
  return !(host === 'localhost' || host.startsWith('127.') || host.startsWith('10.') || host.startsWith('192.168.') || host === '[::1]');
}

export async function startFakeTelegram(): Promise<FakeTelegram> {
  const bots = new Map<string, FakeBot>();
  const updates = new Map<string, Record<string, unknown>[]>();
  const nextUpdateId = new Map<string, number>();
  const messageIds = new Map<string, number>();
  const blocked = new Set<string>();
  const files = new Map<string, { token: string; bytes: Buffer; path: string }>();
  const sent: FakeTelegramMessage[] = [];
  const requests: FakeTelegram['requests'] = [];
  let nextBotId = 7000000001;

  const error = (code: number, description: string) => ({ ok: false, error_code: code, description });

  const server = await startHttpFake(
    async (request, respond) => {
      const download = /^\/file\/bot([^/]+)\/(.+)$/.exec(request.path);
      if (download) {
        requests.push({ ...request, token: download[1], apiMethod: 'file' });
        const file = [...files.values()].find((f) => f.path === download[2]);
        if (request.method !== 'GET' || !file || file.token !== download[1]) return respond(404, error(404, 'Not Found'));
        return respond(200, file.bytes, { 'content-type': 'application/octet-stream' });
      }
      const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(request.path);
      const token = match?.[1] ?? '';
      const apiMethod = match?.[2] ?? '';
      requests.push({ ...request, token, apiMethod });
      if (!match) return respond(404, error(404, 'Not Found'));
      const bot = bots.get(token);
      if (!bot) return respond(401, error(401, 'Unauthorized'));
      const contentType = request.headers['content-type'] ?? '';
      if (request.rawBody.length > 0 && !contentType.startsWith('application/json')) {
        return respond(400, error(400, 'Bad Request: the fake only accepts JSON bodies'));
      }
      if (request.rawBody.length > 0 && request.json === undefined) return respond(400, error(400, "Bad Request: can't parse JSON"));
      const body: Record<string, any> = request.json ?? {};
      const ok = (result: unknown) => respond(200, { ok: true, result });

      const sendTo = (kind: FakeTelegramMessage['method'], fields: Partial<FakeTelegramMessage>) => {
        const chatId = String(body.chat_id);
        if (blocked.has(chatId)) return respond(403, error(403, 'Forbidden: bot was blocked by the user'));
        const key = `${token}:${chatId}`;
        const messageId = (messageIds.get(key) ?? 0) + 1;
        messageIds.set(key, messageId);
        const message: FakeTelegramMessage = { token, method: kind, chat_id: chatId, message_id: messageId, ...fields };
        sent.push(message);
        const result: Record<string, unknown> = {
          message_id: messageId,
          date: Math.floor(Date.now() / 1000),
          chat: { id: Number(chatId), type: 'private' },
          from: { id: bot.id, is_bot: true, first_name: bot.username, username: bot.username },
        };
        if (fields.text !== undefined) result.text = fields.text;
        if (fields.caption !== undefined) result.caption = fields.caption;
        if (fields.photo !== undefined) result.photo = [{ file_id: `photo-${messageId}`, file_unique_id: `u${messageId}`, width: 800, height: 600 }];
        if (fields.document !== undefined) result.document = { file_id: `doc-${messageId}`, file_unique_id: `d${messageId}` };
        return ok(result);
      };
      const needsChat = () => {
        if (body.chat_id === undefined || body.chat_id === '') {
          respond(400, error(400, 'Bad Request: chat_id is empty'));
          return false;
        }
        if (!/^-?\d+$/.test(String(body.chat_id)) && !String(body.chat_id).startsWith('@')) {
          respond(400, error(400, 'Bad Request: chat not found'));
          return false;
        }
        return true;
      };
      const captionOk = () => {
        if (typeof body.caption === 'string' && body.caption.length > 1024) {
          respond(400, error(400, 'Bad Request: message caption is too long'));
          return false;
        }
        return true;
      };

      switch (apiMethod) {
        case 'getFile': {
          const file = typeof body.file_id === 'string' ? files.get(body.file_id) : undefined;
          if (!file || file.token !== token) return respond(400, error(400, 'Bad Request: invalid file_id'));
          if (file.bytes.length > 20 * 1024 * 1024) return respond(400, error(400, 'Bad Request: file is too big'));
          return ok({ file_id: body.file_id, file_unique_id: `u-${body.file_id}`, file_size: file.bytes.length, file_path: file.path });
        }
        case 'getMe':
          return ok({ id: bot.id, is_bot: true, first_name: bot.username, username: bot.username, can_join_groups: true });
        case 'setWebhook': {
          const url = typeof body.url === 'string' ? body.url : '';
          if (url === '') {
            bot.webhook = undefined;
            return ok(true);
          }
          if (!url.startsWith('https://')) return respond(400, error(400, 'Bad Request: bad webhook: An HTTPS URL must be provided for webhook'));
          if (body.secret_token !== undefined && !/^[A-Za-z0-9_-]{1,256}$/.test(String(body.secret_token))) {
            return respond(400, error(400, 'Bad Request: secret token contains unallowed characters'));
          }
          bot.webhook = { url, secret_token: body.secret_token, allowed_updates: body.allowed_updates };
          return ok(true);
        }
        case 'deleteWebhook':
          bot.webhook = undefined;
          if (body.drop_pending_updates === true) updates.set(token, []);
          return ok(true);
        case 'getWebhookInfo':
          return ok({ url: bot.webhook?.url ?? '', has_custom_certificate: false, pending_update_count: (updates.get(token) ?? []).length });
        case 'getUpdates': {
          if (bot.webhook)
            return respond(409, error(409, "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"));
          const offset = Number(body.offset ?? 0);
          const limit = Math.min(Math.max(Number(body.limit ?? 100), 1), 100);
          // Asking for an offset confirms (forgets) every earlier update, as Telegram does.
          const pending = (updates.get(token) ?? []).filter((u) => (u.update_id as number) >= offset);
          updates.set(token, pending);
          return ok(pending.slice(0, limit));
        }
        case 'sendMessage': {
          if (!needsChat()) return;
          const text = typeof body.text === 'string' ? body.text : '';
          if (text.trim() === '') return respond(400, error(400, 'Bad Request: message text is empty'));
          if (text.length > 4096) return respond(400, error(400, 'Bad Request: message is too long'));
          return sendTo('sendMessage', { text });
        }
        case 'sendPhoto':
        case 'sendDocument': {
          if (!needsChat() || !captionOk()) return;
          const field = apiMethod === 'sendPhoto' ? 'photo' : 'document';
          const file = body[field];
          if (typeof file !== 'string' || !isFetchableUrl(file)) {
            return respond(400, error(400, 'Bad Request: wrong file identifier/HTTP URL specified'));
          }
          return sendTo(apiMethod, { [field]: file, ...(typeof body.caption === 'string' ? { caption: body.caption } : {}) });
        }
        default:
          return respond(404, error(404, 'Not Found: method not found'));
      }
    },
    (failure) => (failure.status >= 500 ? '' : error(failure.status, DESCRIPTIONS[failure.status] ?? 'Error')),
  );

  return {
    url: server.origin,
    requests,
    sent,
    addBot: (options = {}) => {
      const id = nextBotId++;
      const token = options.token ?? `${id}:${randomBytes(18).toString('base64url')}`;
      bots.set(token, { id, token, username: options.username ?? `bot${id}_bot` });
      return token;
    },
    bot: (token) => bots.get(token),
    queueUpdate: (token, update) => {
      const id = typeof update.update_id === 'number' ? update.update_id : (nextUpdateId.get(token) ?? 100000);
      nextUpdateId.set(token, id + 1);
      const list = updates.get(token) ?? [];
      list.push({ ...update, update_id: id });
      updates.set(token, list);
      return id;
    },
    addFile: (token, fileId, file) => {
      files.set(fileId, { token, bytes: file.bytes, path: file.path ?? `photos/file_${files.size}.jpg` });
    },
    blockChat: (chatId) => {
      blocked.add(String(chatId));
    },
    unblockChat: (chatId) => {
      blocked.delete(String(chatId));
    },
    failNext: (count, failure) => {
      const description =
        failure.description ?? `${DESCRIPTIONS[failure.status] ?? 'Error'}${failure.retryAfter !== undefined ? `: retry after ${failure.retryAfter}` : ''}`;
      const body =
        failure.body !== undefined
          ? failure.body
          : failure.status >= 500
            ? ''
            : { ...error(failure.status, description), ...(failure.retryAfter !== undefined ? { parameters: { retry_after: failure.retryAfter } } : {}) };
      const headers = { ...(failure.retryAfter !== undefined ? { 'retry-after': String(failure.retryAfter) } : {}), ...failure.headers };
      server.failNext(count, { status: failure.status, body, headers });
    },
    close: server.close,
  };
}

/** A Telegram Update carrying a private-chat text message. */
export function telegramTextUpdate(options: {
  updateId?: number;
  chatId: number;
  messageId: number;
  text: string;
  firstName?: string;
  lastName?: string;
  username?: string;
  date?: number;
}): Record<string, unknown> {
  const user = {
    id: options.chatId,
    is_bot: false,
    first_name: options.firstName ?? 'Ada',
    ...(options.lastName ? { last_name: options.lastName } : {}),
    ...(options.username ? { username: options.username } : {}),
  };
  return {
    ...(options.updateId !== undefined ? { update_id: options.updateId } : {}),
    message: {
      message_id: options.messageId,
      from: { ...user, language_code: 'en' },
      chat: { ...user, is_bot: undefined, type: 'private' },
      date: options.date ?? 1767225600,
      text: options.text,
    },
  };
}

/** The request Telegram would make to a webhook: JSON body and the secret token header. */
export function telegramWebhookRequest(update: unknown, secret: string | undefined, url = 'https://parley.example/api/v1/webhooks/telegram/x'): WebhookRequest {
  const rawBody = Buffer.from(JSON.stringify(update), 'utf8');
  return {
    url,
    rawBody,
    headers: { 'content-type': 'application/json', ...(secret !== undefined ? { 'x-telegram-bot-api-secret-token': secret } : {}) },
  };
}

/** POSTs an Update to a running webhook route as Telegram does. */
export function postTelegramWebhook(url: string, update: unknown, secret: string | undefined): Promise<Response> {
  const request = telegramWebhookRequest(update, secret, url);
  return fetch(url, { method: 'POST', headers: request.headers as Record<string, string>, body: new Uint8Array(request.rawBody) });
}
