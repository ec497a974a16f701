/**
 * Replies by SMTP (nodemailer). Parley sets the Message-ID itself (`<message uuid@address
 * domain>`, the external id) and threads the reply with In-Reply-To / References so it lands in
 * the customer's existing conversation in their mail client.
 */
import { ConnectorError, type ConnectorContext, type EmailAddress, type ForwardedMessage, type OutboundMessage, type SendResult } from '../types.ts';
import { escapeHtml, textToHtml } from '../../lib/email-html.ts';
import type { EmailConfig } from './config.ts';
import { mailServer, type MailServer } from './servers.ts';
import { normalizeMessageId } from './parse.ts';

/** At most this many Message-IDs in References: the first (thread root) and the latest ones. */
const MAX_REFERENCES = 20;

/**
 * A transport to `server`: the checked address of `smtp_host` (servers.ts). nodemailer loads on
 * first use: the API process only receives mail.
 */
export async function createSmtpTransport(config: EmailConfig, server: MailServer) {
  const { default: nodemailer } = await import('nodemailer');
  const port = Number(config.smtp_port);
  return nodemailer.createTransport({
    host: server.address,
    ...(server.servername ? { tls: { servername: server.servername } } : {}),
    port,
    // 465 is TLS from the first byte; other ports upgrade with STARTTLS when the server offers it.
    secure: port === 465,
    auth: { user: config.smtp_user, pass: config.smtp_password },
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 30_000,
    // Attachments are fetched from their URLs only; never read a local file named by a message.
    disableFileAccess: true,
  });
}

function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1) || 'parley.invalid';
}

/** `<uuid@domain>`: what the message's external id will be. */
export function outboundMessageId(config: Pick<EmailConfig, 'address'>, message: Pick<OutboundMessage, 'messageId'>): string {
  return `<${message.messageId}@${domainOf(config.address)}>`;
}

/** "Re: <subject>" on a reply; a new thread takes the subject, or the text's first line. */
export function replySubject(message: OutboundMessage): string {
  const subject = message.thread?.subject?.trim();
  const isReply = (message.thread?.references.length ?? 0) > 0;
  if (subject) return isReply && !/^re:/i.test(subject) ? `Re: ${subject}` : subject;
  const firstLine = message.text.trim().split('\n')[0]?.trim() ?? '';
  const base = firstLine === '' ? 'Message from support' : firstLine.length > 78 ? `${firstLine.slice(0, 77)}…` : firstLine;
  return isReply ? `Re: ${base}` : base;
}

export function threadHeaders(message: OutboundMessage): { inReplyTo?: string; references?: string[] } {
  const ids = [...new Set((message.thread?.references ?? []).map(normalizeMessageId).filter((id): id is string => id !== undefined))];
  if (ids.length === 0) return {};
  const references = ids.length > MAX_REFERENCES ? [ids[0], ...ids.slice(ids.length - MAX_REFERENCES + 1)] : ids;
  return { inReplyTo: ids[ids.length - 1], references };
}

/** nodemailer/SMTP failure → ConnectorError: 5xx replies and bad credentials are permanent. */
export function smtpError(error: unknown): ConnectorError {
  if (error instanceof ConnectorError) return error;
  const failure = error as { code?: unknown; responseCode?: unknown; response?: unknown; message?: unknown } | null;
  const code = typeof failure?.code === 'string' ? failure.code : undefined;
  const responseCode = typeof failure?.responseCode === 'number' ? failure.responseCode : undefined;
  const reply = typeof failure?.response === 'string' && failure.response.trim() !== '' ? failure.response.trim() : undefined;
  const text = typeof failure?.message === 'string' ? failure.message : String(error);
  const transientReply = responseCode !== undefined && responseCode >= 400 && responseCode < 500;
  // 454 is a temporary authentication failure; any other refused login is the credentials.
  if ((code === 'EAUTH' || code === 'ENOAUTH') && !transientReply) return new ConnectorError('permanent', `SMTP authentication failed: ${reply ?? text}`);
  if (transientReply) return new ConnectorError('transient', `SMTP: ${reply ?? text}`);
  if (responseCode !== undefined && responseCode >= 500) return new ConnectorError('permanent', `SMTP: ${reply ?? text}`);
  // Refused before talking to the server: a bad attachment or envelope will not improve with retries.
  if (code === 'EENVELOPE' || code === 'EMESSAGE' || code === 'ECONFIG' || code === 'EURLACCESS' || code === 'EFILEACCESS')
    return new ConnectorError('permanent', `SMTP: ${text}`);
  return new ConnectorError('transient', `SMTP server unreachable: ${text}`);
}

