/**
 * Instagram messaging webhook body → normalized messages. Messages arrive in
 * `entry[].messaging[]`; `entry.id` is the Instagram professional account that received them
 * (the routing key). Echoes of what the business itself sent (`is_echo`), deletions, reads and
 * reactions carry nothing for the inbox and are skipped. Timestamps here are milliseconds.
 */
import { z } from 'zod';
import type { InboundAttachment, InboundEvent, InboundMessage } from '../types.ts';
import { parseJsonBody } from '../json-body.ts';

const attachment = z.looseObject({
  type: z.string(),
  payload: z.looseObject({ url: z.string().optional(), title: z.string().optional() }).nullish(),
});

const messaging = z.looseObject({
  sender: z.looseObject({ id: z.string() }),
  recipient: z.looseObject({ id: z.string() }).optional(),
  timestamp: z.number().optional(),
  message: z
    .looseObject({
      mid: z.string(),
      text: z.string().optional(),
      attachments: z.array(attachment).optional(),
      is_echo: z.boolean().optional(),
      is_deleted: z.boolean().optional(),
      is_unsupported: z.boolean().optional(),
    })
    .optional(),
  postback: z.looseObject({ mid: z.string().optional(), title: z.string().optional() }).optional(),
});

const body = z.looseObject({
  entry: z.array(
    z.looseObject({
      id: z.string().optional(),
      time: z.number().optional(),
      messaging: z.array(z.unknown()).optional(),
    }),
  ),
});

/** Instagram names kinds, not formats; a MIME range keeps `startsWith('image/')` checks working. */
const CONTENT_TYPE_BY_KIND: Record<string, string> = { image: 'image/*', video: 'video/*', audio: 'audio/*' };

/** What to show when a message is only a share or mention without text. */
const PLACEHOLDER_BY_KIND: Record<string, string> = {
  share: '[Shared a post]',
  story_mention: '[Mentioned you in their story]',
  ig_reel: '[Shared a reel]',
  reel: '[Shared a reel]',
};

function toAttachment(item: z.infer<typeof attachment>): InboundAttachment | null {
  const url = item.payload?.url;
  if (!url) return null;
  const contentType = CONTENT_TYPE_BY_KIND[item.type];
  return { url, ...(contentType ? { content_type: contentType } : {}) };
}

function millisToIso(ms: number | undefined): string {
  return ms !== undefined && Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : new Date().toISOString();
}

function parseMessaging(raw: unknown, entryId: string | undefined): InboundMessage | null {
  const parsed = messaging.safeParse(raw);
  if (!parsed.success) return null;
  const event = parsed.data;
  const routingKey = entryId ?? event.recipient?.id;
  const base = {
    kind: 'message' as const,
    ...(routingKey ? { routingKey } : {}),
    from: { platformUserId: event.sender.id },
    sentAt: millisToIso(event.timestamp),
  };
  if (event.message) {
    const m = event.message;
    if (m.is_echo || m.is_deleted) return null;
    const attachments = (m.attachments ?? []).map(toAttachment).filter((a): a is InboundAttachment => a !== null);
    let text = m.text ?? '';
    if (text === '') {
      const kinds = (m.attachments ?? []).map((a) => PLACEHOLDER_BY_KIND[a.type]).filter(Boolean);
      if (kinds.length > 0) text = kinds[0];
      else if (m.is_unsupported) text = '[Unsupported Instagram message]';
    }
    if (text === '' && attachments.length === 0) return null;
    return { ...base, externalId: m.mid, text, attachments };
  }
  // Icebreaker and button taps: the customer "said" the button's title.
  if (event.postback?.mid && event.postback.title) {
    return { ...base, externalId: event.postback.mid, text: event.postback.title, attachments: [] };
  }
  return null;
}

/** Parses an Instagram webhook body (already signature-checked) into customer messages. */
export function parseInstagramWebhook(rawBody: Buffer): InboundEvent[] {
  const parsed = parseJsonBody(rawBody, body);
  if (!parsed) return [];
  const events: InboundEvent[] = [];
  for (const entry of parsed.entry) {
    for (const raw of entry.messaging ?? []) {
      const event = parseMessaging(raw, entry.id);
      if (event) events.push(event);
    }
  }
  return events;
}
