/**
 * Google ID token verification: signature against the JWKS at GOOGLE_JWKS_URL, issuer,
 * audience (GOOGLE_CLIENT_ID), expiry, and a verified e-mail.
 */
import { createRemoteJWKSet, jwtVerify } from 'jose';

export type GoogleIdentity = { sub: string; email: string; name: string | null; picture: string | null };

const jwksByUrl = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

/** The verified identity, or null for any token that does not pass every check. */
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
  } catch {
    return null;
  }
}
