/**
 * What WhatsApp and Instagram share, both being Meta Graph APIs: the X-Hub-Signature-256 check
 * over the raw body, the GET subscription handshake, and how a Graph error answer is classified.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from '../lib/zod.ts';
import {
  ConnectorError,
  type ChannelConfig,
  type ConfigField,
  type RegisterResult,
  type WebhookHandshake,
  type WebhookRequest,
  type WebhookSpec,
} from './types.ts';
import { safeEqual } from './safe-equal.ts';
import { isTransientStatus, networkError, parseRetryAfter } from './http-errors.ts';
import { requestJson, type JsonAnswer } from './json-http.ts';

/** The header value Meta sends: `sha256=` + hex HMAC-SHA256 of the raw body with the app secret. */
export function metaSignature(appSecret: string, rawBody: Buffer | string): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
}

/** Constant-time check of an `X-Hub-Signature-256` header; a missing or malformed header is false. */
export function verifyMetaSignature(appSecret: string, rawBody: Buffer, header: string | undefined): boolean {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(metaSignature(appSecret, rawBody), 'utf8');
  // Meta sends lower-case hex; accept an upper-cased prefix or digits from a proxy that rewrote it.
  const received = Buffer.from(header.trim().toLowerCase(), 'utf8');
  if (received.length !== expected.length) return false;
  return timingSafeEqual(received, expected);
}

/** The query of Meta's GET verification request (`hub.mode`, `hub.verify_token`, `hub.challenge`). */
export type MetaSubscriptionQuery = Record<string, string | string[] | undefined> | URLSearchParams;

function queryValue(query: MetaSubscriptionQuery, key: string): string | undefined {
  if (query instanceof URLSearchParams) return query.get(key) ?? undefined;
  const value = query[key];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The GET handshake: when `hub.mode` is `subscribe` and `hub.verify_token` equals one of
 * `verifyTokens` (the channels' tokens), returns `{challenge, verifyToken}` (answer 200 with the
 * raw challenge as text/plain); otherwise null (answer 403), also for a challenge that is not
 * 1 to 128 letters and digits.
 */
export function verifyMetaSubscription(query: MetaSubscriptionQuery, verifyTokens: Iterable<string>): { challenge: string; verifyToken: string } | null {
  const mode = queryValue(query, 'hub.mode');
  const token = queryValue(query, 'hub.verify_token');
  const challenge = queryValue(query, 'hub.challenge');
  // Echoed as the answer's body: only letters and digits (Meta sends a number), so the handshake
  // cannot be used to make Parley's origin serve text of someone else's choosing.
  if (mode !== 'subscribe' || !token || challenge === undefined || !/^[A-Za-z0-9]{1,128}$/.test(challenge)) return null;
  let matched: string | null = null;
  for (const candidate of verifyTokens) {
    if (candidate && safeEqual(candidate, token)) matched = candidate;
  }
  return matched === null ? null : { challenge, verifyToken: matched };
}

/** Graph's error answer: `{error: {message, type, code, error_subcode, error_user_msg, error_data, is_transient}}`. */
export type GraphError = {
  message?: string;
  type?: string;
  code?: number;
  error_subcode?: number;
  error_user_title?: string;
  error_user_msg?: string;
  error_data?: { details?: string } | string;
  is_transient?: boolean;
  fbtrace_id?: string;
};

/**
 * Graph error codes that mean "try again later" even when the HTTP status is 4xx: unknown or
 * temporary service errors and the rate limits (app, user, page, WhatsApp throughput, spam and
 * pair limits, per-message-per-user limits).
 */
const TRANSIENT_GRAPH_CODES = new Set([1, 2, 4, 17, 32, 341, 613, 80007, 130429, 131000, 131016, 131048, 131056, 133004]);

/** The platform's own explanation: the message plus WhatsApp's `error_data.details` when it adds to it. */
export function describeGraphError(error: GraphError): string | undefined {
  const base = error.error_user_msg ?? error.message ?? error.error_user_title;
  const details = typeof error.error_data === 'string' ? error.error_data : error.error_data?.details;
  if (base && details && !base.includes(details)) return `${base}: ${details}`;
  return base ?? details;
}

/** Reads `{error: {...}}` out of a Graph answer body, if it is one. */
export function graphErrorOf(body: unknown): GraphError | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const error = (body as { error?: unknown }).error;
  if (!error || typeof error !== 'object') return undefined;
  return error as GraphError;
}

