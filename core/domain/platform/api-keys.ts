/**
 * API keys: `prl_` + the business id (32 hex digits, so the row is found by its business without
 * a global index) + 43 base64url characters of secret (32 random bytes). Only the SHA-256 of the
 * whole key is stored (the secret is random, so a slow hash would add nothing); it is shown
 * once, at creation. See docs/decisions.md#api-keys.
 */
import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'prl_';
const keyPattern = /^prl_([0-9a-f]{32})([A-Za-z0-9_-]{43})$/;

/** Requests one key may make per minute (all routes together); then 429 with Retry-After. */
export const API_KEY_RATE = { limit: 600, windowSeconds: 60 };

const uuidOf = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** A new key for the business: the text shown once, its hash and its last four characters. */
export function newApiKey(businessId: string): { key: string; hash: Buffer; lastFour: string } {
  const key = `${API_KEY_PREFIX}${businessId.replaceAll('-', '').toLowerCase()}${randomBytes(32).toString('base64url')}`;
  return { key, hash: hashApiKey(key), lastFour: key.slice(-4) };
}

/** The business a well-formed key names and the hash to look it up by; null for anything else. */
export function parseApiKey(text: string): { businessId: string; hash: Buffer } | null {
  const match = keyPattern.exec(text);
  if (!match) return null;
  return { businessId: uuidOf(match[1]), hash: hashApiKey(text) };
}

/** Looks like an API key (the prefix): such a bearer token is never tried as a JWT. */
export const isApiKeyText = (text: string) => text.startsWith(API_KEY_PREFIX);
