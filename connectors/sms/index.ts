/**
 * SMS through Twilio (the `twilio` library). Inbound messages and status callbacks arrive as
 * form-encoded webhooks at /api/v1/webhooks/sms/{channel_id}, signed with the account's auth
 * token; sends go through the Messages API.
 */
// Only the signature check at load: the REST client (the whole twilio library) loads on first send.
import { validateRequest } from 'twilio/lib/webhooks/webhooks.js';
import { httpStatusError, networkError, parseRetryAfter } from '../http-errors.ts';
import { assertPlatformUrl, downloadMedia } from '../media.ts';
import { ConnectorError, type ConnectorContext, type OutboundMessage, type RegisterResult, type WebhookConnector } from '../types.ts';
import type { BaseUrlRequestClient } from './client.ts';
import { parseTwilioWebhook, twilioForm } from './parse.ts';

export type SmsConfig = { account_sid: string; auth_token: string; from_number: string };

/** What Parley answers every Twilio webhook: no auto-reply (replies are sent through the API). */
export const TWIML_EMPTY_RESPONSE = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';
export const TWIML_CONTENT_TYPE = 'text/xml';
export function twimlEmptyResponse(): { contentType: string; body: string } {
  return { contentType: TWIML_CONTENT_TYPE, body: TWIML_EMPTY_RESPONSE };
}

// Twilio error codes that arrive as 4xx but mean "try later": rate limit, queue full, queue overflow.
const transientTwilioCodes = new Set([20429, 21611, 30001]);

/** Anything the twilio library threw → ConnectorError. */
export function twilioError(error: unknown, httpClient?: BaseUrlRequestClient): ConnectorError {
  if (error instanceof ConnectorError) return error;
  const failure = error as { status?: unknown; code?: unknown; message?: unknown; detail?: unknown } | null;
  // RestException and TwilioServiceException carry the HTTP status; network errors do not (twilio
  // hands every HTTP answer back as a response, so axios only throws before one arrives).
  const status = failure?.status;
  if (typeof status === 'number' && status >= 400) {
    const code = typeof failure?.code === 'number' && failure.code > 0 ? failure.code : undefined;
    const text = [failure?.detail, failure?.message].find((value): value is string => typeof value === 'string' && value.trim() !== '');
    const message = text && code ? `${text} (Twilio error ${code})` : text;
    const retryAfter = parseRetryAfter(httpClient?.retryAfter);
    if (code && transientTwilioCodes.has(code)) return new ConnectorError('transient', message ?? `Twilio error ${code}`, retryAfter);
    return httpStatusError('Twilio', status, message, retryAfter);
  }
  return networkError('Twilio', error);
}

async function send(config: SmsConfig, message: OutboundMessage, context: Pick<ConnectorContext, 'baseUrl'>) {
  const { client, httpClient } = (await import('./client.ts')).createTwilioClient(config, context.baseUrl);
  const mediaUrl = message.attachments.map((attachment) => attachment.url);
  if (message.text.trim() === '' && mediaUrl.length === 0) throw new ConnectorError('permanent', 'An SMS needs text or an attachment');
  try {
    const sent = await client.messages.create({
      to: message.to.phone ?? message.to.platformUserId,
      from: config.from_number,
      body: message.text,
      ...(mediaUrl.length > 0 ? { mediaUrl } : {}),
      ...(message.statusCallbackUrl ? { statusCallback: message.statusCallbackUrl } : {}),
    });
    return { externalId: sent.sid };
  } catch (error) {
    throw twilioError(error, httpClient);
  }
}

/**
 * Points the sending number's incoming-SMS URL at this channel's webhook, so customers' replies
 * arrive without manual setup. Bad credentials → `error`; a `from_number` that is not a number of
 * the account (alphanumeric sender, messaging service) stays `connected`, with `sms_url_configured:
 * false`: its webhook must be set in Twilio's console. Unreachable Twilio → throws (the job retries).
 */
