/**
 * Sends one Parley reply as Instagram direct messages: the text (split at Instagram's 1,000
 * UTF-8 bytes), then each attachment by URL (Instagram fetches it, so upload URLs must be
 * publicly reachable; it has no captions). The first message's id is the reply's external id.
 */
import { ConnectorError, type OutboundMessage, type SendResult } from '../types.ts';
import { graphPost, graphUrl } from '../meta.ts';
import { splitText } from '../split-text.ts';

export type InstagramSendConfig = { access_token: string; instagram_business_account_id: string };

export const INSTAGRAM_TEXT_LIMIT_BYTES = 1000;

export function instagramAttachmentType(contentType: string): 'image' | 'video' | 'audio' | 'file' {
  const type = contentType.toLowerCase();
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('video/')) return 'video';
  if (type.startsWith('audio/')) return 'audio';
  return 'file';
}

/** The `message` objects one reply turns into, in sending order. */
export function instagramParts(message: OutboundMessage): Record<string, unknown>[] {
  const parts: Record<string, unknown>[] = [];
  const text = message.text.trim();
  if (text !== '') for (const part of splitText(text, INSTAGRAM_TEXT_LIMIT_BYTES, 'utf8')) parts.push({ text: part });
  for (const attachment of message.attachments) {
    parts.push({ attachment: { type: instagramAttachmentType(attachment.content_type), payload: { url: attachment.url } } });
  }
  return parts;
}

export async function sendInstagramMessage(config: InstagramSendConfig, message: OutboundMessage, instagramGraph: string): Promise<SendResult> {
  const parts = instagramParts(message);
  if (parts.length === 0) throw new ConnectorError('permanent', 'Nothing to send: the message has no text and no attachments');
  const url = graphUrl(instagramGraph, config.instagram_business_account_id, 'messages');
  let externalId: string | undefined;
  for (const part of parts) {
    const answer = await graphPost('Instagram', url, config.access_token, { recipient: { id: message.to.platformUserId }, message: part });
    const id = (answer as { message_id?: unknown } | undefined)?.message_id;
    if (typeof id !== 'string') throw new ConnectorError('transient', 'Instagram answered without a message id');
    externalId ??= id;
  }
  return { externalId: externalId! };
}
