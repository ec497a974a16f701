/**
 * Sends one Parley reply to a Telegram chat. Telegram fetches files by URL only within limits
 * (photos ≤ 5 MB; documents ≤ 20 MB and only GIF, PDF or ZIP), so attachments that qualify are
 * sent as photos or documents by URL and the rest as links appended to the text. A reply with
 * one file and a short text goes as one message with a caption; otherwise the text (split at
 * 4,096 characters) comes first, then each file. When Telegram refuses a file URL (400: it could
 * not fetch it, e.g. PUBLIC_URL is not reachable from the internet) that file is sent as a link.
 * The first message's `${chat_id}:${message_id}` is the reply's external id.
 */
import type { Telegram } from 'telegraf';
import type { OutboundAttachment, OutboundMessage, SendResult } from '../types.ts';
import { ConnectorError } from '../types.ts';
import { splitText } from '../split-text.ts';
import { callTelegram } from './client.ts';
import { isTelegramBadRequest } from './errors.ts';

export const TELEGRAM_TEXT_LIMIT = 4096;
export const TELEGRAM_CAPTION_LIMIT = 1024;
const PHOTO_URL_MAX_BYTES = 5 * 1024 * 1024;
const DOCUMENT_URL_MAX_BYTES = 20 * 1024 * 1024;
const PHOTO_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp']);
const DOCUMENT_URL_TYPES = new Set(['application/pdf', 'image/gif', 'application/zip']);

/** How Telegram can carry an attachment sent by URL, or `link` when it cannot. */
export function telegramMediaKind(attachment: OutboundAttachment): 'photo' | 'document' | 'link' {
  const type = attachment.content_type.toLowerCase().split(';')[0].trim();
  if (PHOTO_TYPES.has(type) && attachment.size <= PHOTO_URL_MAX_BYTES) return 'photo';
  if (DOCUMENT_URL_TYPES.has(type) && attachment.size <= DOCUMENT_URL_MAX_BYTES) return 'document';
  return 'link';
}

export function attachmentLink(attachment: OutboundAttachment): string {
  return `📎 ${attachment.filename}: ${attachment.url}`;
}

export type TelegramPart = { kind: 'text'; text: string } | { kind: 'photo' | 'document'; attachment: OutboundAttachment; caption?: string };

/** The Bot API calls one reply turns into, in sending order. */
export function telegramParts(message: OutboundMessage): TelegramPart[] {
  const media: OutboundAttachment[] = [];
  const links: string[] = [];
  for (const attachment of message.attachments) {
    if (telegramMediaKind(attachment) === 'link') links.push(attachmentLink(attachment));
    else media.push(attachment);
  }
  const text = [message.text.trim(), ...links].filter((piece) => piece !== '').join('\n\n');
  const mediaPart = (attachment: OutboundAttachment, caption?: string): TelegramPart => ({
    kind: telegramMediaKind(attachment) as 'photo' | 'document',
    attachment,
    ...(caption ? { caption } : {}),
  });
  if (media.length === 1 && text.length <= TELEGRAM_CAPTION_LIMIT) return [mediaPart(media[0], text)];
  const parts: TelegramPart[] = text === '' ? [] : splitText(text, TELEGRAM_TEXT_LIMIT).map((piece) => ({ kind: 'text' as const, text: piece }));
  for (const attachment of media) parts.push(mediaPart(attachment));
  return parts;
}

async function sendPart(client: Telegram, chatId: string, part: TelegramPart): Promise<number> {
  if (part.kind === 'text') {
    return (await callTelegram(client, 'sendMessage', { chat_id: chatId, text: part.text })).message_id;
  }
  const caption = part.caption ? { caption: part.caption } : {};
  try {
    if (part.kind === 'photo') {
      return (await callTelegram(client, 'sendPhoto', { chat_id: chatId, photo: part.attachment.url, ...caption })).message_id;
    }
    return (await callTelegram(client, 'sendDocument', { chat_id: chatId, document: part.attachment.url, ...caption })).message_id;
  } catch (error) {
    if (!isTelegramBadRequest(error)) throw error;
    const text = [part.caption, attachmentLink(part.attachment)].filter(Boolean).join('\n\n');
    return (await callTelegram(client, 'sendMessage', { chat_id: chatId, text })).message_id;
  }
}

export async function sendTelegramMessage(client: Telegram, message: OutboundMessage): Promise<SendResult> {
  const parts = telegramParts(message);
  if (parts.length === 0) throw new ConnectorError('permanent', 'Nothing to send: the message has no text and no attachments');
  const chatId = message.to.platformUserId;
  let externalId: string | undefined;
  for (const part of parts) {
    const messageId = await sendPart(client, chatId, part);
    externalId ??= `${chatId}:${messageId}`;
  }
  return { externalId: externalId! };
}
