/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP) as every authenticator app
 * reads them from an `otpauth://` URI: HMAC-SHA-1, 6 digits, 30-second steps. Base32 (RFC 4648,
 * no padding) is written here by hand: it is twenty lines, and the secret is the only thing a
 * library would be trusted with. HMAC is node:crypto's.
 *
 * Recovery codes: 80 random bits each, written as four groups of four base32 letters; only their
 * SHA-256 is kept (80 bits cannot be searched from a hash, so a slow hash would add nothing).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const TOTP_DIGITS = 6;
export const TOTP_STEP_SECONDS = 30;
/** Codes of the step before and after the current one are accepted too (clock drift, typing time). */
export const TOTP_WINDOW_STEPS = 1;
/** 160 bits: the HMAC-SHA-1 key length RFC 4226 recommends. */
export const TOTP_SECRET_BYTES = 20;
export const RECOVERY_CODE_COUNT = 10;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding (what otpauth URIs carry). */
export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** Reads base32 (any case, spaces and `=` padding ignored); null for any other character. */
export function base32Decode(text: string): Buffer | null {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  const out: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of clean) {
    const value = ALPHABET.indexOf(char);
    if (value < 0) return null;
    buffer = (buffer << 5) | value;
    bits += 5;
    if (bits >= 8) {
      out.push((buffer >>> (bits - 8)) & 255);
      bits -= 8;
    }
    buffer &= (1 << bits) - 1;
  }
  return Buffer.from(out);
}

/** RFC 4226 HOTP: HMAC over the 8-byte big-endian counter, dynamic truncation, `digits` decimal digits. */
export function hotp(secret: Uint8Array, counter: number, options: { digits?: number; algorithm?: 'sha1' | 'sha256' | 'sha512' } = {}): string {
  const digits = options.digits ?? TOTP_DIGITS;
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(options.algorithm ?? 'sha1', secret)
    .update(message)
    .digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** The 30-second step of a moment (Unix milliseconds). */
export const stepAt = (ms: number): number => Math.floor(ms / 1000 / TOTP_STEP_SECONDS);

/** The code of the step at `ms` (RFC 6238). */
export function totpAt(secret: Uint8Array, ms: number, options: { digits?: number; algorithm?: 'sha1' | 'sha256' | 'sha512' } = {}): string {
  return hotp(secret, stepAt(ms), options);
}

/**
 * The step whose code `code` is, looking at the current step and TOTP_WINDOW_STEPS either side,
 * or null. Every candidate is compared (in constant time), so timing tells nothing about which
 * one matched. Single use is the caller's: accept only a step later than the last one used.
 */
export function matchTotp(secret: Uint8Array, code: string, nowMs: number): number | null {
  if (!new RegExp(`^\\d{${TOTP_DIGITS}}$`).test(code)) return null;
  const given = Buffer.from(code);
  const current = stepAt(nowMs);
  let found: number | null = null;
  for (let step = current - TOTP_WINDOW_STEPS; step <= current + TOTP_WINDOW_STEPS; step++) {
    if (timingSafeEqual(Buffer.from(hotp(secret, step)), given) && found === null) found = step;
  }
  return found;
}

/** A fresh random secret. */
export const newTotpSecret = (): Buffer => randomBytes(TOTP_SECRET_BYTES);

/**
 * The `otpauth://` URI authenticator apps read (Google Authenticator's Key Uri Format): the
 * label is `Issuer:account`, the parameters name the defaults explicitly for apps that need them.
 */
export function otpauthUri(secret: Uint8Array, account: string, issuer = 'Parley'): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const params = new URLSearchParams({
    secret: base32Encode(secret),
    issuer,
    algorithm: 'SHA1',
    digits: String(TOTP_DIGITS),
    period: String(TOTP_STEP_SECONDS),
  });
  return `otpauth://totp/${label}?${params.toString()}`;
}

/** `abcd-efgh-ijkl-mnop`: 16 base32 letters (80 bits), lower case, in groups of four. */
export function newRecoveryCode(): string {
  const letters = base32Encode(randomBytes(10)).toLowerCase();
  return letters.match(/.{4}/g)!.join('-');
}

/** What is compared: lower case, without spaces or dashes (people copy codes in many ways). */
export const normalizeRecoveryCode = (code: string): string => code.toLowerCase().replace(/[\s-]/g, '');

export const hashRecoveryCode = (code: string): Buffer => createHash('sha256').update(normalizeRecoveryCode(code)).digest();
