/**
 * SMS through Twilio (the `twilio` library). Inbound messages and status callbacks arrive as
 * form-encoded webhooks at /api/v1/webhooks/sms/{channel_id}, signed with the account's auth
 * token; sends go through the Messages API.
 */
// Only the signature check at load: the REST client (the whole twilio library) loads on first send.
import { validateRequest } from 'twilio/lib/webhooks/webhooks.js';
import { z } from 'zod';
import { httpStatusError, networkError, parseRetryAfter } from '../http-errors.ts';
import { ConnectorError, type Connector, type OutboundMessage, type RegisterResult } from '../types.ts';
import type { BaseUrlRequestClient } from './client.ts';
import { parseTwilioWebhook, twilioForm } from './parse.ts';

export const smsConfigSchema = z.object({
  account_sid: z.string().trim().startsWith('AC', 'account_sid must start with AC'),
  auth_token: z.string().trim().min(1),
  from_number: z.string().trim().min(1),
});
export type SmsConfig = z.infer<typeof smsConfigSchema>;

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

async function send(config: SmsConfig, message: OutboundMessage, context: { urls: { twilio?: string } }) {
  const { client, httpClient } = (await import('./client.ts')).createTwilioClient(config, context.urls.twilio);
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
  context: { urls: { twilio?: string } },
): Promise<RegisterResult> {
  const { client, httpClient } = (await import('./client.ts')).createTwilioClient(config, context.urls.twilio);
  try {
    const numbers = await client.incomingPhoneNumbers.list({ phoneNumber: config.from_number, limit: 1 });
    const number = numbers[0];
    if (!number) return { status: 'connected', state: { ...input.state, sms_url_configured: false } };
    await client.incomingPhoneNumbers(number.sid).update({ smsUrl: input.webhookUrl, smsMethod: 'POST' });
    return { status: 'connected', state: { ...input.state, sms_url_configured: true, phone_number_sid: number.sid } };
  } catch (error) {
    const failure = twilioError(error, httpClient);
    if (failure.kind === 'transient') throw failure;
    return { status: 'error', last_error: failure.message };
  }
}

const smsConnector: Connector<SmsConfig> = {
  type: 'sms',
  configSchema: smsConfigSchema,
  secretFields: ['auth_token'],
  verifyWebhook(request, config) {
    const signature = request.headers['x-twilio-signature'];
    if (!signature) return false;
    try {
      return validateRequest(config.auth_token, signature, request.url, twilioForm(request));
    } catch {
      // validateRequest throws on a URL it cannot parse: not a request Twilio signed.
      return false;
    }
  },
  parseWebhook(request) {
    return parseTwilioWebhook(twilioForm(request));
  },
  send,
  register,
};

export default smsConnector;
