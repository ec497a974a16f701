/**
 * X Account Activity webhooks → normalized events. Only direct-message creations become
 * messages; Parley's own DMs (the account's echoes, `sender_id` = `for_user_id`) and every other
 * activity (tweets, follows, typing indicators, read receipts) are skipped.
 */
import { z } from 'zod';
import type { InboundAttachment, InboundEvent, InboundMessage } from '../types.ts';
import { parseJsonBody } from '../json-body.ts';

const media = z
  .object({
    id_str: z.string().optional(),
    media_url_https: z.string().optional(),
    type: z.string().optional(),
  })
  .loose();

const dmEvent = z
  .object({
    type: z.string(),
    id: z.string(),
    created_timestamp: z.string().optional(),
    message_create: z
      .object({
        sender_id: z.string(),
        target: z.object({ recipient_id: z.string() }).loose().optional(),
        message_data: z
          .object({
            text: z.string().default(''),
            attachment: z.object({ type: z.string(), media: media.optional() }).loose().optional(),
          })
          .loose(),
      })
      .loose()
      .optional(),
  })
  .loose();

const activity = z
  .object({
    for_user_id: z.string(),
    direct_message_events: z.array(dmEvent).optional(),
    users: z.record(z.string(), z.object({ name: z.string().optional(), screen_name: z.string().optional() }).loose()).optional(),
  })
  .loose();

/** The account an activity payload is for (the routing key of the shared webhook), or undefined. */
export function forUserIdOf(rawBody: Buffer): string | undefined {
  try {
    const body = JSON.parse(rawBody.toString('utf8')) as { for_user_id?: unknown };
    return typeof body?.for_user_id === 'string' ? body.for_user_id : undefined;
  } catch {
    return undefined;
  }
}

export function parseXWebhook(rawBody: Buffer): InboundEvent[] {
  const parsed = parseJsonBody(rawBody, activity);
  if (!parsed) return [];
  const { for_user_id: forUserId, direct_message_events: events = [], users = {} } = parsed;
  const messages: InboundMessage[] = [];
  for (const event of events) {
    const create = event.message_create;
    if (event.type !== 'message_create' || !create || create.sender_id === forUserId) continue;
    const user = users[create.sender_id];
    const from: InboundMessage['from'] = { platformUserId: create.sender_id };
    if (user?.name) from.name = user.name;
    const sentAtMs = Number(event.created_timestamp);
    messages.push({
      kind: 'message',
      routingKey: forUserId,
      externalId: event.id,
      from,
      text: create.message_data.text,
      attachments: attachmentsOf(create.message_data.attachment?.media),
      sentAt: new Date(Number.isFinite(sentAtMs) && sentAtMs > 0 ? sentAtMs : Date.now()).toISOString(),
    });
  }
  return messages;
}

function attachmentsOf(item: z.infer<typeof media> | undefined): InboundAttachment[] {
  if (!item) return [];
  const attachment: InboundAttachment = {};
  if (item.media_url_https) attachment.url = item.media_url_https;
  if (item.id_str) attachment.platform_file_id = item.id_str;
  if (item.type === 'photo') attachment.content_type = 'image/jpeg';
  else if (item.type === 'video') attachment.content_type = 'video/mp4';
  else if (item.type === 'animated_gif') attachment.content_type = 'image/gif';
  return attachment.url || attachment.platform_file_id ? [attachment] : [];
}
