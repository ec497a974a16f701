/**
 * A customer's webhook receiver on 127.0.0.1: it checks `Parley-Signature` exactly as the docs
 * tell a customer to (docs/decisions.md#webhooks-out), with the secret each endpoint was given,
 * and answers 400 to a bad signature. Each path is one endpoint (`/hooks/<name>`); `secrets`
 * maps a path to its secret once the test knows it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { startHttpFake, type HttpFake, type RecordedRequest } from './http-fake.ts';

/** The verification a customer's server runs (the snippet of the docs, in TypeScript). */
export function verifyParleySignature(secret: string, header: string | undefined, rawBody: string, toleranceSeconds = 300, now = Date.now() / 1000): boolean {
  if (!header) return false;
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || !parts.v1 || Math.abs(now - t) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export type WebhookReceiver = HttpFake & {
  secrets: Map<string, string>;
  /** Requests whose signature checked out, in arrival order. */
  verified: RecordedRequest[];
  /** Requests whose signature did not. */
  refused: RecordedRequest[];
  url: (name: string) => string;
};

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const secrets = new Map<string, string>();
  const verified: RecordedRequest[] = [];
  const refused: RecordedRequest[] = [];
  const fake = await startHttpFake(
    (request, respond) => {
      const secret = secrets.get(request.path);
      if (secret && verifyParleySignature(secret, request.headers['parley-signature'], request.rawBody.toString('utf8'))) {
        verified.push(request);
        return respond(200, { ok: true });
      }
      refused.push(request);
      respond(400, { error: 'bad signature' });
    },
    (failure) => ({ error: `scripted ${failure.status}` }),
  );
  return Object.assign(fake, { secrets, verified, refused, url: (name: string) => `${fake.origin}/hooks/${name}` });
}
