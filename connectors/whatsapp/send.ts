/**
 * Sends one Parley reply through the WhatsApp Cloud API. A reply becomes one or more WhatsApp
 * messages, sent in order: the text (split at 4,096 characters), or, when it fits, the text as
 * the caption of the first attachment; then each attachment by link (WhatsApp fetches the URL
 * itself, so Parley's upload URLs must be publicly reachable). The first message's id is the
 * reply's external id: its receipts update the reply's delivery status.
 */
import { ConnectorError, type OutboundAttachment, type OutboundMessage, type SendResult } from '../types.ts';
import { graphPost, graphUrl } from '../meta.ts';
import { splitText } from '../split-text.ts';

export type WhatsAppSendConfig = { phone_number_id: string; access_token: string };

export const WHATSAPP_TEXT_LIMIT = 4096;
export const WHATSAPP_CAPTION_LIMIT = 1024;

type MediaType = 'image' | 'video' | 'audio' | 'document';

/** The WhatsApp message type for an attachment: only the formats WhatsApp renders inline, else a document. */
export function whatsappMediaType(contentType: string): MediaType {
  const type = contentType.toLowerCase().split(';')[0].trim();
  if (type === 'image/jpeg' || type === 'image/png') return 'image';
  if (type === 'video/mp4' || type === 'video/3gpp') return 'video';
  if (['audio/aac', 'audio/amr', 'audio/mpeg', 'audio/mp4', 'audio/ogg'].includes(type)) return 'audio';
  return 'document';
}

function mediaBody(attachment: OutboundAttachment, caption: string | undefined): Record<string, unknown> {
  const type = whatsappMediaType(attachment.content_type);
  const object: Record<string, unknown> = { link: attachment.url };
  if (caption && type !== 'audio') object.caption = caption;
  if (type === 'document') object.filename = attachment.filename;
  return { type, [type]: object };
}

/** The request bodies (without the common envelope) one reply turns into, in sending order. */
export function whatsappParts(message: OutboundMessage): Record<string, unknown>[] {
  const text = message.text.trim();
  const [first, ...others] = message.attachments;
  const captionFits = first !== undefined && text !== '' && text.length <= WHATSAPP_CAPTION_LIMIT && whatsappMediaType(first.content_type) !== 'audio';
  const parts: Record<string, unknown>[] = [];
  if (text !== '' && !captionFits) {
    for (const body of splitText(text, WHATSAPP_TEXT_LIMIT)) parts.push({ type: 'text', text: { preview_url: false, body } });
  }
  if (first) parts.push(mediaBody(first, captionFits ? text : undefined));
  for (const attachment of others) parts.push(mediaBody(attachment, undefined));
  return parts;
}

function messageIdOf(answer: unknown): string {
  const id = (answer as { messages?: { id?: unknown }[] } | undefined)?.messages?.[0]?.id;
  if (typeof id !== 'string') throw new ConnectorError('transient', 'WhatsApp answered without a message id');
  return id;
}

/** A template message: the approved template by name and language, its body parameters as text. */
export function whatsappTemplatePart(template: NonNullable<OutboundMessage['template']>): Record<string, unknown> {
  return {
    type: 'template',
    template: {
      name: template.name,
      language: { code: template.language },
      ...(template.parameters.length > 0 ? { components: [{ type: 'body', parameters: template.parameters.map((text) => ({ type: 'text', text })) }] } : {}),
    },
  };
}

export async function sendWhatsAppMessage(config: WhatsAppSendConfig, message: OutboundMessage, metaGraph: string): Promise<SendResult> {
  const parts = message.template ? [whatsappTemplatePart(message.template)] : whatsappParts(message);
  if (parts.length === 0) throw new ConnectorError('permanent', 'Nothing to send: the message has no text and no attachments');
  const url = graphUrl(metaGraph, config.phone_number_id, 'messages');
  let externalId: string | undefined;
  for (const part of parts) {
    const answer = await graphPost('WhatsApp', url, config.access_token, {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: message.to.platformUserId,
      ...part,
    });
    externalId ??= messageIdOf(answer);
  }
  return { externalId: externalId! };
}
