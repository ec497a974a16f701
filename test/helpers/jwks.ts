/**
 * A fake Google sign-in: a JWKS server on 127.0.0.1 serving one RS256 public key, and a signer
 * that makes ID tokens the way Google does (iss, aud, sub, email, email_verified, iat, exp).
 *
 *   const google = await startGoogleJwks();
 *   const app = await startTestApp({ env: { GOOGLE_CLIENT_ID: google.clientId, GOOGLE_JWKS_URL: google.jwksUrl } });
 *   const idToken = await google.signIdToken({ email: 'ada@example.com' });
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWTPayload } from 'jose';

export type IdTokenOptions = {
  /** Sign with this private key instead of the served one. */
  key?: CryptoKey;
  /** Header `kid` (default: the served key's id). */
  kid?: string;
  /** Seconds from now until `exp` (default 3600; negative for an expired token). */
  expiresIn?: number;
};

export type GoogleJwks = {
  jwksUrl: string;
  /** The OAuth client id the tokens are issued for (their `aud`). */
  clientId: string;
  /** How many times the JWKS was fetched. */
  fetches: () => number;
  /** A Google-shaped ID token; `claims` override or add to the defaults (`undefined` removes one). */
  signIdToken: (claims?: Record<string, unknown>, options?: IdTokenOptions) => Promise<string>;
  /** A private key whose public half is not served. */
  otherKey: () => Promise<CryptoKey>;
  close: () => Promise<void>;
};

export async function startGoogleJwks(): Promise<GoogleJwks> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const kid = randomBytes(8).toString('hex');
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const clientId = `${randomBytes(6).toString('hex')}.apps.googleusercontent.com`;
  let fetches = 0;
  const server = http.createServer((req, res) => {
    fetches++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };

  const signIdToken = async (claims: Record<string, unknown> = {}, options: IdTokenOptions = {}) => {
    const now = Math.floor(Date.now() / 1000);
    const payload: Record<string, unknown> = {
      iss: 'https://accounts.google.com',
      aud: clientId,
      sub: String(100000000000000000000n + BigInt(Math.floor(Math.random() * 1e12))),
      email: `google-${randomBytes(4).toString('hex')}@gmail.com`,
      email_verified: true,
      name: 'Grace Hopper',
      picture: 'https://lh3.googleusercontent.com/a/photo.jpg',
      iat: now,
      exp: now + (options.expiresIn ?? 3600),
      ...claims,
    };
    for (const [k, v] of Object.entries(payload)) if (v === undefined) delete payload[k];
    return new SignJWT(payload as JWTPayload).setProtectedHeader({ alg: 'RS256', kid: options.kid ?? kid, typ: 'JWT' }).sign(options.key ?? privateKey);
  };

  return {
    jwksUrl: `http://127.0.0.1:${port}/oauth2/v3/certs`,
    clientId,
    fetches: () => fetches,
    signIdToken,
    otherKey: async () => (await generateKeyPair('RS256')).privateKey,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
