/**
 * Twilio's form-encoded webhooks → normalized events. One URL receives both the customer's
 * messages and the status callbacks of messages Parley sent; the `MessageStatus` value tells
 * them apart (an inbound message is `received`, an outbound one anything else).
 */
import type { DeliveryReceipt, InboundAttachment, InboundEvent, InboundMessage, WebhookRequest } from '../types.ts';

/** The form fields of a Twilio webhook: the parsed form, or the raw body parsed as a form. */
export function twilioForm(request: WebhookRequest): Record<string, string> {
  if (request.form) return request.form;
  return Object.fromEntries(new URLSearchParams(request.rawBody.toString('utf8')));
}

const receiptStatuses: Record<string, DeliveryReceipt['status'] | null> = {
  // Still on Twilio's side: nothing new to tell the agent.
  accepted: null,
  scheduled: null,
  queued: null,
  sending: null,
  sent: 'sent',
  delivered: 'delivered',
  read: 'read',
  undelivered: 'failed',
  failed: 'failed',
  canceled: 'failed',
};

export function parseTwilioWebhook(form: Record<string, string>, now: Date = new Date()): InboundEvent[] {
  const sid = form.MessageSid ?? form.SmsSid;
  if (!sid) return [];
  const status = (form.MessageStatus ?? form.SmsStatus ?? '').toLowerCase();
  if (status in receiptStatuses) {
    const receipt = parseReceipt(form, sid, status, now);
    return receipt ? [receipt] : [];
  }
  if (!form.From) return [];
  return [parseMessage(form, sid, now)];
}

function parseReceipt(form: Record<string, string>, sid: string, status: string, now: Date): DeliveryReceipt | null {
  const mapped = receiptStatuses[status];
  if (!mapped) return null;
  const receipt: DeliveryReceipt = { kind: 'receipt', externalId: sid, status: mapped, at: now.toISOString() };
  if (form.From) receipt.routingKey = form.From;
  if (mapped === 'failed') receipt.error = failureReason(form, status);
  return receipt;
}

function failureReason(form: Record<string, string>, status: string): string {
  const code = form.ErrorCode?.trim();
  const text = form.ErrorMessage?.trim();
  if (code && text) return `${text} (Twilio error ${code})`;
  if (text) return text;
  if (code) return `Twilio error ${code}`;
  return `Message ${status}`;
}

function parseMessage(form: Record<string, string>, sid: string, now: Date): InboundMessage {
  const message: InboundMessage = {
    kind: 'message',
    externalId: sid,
    from: { platformUserId: form.From, phone: form.From },
    text: form.Body ?? '',
    attachments: parseMedia(form),
    // Twilio does not say when the customer sent it: it posts within seconds of receiving it.
    sentAt: now.toISOString(),
  };
  if (form.To) message.routingKey = form.To;
  return message;
}

function parseMedia(form: Record<string, string>): InboundAttachment[] {
  const count = Math.min(Number.parseInt(form.NumMedia ?? '0', 10) || 0, 10);
  const attachments: InboundAttachment[] = [];
  for (let i = 0; i < count; i++) {
    const url = form[`MediaUrl${i}`];
    if (!url) continue;
    const attachment: InboundAttachment = { url };
    const contentType = form[`MediaContentType${i}`];
    if (contentType) attachment.content_type = contentType;
    attachments.push(attachment);
  }
  return attachments;
}