/** nodemailer's address form, without repeats and without `except` (the support address, the customer). */
function recipients(list: EmailAddress[], except: string[]): { name: string; address: string }[] | string[] {
  const skip = new Set(except.map((a) => a.toLowerCase()));
  const out: EmailAddress[] = [];
  for (const entry of list) {
    const address = entry.address.toLowerCase();
    if (!address.includes('@') || skip.has(address)) continue;
    skip.add(address);
    out.push(entry);
  }
  return out.map((entry) => (entry.name ? { name: entry.name, address: entry.address } : entry.address)) as { name: string; address: string }[];
}

/** The standard signature separator ("-- " on its own line) and the signature, as text and as HTML. */
export function withSignature(text: string, signature: string | undefined): { text: string; html: string } {
  const html = textToHtml(text);
  if (!signature) return { text, html };
  return { text: `${text}\n\n-- \n${signature}`, html: `${html}\n<div class="signature" style="color:#555555">-- <br>\n${textToHtml(signature)}</div>` };
}

/** A forward: the agent's note, then each quoted message under a "Forwarded message" header. */
export function forwardBody(note: string, messages: ForwardedMessage[], signature: string | undefined, subject: string): { text: string; html: string } {
  const head = withSignature(note.trim(), signature);
  const text = [
    ...(note.trim() || signature ? [head.text, ''] : []),
    ...messages.flatMap((m) => ['---------- Forwarded message ---------', `From: ${m.from}`, `Date: ${m.date}`, `Subject: ${subject}`, '', m.text, '']),
  ].join('\n');
  const html = [
    ...(note.trim() || signature ? [head.html] : []),
    ...messages.map(
      (m) =>
        `<div class="forwarded" style="margin-top:16px">---------- Forwarded message ---------<br>From: ${escapeHtml(m.from)}<br>Date: ${escapeHtml(m.date)}<br>Subject: ${escapeHtml(subject)}<br><br>` +
        `<blockquote style="margin:0 0 0 8px;border-left:2px solid #cccccc;padding-left:8px">${m.html ?? textToHtml(m.text)}</blockquote></div>`,
    ),
  ].join('\n');
  return { text, html };
}

/**
 * One mail: a reply to the customer (threaded, Cc and Bcc as stored, signature appended) or a
 * forward to outside addresses (a new thread: "Fwd:" subject, no In-Reply-To). Always multipart
 * text + HTML (the HTML made from the text: the agent writes plain text).
 */
export async function sendEmail(config: EmailConfig, message: OutboundMessage, context: Pick<ConnectorContext, 'allowPrivateHosts'>): Promise<SendResult> {
  const customer = message.to.email ?? message.to.platformUserId;
  const forward = message.email?.forward;
  if (!forward && !customer.includes('@')) throw new ConnectorError('permanent', `Not an e-mail address: ${customer}`);
  const attachments = message.attachments.map((attachment) => {
    if (!/^https?:\/\//i.test(attachment.url)) throw new ConnectorError('permanent', `Attachment URL must be http(s): ${attachment.filename}`);
    return { filename: attachment.filename, contentType: attachment.content_type, href: attachment.url };
  });
  const messageId = outboundMessageId(config, message);
  const signature = message.email?.signature;
  let envelope: { to: unknown; cc?: unknown; bcc?: unknown; subject: string; text: string; html: string; inReplyTo?: string; references?: string[] };
  if (forward) {
    const to = recipients(forward.to, [config.address]);
    if (to.length === 0) throw new ConnectorError('permanent', 'The forward has no recipient');
    const subject = message.thread?.subject?.trim() || 'Conversation';
    envelope = { to, subject: /^fwd?:/i.test(subject) ? subject : `Fwd: ${subject}`, ...forwardBody(message.text, forward.messages, signature, subject) };
  } else {
    const except = [config.address, customer];
    const cc = recipients(message.email?.cc ?? [], except);
    const bcc = recipients(message.email?.bcc ?? [], [...except, ...(message.email?.cc ?? []).map((a) => a.address)]);
    envelope = {
      to: message.to.name ? { name: message.to.name, address: customer } : customer,
      ...(cc.length ? { cc } : {}),
      ...(bcc.length ? { bcc } : {}),
      subject: replySubject(message),
      ...withSignature(message.text, signature),
      ...threadHeaders(message),
    };
  }
  const transport = await createSmtpTransport(config, await mailServer('smtp_host', config.smtp_host, context, 'transient'));
  try {
    await transport.sendMail({ from: config.address, ...envelope, messageId, attachments } as Parameters<typeof transport.sendMail>[0]);
    return { externalId: messageId };
  } catch (error) {
    throw smtpError(error);
  } finally {
    transport.close();
  }
}
