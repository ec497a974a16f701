/**
 * E-mail: replies by SMTP; customer mail by IMAP polling (when `imap_host` is set) or posted as
 * raw RFC 822 to /api/v1/webhooks/email/{channel_id} with the channel's secret (for mail
 * services that forward inbound mail to a URL).
 */
import { timingSafeEqual } from 'node:crypto';
import { ConnectorError, type Connector, type ConnectorContext, type RegisterResult } from '../types.ts';
import { emailConfigSchema, imapSettings, type EmailConfig, type ImapSettings } from './config.ts';
import { parseRawEmail } from './parse.ts';
import { inboxEnd, openImapInbox, pollInbox, positionOf, type OpenInbox } from './poll.ts';
import { createSmtpTransport, sendEmail, smtpError } from './send.ts';
import { mailServer } from './servers.ts';

export { emailConfigSchema, type EmailConfig } from './config.ts';
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

/** The connector with another IMAP session opener (tests). */
export function createEmailConnector(openInbox: OpenInbox = openImapInbox): Connector<EmailConfig> {
  const register = createRegister(openInbox);
  return {
    type: 'email',
    configSchema: emailConfigSchema,
    secretFields: ['smtp_password', 'imap_password'],
    verifyWebhook(request, _config, state) {
      const expected = state.webhook_secret;
      const received = receivedSecret(request);
      if (typeof expected !== 'string' || expected === '' || !received) return false;
      return sameSecret(received, expected);
    },
    async parseWebhook(request) {
      const message = await parseRawEmail(request.rawBody);
      return message ? [message] : [];
    },
    send: (config, message, context) => sendEmail(config, message, context),
    register: (config, input, context) => register(config, input, context),
    async poll(config: EmailConfig, state: Record<string, unknown>, context: ConnectorContext) {
      const imap = imapSettings(config);
      if (!imap) return { events: [], state };
      return pollInbox(openInbox, await checkedImap(imap, context, 'transient'), state);
    },
  };
}

const emailConnector: Connector<EmailConfig> = createEmailConnector();

export default emailConnector;
