/**
 * Access tokens: HS256 JWTs with `sub` (user id), `jti`, `iat`, `exp`. Only HS256 is accepted
 * on verification, so `alg: none` and tokens signed with another algorithm or key fail.
 * Other signed values (e-mail verification links) use the same key with their own `typ`.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';

/** `gen`: the user's token generation at issue (users.token_generation); a token of an older one is refused. */
export type AccessTokenClaims = { sub: string; jti: string; exp: number; gen: number };

export async function issueAccessToken(key: Uint8Array, userId: string, ttlSeconds: number, generation: number): Promise<string> {
  return new SignJWT({ gen: generation })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
    .sign(key);
}

/**
 * Tokens this process has verified, by key: a token's claims are a pure function of the key and
 * its text, so a valid one need not be checked again until it expires. Verifying (HMAC through
 * WebCrypto) was a tenth of the agent reply's CPU; revocation, generations and membership are
 * still read on every request (api/middlewares/auth.ts). Invalid tokens are never remembered.
 */
const verified = new WeakMap<Uint8Array, Map<string, AccessTokenClaims>>();
/** Enough for every agent signed in to one node; the oldest entry makes room. */
const VERIFIED_MAX = 10_000;

/** Verifies signature, algorithm and expiry; null for any token that is not valid. */
export async function verifyAccessToken(key: Uint8Array, token: string): Promise<AccessTokenClaims | null> {
  let known = verified.get(key);
  const hit = known?.get(token);
  if (hit) {
    if (hit.exp * 1000 > Date.now()) return hit;
    known?.delete(token);
  }
  const claims = await verifyAccessTokenNow(key, token);
  if (claims) {
    if (!known) {
      known = new Map();
      verified.set(key, known);
    }
    if (known.size >= VERIFIED_MAX) known.delete(known.keys().next().value as string);
    known.set(token, claims);
  }
  return claims;
}

async function verifyAccessTokenNow(key: Uint8Array, token: string): Promise<AccessTokenClaims | null> {
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], typ: 'JWT' });
    if (typeof payload.sub !== 'string' || typeof payload.jti !== 'string' || typeof payload.exp !== 'number') return null;
    if (payload.purpose !== undefined) return null;
    // Tokens issued before generations existed carry none: generation 0.
    const gen = payload.gen === undefined ? 0 : payload.gen;
    if (typeof gen !== 'number' || !Number.isInteger(gen)) return null;
    return { sub: payload.sub, jti: payload.jti, exp: payload.exp, gen };
  } catch {
    return null;
  }
}

/** A signed, expiring token for one purpose (e.g. `verify-email`), never usable as an access token. */
export async function issuePurposeToken(
  key: Uint8Array,
  purpose: string,
  subject: string,
  ttlSeconds: number,
  claims: Record<string, string> = {},
): Promise<string> {
  return new SignJWT({ ...claims, purpose })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(subject)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
    .sign(key);
}

export async function verifyPurposeToken(key: Uint8Array, purpose: string, token: string): Promise<{ sub: string; claims: Record<string, unknown> } | null> {
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'] });
    if (payload.purpose !== purpose || typeof payload.sub !== 'string') return null;
    return { sub: payload.sub, claims: payload };
  } catch {
    return null;
  }
}
