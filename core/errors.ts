/**
 * Every error a client can cause, in one place. The error middleware turns each into the
 * spec's body; anything else becomes a 500 without internals.
 */

/** One entry of the 422 body: where the value came from, what is wrong, a machine word. */
export type ValidationIssue = { loc: (string | number)[]; msg: string; type: string };

export type PlanFeature = 'agents' | 'channels' | 'kb_articles' | 'messages' | 'integrations' | 'ai_auto_reply' | 'storage';

/** The spec's plan error body. */
export type PlanErrorBody = {
  error: 'limit_exceeded' | 'feature_locked' | 'feature_not_available';
  plan?: string;
  feature: PlanFeature;
  current?: number;
  limit?: number;
  message: string;
};

export class HttpError extends Error {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers: Record<string, string>;
  constructor(status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) {
    super(typeof body.detail === 'string' ? body.detail : `HTTP ${status}`);
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

/**
 * Not a client's error: a write found that its caller, remembered from an earlier request, is no
 * longer who authentication found (api/middlewares/auth.ts callerCheck), and wrote nothing.
 * api/route.ts authenticates afresh and runs the route again; it never reaches a client.
 */
export class CallerChanged extends Error {
  constructor() {
    super('the remembered caller changed');
  }
}

export const badRequest = (detail: string) => new HttpError(400, { detail });
export const forbidden = (detail = 'Not enough permissions') => new HttpError(403, { detail });
export const notFound = (detail = 'Not found') => new HttpError(404, { detail });
export const conflict = (detail: string) => new HttpError(409, { detail });
export const notAuthenticated = () => new HttpError(401, { detail: 'Not authenticated' }, { 'WWW-Authenticate': 'Bearer' });
export const invalidCredentials = () => new HttpError(401, { detail: 'Could not validate credentials' }, { 'WWW-Authenticate': 'Bearer' });
export const tooManyRequests = (detail: string, retryAfterSeconds: number) =>
  new HttpError(429, { detail }, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
export const serviceUnavailable = (detail: string) => new HttpError(503, { detail });
export const validationError = (issues: ValidationIssue[]) => new HttpError(422, { detail: issues });

/**
 * A plan refusal. Its `message` says what the plan allows; what to do about it depends on the
 * server, so the error middleware adds it: `upgrade` ("Upgrade to add more.") where the server
 * sells plans (Stripe configured), else a sentence naming the operator, who sets plans.
 */
export class PlanRefusal extends HttpError {
  readonly upgrade: string;
  constructor(status: number, body: PlanErrorBody, upgrade: string) {
    super(status, body);
    this.upgrade = upgrade;
  }
  /** The body a client gets: the message followed by the next step on this server. */
  bodyFor(billing: boolean): Record<string, unknown> {
    const next = billing ? this.upgrade : OPERATOR_SETS_PLANS;
    return { ...this.body, message: next ? `${this.body.message} ${next}` : this.body.message };
  }
}

/** The next step of a plan refusal on a server without billing (no upgrade to buy). */
export const OPERATOR_SETS_PLANS = "This server's operator sets the plan (parley business plan).";

/** A plan refusal: 402 by default; the monthly message limit on sending is 403 (decisions.md). */
export const planError = (body: PlanErrorBody, status = 402, upgrade = '') => new PlanRefusal(status, body, upgrade);
