/**
 * X's webhook cryptography, both keyed with the app's consumer secret (`api_secret`): the CRC
 * answer X asks for when registering and then hourly, and the signature on every event.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

function hmac(apiSecret: string, data: string | Buffer): string {
  return 'sha256=' + createHmac('sha256', apiSecret).update(data).digest('base64');
}

/** The `response_token` for `GET ?crc_token=…`: answer `{response_token}` as JSON. */
export function crcResponseToken(apiSecret: string, crcToken: string): string {
  return hmac(apiSecret, crcToken);
}

/** The `x-twitter-webhooks-signature` X sends with `rawBody`. */
export function webhookSignature(apiSecret: string, rawBody: Buffer): string {
  return hmac(apiSecret, rawBody);
}

/** Constant-time check of a received `x-twitter-webhooks-signature`. */
export function verifyWebhookSignature(apiSecret: string, rawBody: Buffer, header: string | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(webhookSignature(apiSecret, rawBody));
  const received = Buffer.from(header.trim());
  return received.length === expected.length && timingSafeEqual(received, expected);
}
