/**
 * X's webhook cryptography, both keyed with the app's consumer secret (`api_secret`): the CRC
 * answer X asks for when registering and then hourly, and the signature on every event.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

function hmac(apiSecret: string, data: string | Buffer): string {
  return 'sha256=' + createHmac('sha256', apiSecret).update(data).digest('base64');
}

/**
 * What X sends as `crc_token`: a short base64 or base64url string (today the base64 of a UUID,
 * 48 characters). The CRC answer is the same HMAC X puts on event posts, so answering any text
 * would let a caller have a forged JSON body signed: only tokens of X's shape are answered, and
 * they can never be a post body (no `{`, at most 128 characters).
 */
export const CRC_TOKEN_PATTERN = /^[A-Za-z0-9+/_=-]{1,128}$/;

export const isCrcToken = (value: string): boolean => CRC_TOKEN_PATTERN.test(value);

/** The `response_token` for `GET ?crc_token=…`: answer `{response_token}` as JSON. Throws for a token not of X's shape. */
export function crcResponseToken(apiSecret: string, crcToken: string): string {
  if (!isCrcToken(crcToken)) throw new Error('not an X crc_token');
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