/**
 * Classifies a Graph failure: a rate-limit or temporary Graph code, `is_transient`, 5xx or 429 is
 * transient; anything else (expired token 190, permissions, invalid parameter, outside the
 * messaging window 131047 / 2534022, undeliverable 131026, unsupported 131051, user not
 * available 551) is permanent with Graph's message.
 */
export function classifyGraphError(platform: string, status: number, body: unknown, retryAfterSeconds?: number): ConnectorError {
  const error = graphErrorOf(body);
  const message =
    (error && describeGraphError(error)) ?? (typeof body === 'string' && body.trim() !== '' ? body.slice(0, 500) : `${platform} answered HTTP ${status}`);
  const transient = isTransientStatus(status) || error?.is_transient === true || (error?.code !== undefined && TRANSIENT_GRAPH_CODES.has(error.code));
  return transient ? new ConnectorError('transient', message, retryAfterSeconds) : new ConnectorError('permanent', message);
}

/** A Graph answer: resolves with its body, or throws the ConnectorError for its failure. */
async function graphAnswer(platform: string, request: Promise<JsonAnswer>): Promise<unknown> {
  let answer: JsonAnswer;
  try {
    answer = await request;
  } catch (error) {
    throw networkError(platform, error);
  }
  if (answer.status >= 200 && answer.status < 300 && !graphErrorOf(answer.body)) return answer.body;
  throw classifyGraphError(platform, answer.status, answer.body, parseRetryAfter(answer.retryAfter));
}

/** POSTs JSON to a Graph endpoint with a bearer token; resolves with the answer or throws a ConnectorError. */
export function graphPost(platform: string, url: string, accessToken: string, body: unknown): Promise<unknown> {
  return graphAnswer(platform, requestJson('POST', url, { authorization: `Bearer ${accessToken}` }, body));
}

/** GETs a Graph object with a bearer token; resolves with the answer or throws a ConnectorError. */
export function graphGet(platform: string, url: string, accessToken: string): Promise<unknown> {
  return graphAnswer(platform, requestJson('GET', url, { authorization: `Bearer ${accessToken}` }));
}

/**
 * Registration of a Meta channel: reads the account the config names with its token, so a wrong
 * id or a revoked token shows as `error` with Graph's reason when the channel is connected, not
 * at the first failed reply. Graph unreachable or overloaded throws (the job retries).
 */
export async function checkGraphAccount(platform: string, url: string, accessToken: string, keep: readonly string[]): Promise<RegisterResult> {
  try {
    const answer = (await graphGet(platform, url, accessToken)) as Record<string, unknown> | undefined;
    const state: Record<string, unknown> = {};
    for (const key of keep) if (typeof answer?.[key] === 'string') state[key] = answer[key];
    return { status: 'connected', state };
  } catch (error) {
    if (error instanceof ConnectorError && error.kind === 'permanent') return { status: 'error', last_error: error.message };
    throw error;
  }
}

/** Joins a base URL (which may carry a version path) and a path segment without doubling slashes. */
export function graphUrl(base: string, ...segments: string[]): string {
  return [base.replace(/\/+$/, ''), ...segments.map((segment) => encodeURIComponent(segment))].join('/');
}

/** A random, URL-safe token for Meta's webhook verification handshake. */
const generateVerifyToken = () => randomBytes(24).toString('base64url');

/** The config fields Meta channels (WhatsApp, Instagram) share for their webhook: the handshake token and the app secret. */
export const metaWebhookFields: ConfigField[] = [
  // Secret too: anyone holding it can answer Meta's webhook verification for this channel.
  { key: 'verify_token', required: false, secret: true, label: 'Verify token', placeholder: 'Generated when empty' },
  // When set, every POST must carry a valid X-Hub-Signature-256.
  { key: 'app_secret', required: false, secret: true, label: 'App secret' },
];

