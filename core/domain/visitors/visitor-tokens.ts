/**
 * Visitor tokens: what a website visitor's browser holds instead of an access token. A signed
 * purpose token (core/domain/accounts/tokens.ts, purpose `visitor`) naming one customer of one widget, so it
 * never passes as an access token, and an access token (or any other purpose token) never
 * passes as a visitor token. Long-lived: it is the visitor's identity on that site, kept in
 * the browser's localStorage; losing it only starts a new visitor.
 */
import { issuePurposeToken, verifyPurposeToken } from '../accounts/tokens.ts';

export const VISITOR_TOKEN_PURPOSE = 'visitor';

/** 365 days, in seconds. */
export const VISITOR_TOKEN_TTL_SECONDS = 365 * 24 * 60 * 60;

export type VisitorClaims = {
  /** The customer's uuid (the token's subject). */
  customerId: string;
  /** The widget the visitor writes through. */
  widgetId: string;
  /** The random visitor id, stored as the customer's platform_user_id. */
  visitorId: string;
};

export function issueVisitorToken(key: Uint8Array, claims: VisitorClaims): Promise<string> {
  return issuePurposeToken(key, VISITOR_TOKEN_PURPOSE, claims.customerId, VISITOR_TOKEN_TTL_SECONDS, {
    widget_id: claims.widgetId,
    visitor_id: claims.visitorId,
  });
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The claims of a valid visitor token (signature, algorithm, expiry, purpose) with its `exp` (unix seconds), else null. */
export async function verifyVisitorToken(key: Uint8Array, token: string): Promise<(VisitorClaims & { exp: number }) | null> {
  const verified = await verifyPurposeToken(key, VISITOR_TOKEN_PURPOSE, token);
  if (!verified) return null;
  const { widget_id: widgetId, visitor_id: visitorId } = verified.claims;
  if (typeof widgetId !== 'string' || typeof visitorId !== 'string') return null;
  if (!uuidPattern.test(verified.sub) || !uuidPattern.test(widgetId)) return null;
  const { exp } = verified.claims;
  if (typeof exp !== 'number') return null;
  return { customerId: verified.sub, widgetId, visitorId, exp };
}
