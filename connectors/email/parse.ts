/**
 * One raw RFC 822 message (from the raw-MIME webhook or an IMAP fetch) → an InboundMessage.
 * Message-IDs keep their angle brackets everywhere (`<id@host>`), as mailparser gives them and as
 * Parley sets its own, so inbound references match the external ids of sent replies.
 */
import { createHash } from 'node:crypto';
import type { AddressObject, ParsedMail } from 'mailparser';
import type { EmailAddress, InboundAttachment, InboundMessage } from '../types.ts';
import { sanitizeEmailHtml } from '../../lib/email-html.ts';

/** Recipients kept per header (To, Cc): a mail to a mailing list of thousands keeps its first ones. */
export const MAX_KEPT_RECIPIENTS = 50;

/** Every address of a To/Cc header, groups flattened, lower-cased, without repeats. */
export function addressesOf(header: AddressObject | AddressObject[] | undefined): EmailAddress[] {
  const list = Array.isArray(header) ? header : header ? [header] : [];
  const seen = new Map<string, EmailAddress>();
  for (const group of list) {
    for (const entry of group.value) {
      for (const candidate of entry.group ? entry.group : [entry]) {
        const address = candidate.address?.trim().toLowerCase();
        if (!address || !address.includes('@') || address.length > 254 || seen.has(address)) continue;
        const name = candidate.name?.trim().slice(0, 200);
        seen.set(address, name ? { address, name } : { address });
      }
    }
  }
  return [...seen.values()].slice(0, MAX_KEPT_RECIPIENTS);
}

/** `<id@host>` for an id with or without brackets; undefined for an empty one. */
export function normalizeMessageId(value: string | undefined | null): string | undefined {
  const trimmed = value?.trim();
  if (!trimmed) return undefined;
  const bare = trimmed.replace(/^<+/, '').replace(/>+$/, '').trim();
  return bare === '' ? undefined : `<${bare}>`;
}

/** All Message-IDs in a References / In-Reply-To header value (or mailparser's array of them). */
export function messageIdsIn(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  const ids = (Array.isArray(value) ? value : [value]).flatMap((part) => part.match(/<[^<>\s]+>/g) ?? part.split(/[\s,]+/));
  return ids.map((id) => normalizeMessageId(id)).filter((id): id is string => id !== undefined);
}

/** In-Reply-To first, then References nearest parent first, without repeats. */
export function referencesOf(mail: Pick<ParsedMail, 'inReplyTo' | 'references'>): string[] {
  const ordered = [...messageIdsIn(mail.inReplyTo), ...messageIdsIn(mail.references).reverse()];
  return [...new Set(ordered)];
}

function firstAddress(from: AddressObject | AddressObject[] | undefined): { address: string; name?: string } | undefined {
  const list = Array.isArray(from) ? from : from ? [from] : [];
  for (const group of list) {
    for (const entry of group.value) {
      // A group ("undisclosed-recipients:;") nests its members.
      const candidates = entry.group ? entry.group : [entry];
      for (const candidate of candidates) {
        if (candidate.address) return { address: candidate.address.trim(), ...(candidate.name?.trim() ? { name: candidate.name.trim() } : {}) };
      }
    }
  }
  return undefined;
}

/**
 * The new part of a reply: drops a trailing quote introduced by "On … wrote:" (possibly wrapped
 * over two lines) or "-----Original Message-----", and trailing "> " lines. Keeps the whole text
 * when nothing would remain.
 */
export function stripQuotedReply(text: string): string {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  let end = lines.length;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    const wrapped = `${line} ${lines[i + 1]?.trim() ?? ''}`;
    if (/^-{2,}\s*Original Message\s*-{2,}$/i.test(line) || (/^On\b.{0,200}\bwrote:$/i.test(line) && restIsQuoted(lines, i + 1))) {
      end = i;
      break;
    }
    if (/^On\b.{0,200}\bwrote:$/i.test(wrapped) && !/wrote:$/i.test(line) && restIsQuoted(lines, i + 2)) {
      end = i;
      break;
    }
  }
  while (end > 0 && /^\s*(>.*)?$/.test(lines[end - 1])) end--;
  const kept = lines.slice(0, end).join('\n').trim();
  return kept === '' ? text.trim() : kept;
}

function restIsQuoted(lines: string[], from: number): boolean {
  const rest = lines.slice(from).filter((line) => line.trim() !== '');
  return rest.length > 0 && rest.every((line) => line.trimStart().startsWith('>'));
}

/**
 * Out-of-office answers, bounces and other machine mail (RFC 3834 `Auto-Submitted`, and the
 * common non-standard markers): answering them (the AI agent would) can loop with the sender.
 */
export function isAutomatic(headers: ParsedMail['headers']): boolean {
  const text = (name: string) => {
    const value = headers.get(name);
    return typeof value === 'string' ? value.trim().toLowerCase() : value === undefined ? undefined : JSON.stringify(value).toLowerCase();
  };
  const autoSubmitted = text('auto-submitted');
  if (autoSubmitted !== undefined && !autoSubmitted.startsWith('no')) return true;
  if (headers.has('x-autoreply') || headers.has('x-autorespond')) return true;
  const precedence = text('precedence');
  return precedence === 'auto_reply' || precedence === 'junk';
}

/**
 * Parses a raw message. Null when it has no sender address (nothing to reply to) or is automatic
 * mail (see isAutomatic). A message without a Message-ID gets one derived from its bytes, so a
 * redelivery still matches.
 */
/** Mail parts kept for download (MAX_ATTACHMENT_BYTES's default; the worker applies the setting). */
export const MAX_MAIL_PART_BYTES = 25 * 1024 * 1024;

export async function parseRawEmail(source: Buffer, now: Date = new Date()): Promise<InboundMessage | null> {
  // Loaded on first use: most API processes never receive a mail, and mailparser is large.
  const { simpleParser } = await import('mailparser');
  const mail = await simpleParser(source, { skipImageLinks: true, skipTextToHtml: true });
  const sender = firstAddress(mail.from);
  if (!sender || isAutomatic(mail.headers)) return null;
  const externalId = normalizeMessageId(mail.messageId) ?? `<${createHash('sha256').update(source).digest('hex')}@parley.invalid>`;
  // mailparser fills `text` from the HTML part when there is no plain-text part.
  const body = mail.text ?? '';
  const attachments: InboundAttachment[] = mail.attachments.map((attachment) => ({
    ...(attachment.filename ? { filename: attachment.filename } : {}),
    content_type: attachment.contentType,
    size: attachment.size,
    // The bytes travel in the stored event to fetch_attachment (never into the message row).
    ...(attachment.content.length <= MAX_MAIL_PART_BYTES ? { content_base64: attachment.content.toString('base64') } : {}),
  }));
  const message: InboundMessage = {
    kind: 'message',
    externalId,
    from: { platformUserId: sender.address.toLowerCase(), email: sender.address.toLowerCase(), ...(sender.name ? { name: sender.name } : {}) },
    text: stripQuotedReply(body),
    attachments,
    sentAt: (mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date : now).toISOString(),
    references: referencesOf(mail),
  };
  if (mail.subject) message.subject = mail.subject.trim();
  // The HTML part (when there is one) sanitized now, once: only the safe version is ever stored.
  const html = typeof mail.html === 'string' ? await sanitizeEmailHtml(mail.html) : null;
  message.email = {
    to: addressesOf(mail.to),
    cc: addressesOf(mail.cc),
    ...(html ? { html: html.html, remote_images: html.remoteImages } : {}),
  };
  return message;
}
