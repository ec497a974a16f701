/**
 * WhatsApp Cloud API webhook body → normalized events. Customer messages come in
 * `entry[].changes[field=messages].value.messages[]`, receipts for what Parley sent in
 * `value.statuses[]`; both route on `value.metadata.phone_number_id`. Unknown shapes are skipped,
 * never thrown on: Meta retries a failed delivery for days.
 */
import { z } from 'zod';
import type { DeliveryReceipt, InboundAttachment, InboundEvent, InboundMessage } from '../types.ts';
import { parseJsonBody } from '../json-body.ts';

const media = z.looseObject({
  id: z.string(),
  mime_type: z.string().optional(),
  sha256: z.string().optional(),
  caption: z.string().optional(),
  filename: z.string().optional(),
});

const message = z.looseObject({
  from: z.string(),
  id: z.string(),
  timestamp: z.string(),
  type: z.string(),
  text: z.looseObject({ body: z.string() }).optional(),
  image: media.optional(),
  document: media.optional(),
  audio: media.optional(),
  video: media.optional(),
  sticker: media.optional(),
  location: z
    .looseObject({
      latitude: z.number(),
      longitude: z.number(),
      name: z.string().optional(),
      address: z.string().optional(),
    })
    .optional(),
  button: z.looseObject({ text: z.string() }).optional(),
  interactive: z
    .looseObject({
      button_reply: z.looseObject({ title: z.string() }).optional(),
      list_reply: z.looseObject({ title: z.string(), description: z.string().optional() }).optional(),
    })
    .optional(),
  contacts: z
    .array(
      z.looseObject({
        name: z.looseObject({ formatted_name: z.string().optional() }).optional(),
        phones: z.array(z.looseObject({ phone: z.string().optional() })).optional(),
      }),
    )
    .optional(),
});

const status = z.looseObject({
  id: z.string(),
  status: z.string(),
  timestamp: z.string(),
  recipient_id: z.string().optional(),
  errors: z
    .array(
      z.looseObject({
        code: z.number().optional(),
        title: z.string().optional(),
        message: z.string().optional(),
        error_data: z.looseObject({ details: z.string().optional() }).optional(),
      }),
    )
    .optional(),
});

const value = z.looseObject({
  metadata: z.looseObject({ phone_number_id: z.string() }),
  contacts: z
    .array(
      z.looseObject({
        wa_id: z.string().optional(),
        profile: z.looseObject({ name: z.string().optional() }).optional(),
      }),
    )
    .optional(),
  messages: z.array(z.unknown()).optional(),
  statuses: z.array(z.unknown()).optional(),
});

const body = z.looseObject({
  entry: z.array(
    z.looseObject({
      changes: z.array(z.looseObject({ field: z.string().optional(), value: z.unknown() })).optional(),
    }),
  ),
});

const MEDIA_TYPES = ['image', 'document', 'audio', 'video', 'sticker'] as const;

/** A unix-seconds string as ISO 8601; `now` when the platform sent nothing usable. */
export function unixSecondsToIso(seconds: string | number | undefined): string {
  const value = Number(seconds);
  return Number.isFinite(value) && value > 0 ? new Date(value * 1000).toISOString() : new Date().toISOString();
}

/** WhatsApp sends numbers without the plus sign; Parley keeps phones in E.164 so SMS and WhatsApp customers match. */
function toE164(waId: string): string {
  return /^\d+$/.test(waId) ? `+${waId}` : waId;
}

function messageText(m: z.infer<typeof message>): string {
  switch (m.type) {
    case 'text':
      return m.text?.body ?? '';
    case 'image':
    case 'video':
    case 'document':
      return m[m.type]?.caption ?? '';
    case 'button':
      return m.button?.text ?? '';
    case 'interactive':
      return m.interactive?.button_reply?.title ?? m.interactive?.list_reply?.title ?? '';
    case 'location': {
      const at = m.location;
      if (!at) return '';
      const label = [at.name, at.address].filter(Boolean).join(', ');
      const link = `https://maps.google.com/?q=${at.latitude},${at.longitude}`;
      return label ? `${label}\n${link}` : link;
    }
    case 'contacts':
      return (m.contacts ?? []).map((c) => [c.name?.formatted_name, ...(c.phones ?? []).map((p) => p.phone)].filter(Boolean).join(' ')).join('\n');
    case 'unsupported':
      return '[Unsupported WhatsApp message]';
    default:
      return '';
  }
}

function messageAttachments(m: z.infer<typeof message>): InboundAttachment[] {
  const attachments: InboundAttachment[] = [];
  for (const type of MEDIA_TYPES) {
    const item = m[type];
    if (!item) continue;
    attachments.push({
      platform_file_id: item.id,
      ...(item.mime_type ? { content_type: item.mime_type } : {}),
      ...(item.filename ? { filename: item.filename } : {}),
    });
  }
  return attachments;
}

function parseMessage(raw: unknown, routingKey: string, contacts: z.infer<typeof value>['contacts']): InboundMessage | null {
  const parsed = message.safeParse(raw);
  if (!parsed.success) return null;
  const m = parsed.data;
  const text = messageText(m);
  const attachments = messageAttachments(m);
  // Reactions, system notices (number changed) and the like carry nothing for an agent to read.
  if (text === '' && attachments.length === 0) return null;
  const contact = contacts?.find((c) => c.wa_id === m.from) ?? (contacts?.length === 1 ? contacts[0] : undefined);
  const name = contact?.profile?.name;
  return {
    kind: 'message',
    routingKey,
    externalId: m.id,
    from: { platformUserId: m.from, ...(name ? { name } : {}), phone: toE164(m.from) },
    text,
    attachments,
    sentAt: unixSecondsToIso(m.timestamp),
  };
}

const RECEIPT_STATUSES = new Set(['sent', 'delivered', 'read', 'failed']);

function parseStatus(raw: unknown, routingKey: string): DeliveryReceipt | null {
  const parsed = status.safeParse(raw);
  if (!parsed.success || !RECEIPT_STATUSES.has(parsed.data.status)) return null;
  const s = parsed.data;
  const receipt: DeliveryReceipt = {
    kind: 'receipt',
    routingKey,
    externalId: s.id,
    status: s.status as DeliveryReceipt['status'],
    at: unixSecondsToIso(s.timestamp),
  };
  if (s.status === 'failed') {
    const first = s.errors?.[0];
    const title = first?.title ?? first?.message;
    const details = first?.error_data?.details ?? (first?.message !== title ? first?.message : undefined);
    receipt.error = title && details && details !== title ? `${title}: ${details}` : (title ?? details ?? 'Message failed');
  }
  return receipt;
}

/** Parses a WhatsApp webhook body (already signature-checked) into messages and receipts. */
export function parseWhatsAppWebhook(rawBody: Buffer): InboundEvent[] {
  const parsed = parseJsonBody(rawBody, body);
  if (!parsed) return [];
  const events: InboundEvent[] = [];
  for (const entry of parsed.entry) {
    for (const change of entry.changes ?? []) {
      if (change.field !== undefined && change.field !== 'messages') continue;
      const v = value.safeParse(change.value);
      if (!v.success) continue;
      const routingKey = v.data.metadata.phone_number_id;
      for (const raw of v.data.messages ?? []) {
        const event = parseMessage(raw, routingKey, v.data.contacts);
        if (event) events.push(event);
      }
      for (const raw of v.data.statuses ?? []) {
        const event = parseStatus(raw, routingKey);
        if (event) events.push(event);
      }
    }
  }
  return events;
}
