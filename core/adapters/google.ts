/**
 * Google ID token verification: signature against the JWKS at GOOGLE_JWKS_URL, issuer,
 * audience (GOOGLE_CLIENT_ID), expiry, and a verified e-mail.
 */
import { createRemoteJWKSet, errors, jwtVerify } from 'jose';

export type GoogleIdentity = { sub: string; email: string; name: string | null; picture: string | null };

/** Google's key set could not be fetched or read, so no token can be judged right now. */
export class GoogleKeysUnavailable extends Error {}

/** Failures that say the token itself is bad; anything else is about reaching Google's keys. */
const invalidToken = [
  errors.JWTClaimValidationFailed,
  errors.JWTExpired,
  errors.JWTInvalid,
  errors.JWSInvalid,
  errors.JWSSignatureVerificationFailed,
  errors.JOSEAlgNotAllowed,
  errors.JOSENotSupported,
  errors.JWKSNoMatchingKey,
  errors.JWKSMultipleMatchingKeys,
];

const jwksByUrl = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

/**
 * The verified identity, or null for any token that does not pass every check. Throws
 * GoogleKeysUnavailable when the key set cannot be fetched (network, non-200, bad JSON).
 */
export async function verifyGoogleIdToken(idToken: string, clientId: string, jwksUrl: string): Promise<GoogleIdentity | null> {
  let jwks = jwksByUrl.get(jwksUrl);
  if (!jwks) {
    jwks = createRemoteJWKSet(new URL(jwksUrl));
    jwksByUrl.set(jwksUrl, jwks);
  }
  try {
    const { payload } = await jwtVerify(idToken, jwks, {
      issuer: ['https://accounts.google.com', 'accounts.google.com'],
      audience: clientId,
      algorithms: ['RS256'],
    });
    if (payload.email_verified !== true || typeof payload.email !== 'string' || typeof payload.sub !== 'string') return null;
    return {
      sub: payload.sub,
      email: payload.email.trim().toLowerCase(),
      name: typeof payload.name === 'string' ? payload.name : null,
      picture: typeof payload.picture === 'string' ? payload.picture : null,
    };
  } catch (error) {
    if (invalidToken.some((kind) => error instanceof kind)) return null;
    throw new GoogleKeysUnavailable('Google sign-in keys unavailable', { cause: error });
  }
}
