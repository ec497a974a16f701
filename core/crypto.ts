/**
 * Credentials at rest: JSON sealed with AES-256-GCM under CONFIG_ENCRYPTION_KEY
 * (deps.config.encryptionKey). The stored text is `v1.<iv>.<tag>.<ciphertext>` (base64url
 * parts, random 12-byte IV, 16-byte tag): the version prefix lets a later format or key
 * rotation coexist with rows written today. Tampering or a wrong key throws DecryptError.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class DecryptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecryptError';
  }
}

function checkKey(key: Uint8Array): void {
  if (key.length !== 32) throw new Error('encryption key must be 32 bytes (AES-256)');
}

/** Seals any JSON value; each call uses a fresh random IV, so equal inputs give different outputs. */
export function encryptJson(key: Uint8Array, value: unknown): string {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, iv.toString('base64url'), tag.toString('base64url'), ciphertext.toString('base64url')].join('.');
}

/** Opens what encryptJson sealed; throws DecryptError on a wrong key, tampering or a foreign format. */
export function decryptJson<T = unknown>(key: Uint8Array, text: string): T {
  checkKey(key);
  const parts = text.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION) throw new DecryptError('unknown encrypted value format');
  const iv = Buffer.from(parts[1], 'base64url');
  const tag = Buffer.from(parts[2], 'base64url');
  const ciphertext = Buffer.from(parts[3], 'base64url');
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new DecryptError('malformed encrypted value');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAuthTag(tag);
    const plaintext = Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
    return JSON.parse(plaintext) as T;
  } catch {
    throw new DecryptError('encrypted value cannot be decrypted (wrong key or tampered)');
  }
}