async function register(
  config: SmsConfig,
  input: { webhookUrl: string; state: Record<string, unknown> },
  context: Pick<ConnectorContext, 'baseUrl'>,
): Promise<RegisterResult> {
  const { client, httpClient } = (await import('./client.ts')).createTwilioClient(config, context.baseUrl);
  try {
    const numbers = await client.incomingPhoneNumbers.list({ phoneNumber: config.from_number, limit: 1 });
    const number = numbers[0];
    if (!number) return { status: 'connected', proven: false, state: { ...input.state, sms_url_configured: false } };
    await client.incomingPhoneNumbers(number.sid).update({ smsUrl: input.webhookUrl, smsMethod: 'POST' });
    return { status: 'connected', state: { ...input.state, sms_url_configured: true, phone_number_sid: number.sid } };
  } catch (error) {
    const failure = twilioError(error, httpClient);
    if (failure.kind === 'transient') throw failure;
    return { status: 'error', last_error: failure.message };
  }
}

const smsConnector: WebhookConnector<SmsConfig> = {
  type: 'sms',
  label: 'SMS',
  icon: { color: '#EA580C', path: 'M5 3h14v18H5z M9 18h6' },
  titleField: 'from_number',
  config: [
    { key: 'account_sid', rule: 'twilio_sid', required: true, label: 'Account SID' },
    { key: 'auth_token', required: true, secret: true, label: 'Auth token' },
    { key: 'from_number', required: true, label: 'Phone number', placeholder: '+15551234567' },
  ],
  // The number, without formatting: keeps a second channel from taking the number's messaging URL.
  routing: (config) => ({ routingKey: config.from_number.replace(/[\s().-]/g, ''), verifyToken: null }),
  duplicateAccountMessage: 'This phone number is already connected to a channel',
  webhook: {
    mode: 'channel',
    audience: 'platform',
    bodyLimit: 1024 * 1024,
    summary: 'SMS (Twilio): inbound messages and status callbacks',
    description: "`X-Twilio-Signature` is checked against PUBLIC_URL + path with the channel's auth token (401 otherwise). Answers empty TwiML.",
    errors: [401, 404, 413],
    verify(request, config) {
      const signature = request.headers['x-twilio-signature'];
      if (!signature) return false;
      try {
        return validateRequest(config.auth_token, signature, request.url, twilioForm(request));
      } catch {
        // validateRequest throws on a URL it cannot parse: not a request Twilio signed.
        return false;
      }
    },
    parse(request) {
      return parseTwilioWebhook(twilioForm(request));
    },
    reply: twimlEmptyResponse(),
  },
  setup: {
    intro: "From the Twilio console: your account SID, auth token and the number customers text. Parley points the number's messaging URL at itself.",
    steps: [
      'In the Twilio console, copy the account SID and auth token.',
      'Enter the number customers text (a number of that account), in international format.',
    ],
    afterConnect: {
      text: 'Parley sets this as your Twilio number\'s "A message comes in" URL (set it by hand if registration fails):',
      values: [{ label: 'Messaging URL', source: 'webhook_url' }],
    },
  },
  baseUrl: { env: 'TWILIO_API_URL', description: "Twilio API base URL (unset: Twilio's own hosts)" },
  send,
  register,
  // MediaUrl on Twilio's API host, read with the account's credentials (HTTP Basic); Twilio
  // redirects to its CDN, where fetch drops the Authorization header.
  fetchMedia: async (config, attachment, context) => {
    if (!attachment.url) throw new ConnectorError('permanent', 'Twilio sent no MediaUrl');
    const url = assertPlatformUrl('Twilio', attachment.url, ['twilio.com'], context.baseUrl || 'https://api.twilio.com');
    const basic = Buffer.from(`${config.account_sid}:${config.auth_token}`).toString('base64');
    return downloadMedia('Twilio', url.toString(), { authorization: `Basic ${basic}` });
  },
};

export default smsConnector;