/** A verify token is generated when none is given: Meta's handshake needs one. */
export const completeMetaConfig = (config: ChannelConfig): ChannelConfig => (config.verify_token ? config : { ...config, verify_token: generateVerifyToken() });

/** What a Meta app's webhook settings need once the channel exists (WhatsApp and Instagram alike). */
export const metaAfterConnect = {
  text: 'In your Meta app\'s webhook settings, subscribe to "messages" with:',
  values: [
    { label: 'Callback URL', source: 'webhook_url' },
    { label: 'Verify token', source: 'config.verify_token' },
  ],
};

/** Create and update responses tell the owner what to paste into the Meta app's webhook settings. */
export const metaSetupFields = (config: ChannelConfig, webhookUrl: string) => ({
  _meta_setup_instructions: { callback_url: webhookUrl, verify_token: config.verify_token },
});

/**
 * A WhatsApp or Instagram channel without an app secret: its webhook posts cannot be checked,
 * so anyone who knows its phone_number_id or account id could post messages in its name.
 */
export const unsignedMetaChannel = {
  is: (config: { app_secret?: string }) => !config.app_secret,
  refusal: "Unsigned webhook refused: set the channel's app_secret",
  log: 'unsigned Meta webhook accepted: the channel has no app_secret (set it, or META_REQUIRE_SIGNATURE=true to refuse)',
  warning:
    "No app_secret: Meta's webhook signature cannot be checked, so anyone who knows this account's id could post messages as customers. Set the Meta app's secret as app_secret.",
};

/** A Meta webhook is checked against the app secret when the channel has one, else accepted (see unsignedMetaChannel). */
export function verifyMetaWebhook(request: WebhookRequest, appSecret: string | undefined): boolean {
  return appSecret ? verifyMetaSignature(appSecret, request.rawBody, request.headers['x-hub-signature-256']) : true;
}

/** Meta's GET handshake, answered for the active channels of the type holding `hub.verify_token`. */
function metaHandshake(label: string): WebhookHandshake<{ verify_token?: string }> {
  return {
    summary: `${label}: Meta's subscription handshake`,
    description:
      'Answers `hub.challenge` as text when `hub.mode` is `subscribe`, `hub.verify_token` is the `verify_token` of an active channel of this type and the challenge is 1 to 128 letters and digits; 403 otherwise.',
    responseContentType: 'text/plain',
    response: z.string(),
    errors: [403],
    lookup: (query) => {
      const token = query['hub.verify_token'];
      return typeof token === 'string' && token !== '' ? { by: 'verify_token', token } : { by: 'none' };
    },
    answer: (query, channels) => {
      const verified = verifyMetaSubscription(
        query as MetaSubscriptionQuery,
        channels.map((c) => c.config.verify_token ?? ''),
      );
      return verified ? { body: verified.challenge, contentType: 'text/plain' } : { refused: 403, detail: 'Verification failed' };
    },
  };
}

/** The shared webhook of a Meta channel type, routed by the ids inside each event and signed with the app secret. */
export function metaWebhook<C extends { app_secret?: string; verify_token?: string }>(label: string, parse: WebhookSpec<C>['parse']): WebhookSpec<C> {
  return {
    mode: 'shared',
    audience: 'platform',
    bodyLimit: 1024 * 1024,
    summary: `${label}: messages and delivery receipts from Meta`,
    description:
      'Routed by `metadata.phone_number_id` (WhatsApp) or the account id (Instagram). When the channel has an `app_secret`, `X-Hub-Signature-256` must match (401 otherwise, nothing stored). ' +
      'A channel without `app_secret` is insecure (its `warnings` say so): its posts are refused with 401 when META_REQUIRE_SIGNATURE is on (the default when NODE_ENV=production), else accepted and logged once per channel.',
    errors: [400, 401, 413],
    verify: (request, config) => verifyMetaWebhook(request, config.app_secret),
    parse,
    unsigned: unsignedMetaChannel,
    handshake: metaHandshake(label),
  };
}
