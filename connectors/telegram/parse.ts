/**
 * Telegram Update → normalized message. Only new messages become events: edits, channel posts,
 * callbacks and service messages (joins, pins) carry nothing an agent should answer. The chat id
 * is the customer's id (in a private chat it equals the user's id) and the reply address.
 */
import { z } from 'zod';
import type { InboundAttachment, InboundMessage } from '../types.ts';

const file = z.looseObject({
  file_id: z.string(),
  file_name: z.string().optional(),
  mime_type: z.string().optional(),
  file_size: z.number().optional(),
});

const message = z.looseObject({
  message_id: z.number(),
  date: z.number(),
  chat: z.looseObject({
    id: z.number(),
    type: z.string(),
    title: z.string().optional(),
    first_name: z.string().optional(),
    last_name: z.string().optional(),
    username: z.string().optional(),
  }),
  from: z
    .looseObject({
      id: z.number(),
      is_bot: z.boolean().optional(),
      first_name: z.string().optional(),
      last_name: z.string().optional(),
      username: z.string().optional(),
    })
    .optional(),
  text: z.string().optional(),
  caption: z.string().optional(),
  photo: z
    .array(z.looseObject({ file_id: z.string(), width: z.number().optional(), height: z.number().optional(), file_size: z.number().optional() }))
    .optional(),
  document: file.optional(),
  audio: file.optional(),
  voice: file.optional(),
  video: file.optional(),
  video_note: file.optional(),
  animation: file.optional(),
  sticker: file.optional(),
  location: z.looseObject({ latitude: z.number(), longitude: z.number() }).optional(),
  contact: z.looseObject({ phone_number: z.string(), first_name: z.string().optional(), last_name: z.string().optional() }).optional(),
});

const update = z.looseObject({ update_id: z.number(), message: z.unknown().optional() });

function fullName(person: { first_name?: string; last_name?: string; username?: string } | undefined): string | undefined {
  if (!person) return undefined;
  const name = [person.first_name, person.last_name].filter(Boolean).join(' ').trim();
  return name || (person.username ? `@${person.username}` : undefined);
}

function fileAttachment(item: z.infer<typeof file>, fallbackType?: string): InboundAttachment {
  const contentType = item.mime_type ?? fallbackType;
  return {
    platform_file_id: item.file_id,
    ...(item.file_name ? { filename: item.file_name } : {}),
    ...(contentType ? { content_type: contentType } : {}),
    ...(item.file_size !== undefined ? { size: item.file_size } : {}),
  };
}

function attachmentsOf(m: z.infer<typeof message>): InboundAttachment[] {
  const attachments: InboundAttachment[] = [];
  if (m.photo && m.photo.length > 0) {
    // Telegram lists the sizes smallest first; the last is the original resolution.
    const largest = m.photo[m.photo.length - 1];
    attachments.push({
      platform_file_id: largest.file_id,
      content_type: 'image/jpeg',
      ...(largest.file_size !== undefined ? { size: largest.file_size } : {}),
    });
  }
  if (m.document) attachments.push(fileAttachment(m.document));
  // An animation also comes as `document` (for old clients): the same file, listed once.
  if (m.animation && !m.document) attachments.push(fileAttachment(m.animation, 'video/mp4'));
  if (m.audio) attachments.push(fileAttachment(m.audio));
  if (m.voice) attachments.push(fileAttachment(m.voice, 'audio/ogg'));
  if (m.video) attachments.push(fileAttachment(m.video));
  if (m.video_note) attachments.push(fileAttachment(m.video_note, 'video/mp4'));
  if (m.sticker) attachments.push(fileAttachment(m.sticker));
  return attachments;
}

function textOf(m: z.infer<typeof message>): string {
  if (m.text !== undefined) return m.text;
  if (m.caption !== undefined) return m.caption;
  if (m.location) return `https://maps.google.com/?q=${m.location.latitude},${m.location.longitude}`;
  if (m.contact) return [fullName(m.contact), m.contact.phone_number].filter(Boolean).join(' ');
  return '';
}

/** One Telegram Update (webhook body or getUpdates item) → a message, or null when it is not one. */
export function parseTelegramUpdate(raw: unknown): InboundMessage | null {
  const u = update.safeParse(raw);
  if (!u.success || u.data.message === undefined) return null;
  const parsed = message.safeParse(u.data.message);
  if (!parsed.success) return null;
  const m = parsed.data;
  if (m.from?.is_bot) return null;
  const text = textOf(m);
  const attachments = attachmentsOf(m);
  if (text === '' && attachments.length === 0) return null;
  const name = m.chat.type === 'private' ? (fullName(m.from) ?? fullName(m.chat)) : (m.chat.title ?? fullName(m.from));
  return {
    kind: 'message',
    externalId: `${m.chat.id}:${m.message_id}`,
    from: { platformUserId: String(m.chat.id), ...(name ? { name } : {}) },
    text,
    attachments,
    sentAt: new Date(m.date * 1000).toISOString(),
  };
}

/** A webhook body → events (at most one: Telegram posts one update per request). */
export function parseTelegramWebhook(rawBody: Buffer): InboundMessage[] {
  let json: unknown;
  try {
    json = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return [];
  }
  const event = parseTelegramUpdate(json);
  return event ? [event] : [];
}
