/**
 * Identity verification of website visitors (as Intercom and Chatwoot do it): the business's
 * server signs who its signed-in user is, `user_hash = hex(HMAC-SHA256(widget identity secret,
 * external_id or e-mail))`, and the page hands that to the widget. A visitor whose hash checks
 * out is the same customer on every device (their platform id on the widget channel is derived
 * from the identity, not random), so their conversations follow them. The secret is per widget,
 * kept encrypted like channel credentials, shown to owners and admins, and rotatable.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { decryptJson, encryptJson } from '../../crypto.ts';

/** 32 random bytes as 64 hex characters (used as the HMAC key as text, as a server snippet would). */
export const newIdentitySecret = () => randomBytes(32).toString('hex');

export const sealIdentitySecret = (key: Uint8Array, secret: string) => encryptJson(key, { secret });
export const openIdentitySecret = (key: Uint8Array, sealed: string) => decryptJson<{ secret: string }>(key, sealed).secret;

/** hex(HMAC-SHA256(secret, identifier)). */
export const identityHash = (secret: string, identifier: string) => createHmac('sha256', secret).update(identifier, 'utf8').digest('hex');

/** Whether `userHash` is the identifier's hash (case-insensitive hex, compared in constant time). */
export function identityHashMatches(secret: string, identifier: string, userHash: string): boolean {
  const expected = Buffer.from(identityHash(secret, identifier), 'utf8');
  const given = Buffer.from(userHash.toLowerCase(), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The visitor's platform id on the widget channel for a verified identity: the same for every
 * session of the same person (an external id wins over the e-mail; e-mails compare lower-cased).
 * Random visitor ids start with `v_`, so the two never collide.
 */
export const identifiedVisitorId = (identity: { external_id?: string; email?: string }) =>
  identity.external_id !== undefined ? `id:${identity.external_id}` : `email:${identity.email!.toLowerCase()}`;

/** A visitor id of an anonymous (not identified) visitor. */
export const isAnonymousVisitorId = (visitorId: string) => visitorId.startsWith('v_');
