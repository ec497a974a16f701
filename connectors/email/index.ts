/**
 * E-mail: replies by SMTP; customer mail by IMAP polling (when `imap_host` is set) or posted as
 * raw RFC 822 to /api/v1/webhooks/email/{channel_id} with the channel's secret (for mail
 * services that forward inbound mail to a URL).
 */
import { timingSafeEqual } from 'node:crypto';
import { ConnectorError, type ChannelConfig, type ConfigField, type ConnectorContext, type RegisterResult, type WebhookConnector } from '../types.ts';
import { imapSettings, type EmailConfig, type ImapSettings } from './config.ts';
import { parseRawEmail } from './parse.ts';
import { bufferDownload } from '../media.ts';
import { inboxEnd, openImapInbox, pollInbox, positionOf, type OpenInbox } from './poll.ts';
import { createSmtpTransport, sendEmail, smtpError } from './send.ts';
import { mailServer } from './servers.ts';

export type { EmailConfig } from './config.ts';
export { parseRawEmail } from './parse.ts';

/** The header carrying the channel's webhook secret (a `secret` query parameter also works). */
export const EMAIL_WEBHOOK_SECRET_HEADER = 'x-parley-webhook-secret';

function sameSecret(received: string, expected: string): boolean {
  const a = Buffer.from(received, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

function receivedSecret(request: { url: string; headers: Record<string, string | undefined> }): string | undefined {
  const header = request.headers[EMAIL_WEBHOOK_SECRET_HEADER];
  if (header) return header;
  try {
    return new URL(request.url).searchParams.get('secret') ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks the SMTP credentials (a refusal is `error`), and with IMAP settings opens INBOX to start
 * reading at its current end (`mode: 'polling'`); the mailbox's older mail is not imported.
 * Re-registering the same mailbox keeps its position. An unreachable server throws (retried).
 */
export function createRegister(openInbox: OpenInbox) {
  return async (config: EmailConfig, input: { secret: string; state: Record<string, unknown> }, context: ConnectorContext): Promise<RegisterResult> => {
    try {
      const transport = await createSmtpTransport(config, await mailServer('smtp_host', config.smtp_host, context, 'permanent'));
      try {
        await transport.verify();
      } finally {
        transport.close();
      }
    } catch (error) {
      const failure = smtpError(error);
      if (failure.kind === 'transient') throw failure;
      return { status: 'error', last_error: failure.message };
    }
    const state: Record<string, unknown> = { ...input.state, webhook_secret: input.state.webhook_secret ?? input.secret };
    const imap = imapSettings(config);
    if (!imap) return { status: 'connected', state: { ...state, mode: 'webhook' } };
    try {
      const end = await inboxEnd(openInbox, await checkedImap(imap, context, 'permanent'));
      const kept = positionOf(input.state);
      const position = kept && kept.uidValidity === end.uidValidity ? kept : end;
      return { status: 'connected', state: { ...state, mode: 'polling', ...position } };
    } catch (error) {
      if (error instanceof ConnectorError && error.kind === 'permanent') return { status: 'error', last_error: error.message };
      throw error;
    }
  };
}

/** The IMAP settings with `host` replaced by its checked address (servers.ts). */
async function checkedImap(imap: ImapSettings, context: ConnectorContext, unresolved: ConnectorError['kind']): Promise<ImapSettings> {
  const server = await mailServer('imap_host', imap.host, context, unresolved);
  return { ...imap, host: server.address, servername: server.servername };
}

const imapFields: ConfigField[] = [
  { key: 'imap_host', required: false, host: true, label: 'IMAP host' },
  { key: 'imap_port', rule: 'port', required: false, label: 'IMAP port', placeholder: '993' },
  { key: 'imap_user', required: false, label: 'IMAP user' },
  { key: 'imap_password', required: false, secret: true, label: 'IMAP password' },
];

const isGiven = (value: unknown) => value !== undefined && value !== null && !(typeof value === 'string' && value.trim() === '');

/** The connector with another IMAP session opener (tests). */
export function createEmailConnector(openInbox: OpenInbox = openImapInbox): WebhookConnector<EmailConfig> {
  const register = createRegister(openInbox);
  return {
    type: 'email',
    label: 'E-mail',
    icon: { color: '#2563EB', path: 'M3 6h18v12H3z M3 7l9 6 9-6' },
    titleField: 'address',
    threaded: true,
    config: [
      { key: 'address', rule: 'email', required: true, label: 'Support address', placeholder: 'support@acme.com' },
      { key: 'smtp_host', required: true, host: true, label: 'SMTP host' },
      { key: 'smtp_port', rule: 'port', required: true, label: 'SMTP port', placeholder: '587' },
      { key: 'smtp_user', required: true, label: 'SMTP user' },
      { key: 'smtp_password', required: true, secret: true, label: 'SMTP password' },
      ...imapFields,
      { key: 'signature', required: false, multiline: true, label: 'Signature', placeholder: 'Acme Support · acme.com' },
    ],
    normalize: {
      // IMAP is optional, but once any IMAP field is given the mailbox must be reachable.
      alsoRequired: (input) => (imapFields.some((f) => isGiven(input[f.key])) ? ['imap_host', 'imap_user', 'imap_password'] : []),
      complete: (config: ChannelConfig) => (config.imap_host && !config.imap_port ? { ...config, imap_port: '993' } : config),
    },
    duplicateAccountMessage: 'This account is already connected to a channel',
    webhook: {
      mode: 'channel',
      audience: 'owner',
      bodyLimit: 25 * 1024 * 1024,
      summary: 'E-mail: one raw MIME message (for mail providers that forward by HTTP)',
      description:
        "The body is the RFC 822 message (any content type, at most 25 MiB). Header `X-Parley-Webhook-Secret` must be the channel's webhook secret (shown to owners in the channel's `webhook_secret`); 401 otherwise.",
      errors: [401, 404, 413],
      verify(request, _config, state) {
        const expected = state.webhook_secret;
        const received = receivedSecret(request);
        if (typeof expected !== 'string' || expected === '' || !received) return false;
        return sameSecret(received, expected);
      },
      async parse(request) {
        const message = await parseRawEmail(request.rawBody);
        return message ? [message] : [];
      },
    },
    setup: {
      intro:
        'Replies go out through your SMTP server. Incoming mail is read over IMAP, or forwarded by your mail provider to the address shown after connecting.',
      steps: [
        'Enter the support address and the SMTP server your replies are sent through.',
        'To read incoming mail over IMAP, enter the IMAP server, user and password too.',
        'Without IMAP, have your mail provider forward incoming mail to the inbound webhook shown after connecting, with its secret.',
      ],
      afterConnect: {
        text: 'To forward mail instead of IMAP, have your provider post raw messages to this URL with the secret in the X-Parley-Webhook-Secret header:',
        values: [
          { label: 'Forwarding URL', source: 'inbound_webhook.url' },
          { label: 'Secret', source: 'inbound_webhook.secret' },
        ],
      },
    },
    send: (config, message, context) => sendEmail(config, message, context),
    // The bytes came with the mail: parse kept them in the stored event (content_base64).
    fetchMedia: async (_config, attachment) => {
      if (!attachment.content_base64) throw new ConnectorError('permanent', 'The mail part was not kept (larger than 25 MB)');
      return bufferDownload(Buffer.from(attachment.content_base64, 'base64'), attachment.content_type);
    },
    register: (config, input, context) => register(config, input, context),
    async poll(config: EmailConfig, state: Record<string, unknown>, context: ConnectorContext) {
      const imap = imapSettings(config);
      if (!imap) return { events: [], state };
      return pollInbox(openInbox, await checkedImap(imap, context, 'transient'), state);
    },
  };
}

const emailConnector: WebhookConnector<EmailConfig> = createEmailConnector();

export default emailConnector;
