/**
 * X direct messages (twitter-api-v2). Inbound DMs arrive on the shared Account Activity webhook
 * /api/v1/webhooks/x, signed with the app's consumer secret and routed by `for_user_id` (kept as
 * `state.user_id` by register); replies go out as DMs with the account's OAuth 1.0a user tokens.
 */
import type { ApiResponseError, TwitterRateLimit } from 'twitter-api-v2';
import { z } from 'zod';
import { httpStatusError, networkError, parseRetryAfter } from '../http-errors.ts';
import { ConnectorError, type Connector, type ConnectorContext, type OutboundMessage, type RegisterResult } from '../types.ts';
import { createXClient } from './client.ts';
import { twitterApi } from './library.ts';
import { parseXWebhook } from './parse.ts';
import { verifyWebhookSignature } from './signature.ts';

export { CRC_TOKEN_PATTERN, crcResponseToken, isCrcToken, webhookSignature } from './signature.ts';
export { forUserIdOf } from './parse.ts';

export const xConfigSchema = z.object({
  api_key: z.string().trim().min(1),
  api_secret: z.string().trim().min(1),
  access_token: z.string().trim().min(1),
  access_token_secret: z.string().trim().min(1),
  bearer_token: z.string().trim().min(1),
});
export type XConfig = z.infer<typeof xConfigSchema>;

/** X's longest DM. */
const MAX_DM_LENGTH = 10_000;

/** Anything twitter-api-v2 threw → ConnectorError (401/403 and other 4xx permanent; 429, 5xx, network transient). */
export function xError(error: unknown, now: Date = new Date()): ConnectorError {
  if (error instanceof ConnectorError) return error;
  if (isApiResponseError(error)) {
    const retryAfter = error.code === 429 ? rateLimitWait(error.rateLimit, now) ?? parseRetryAfter(header(error.headers['retry-after'])) : undefined;
    return httpStatusError('X', error.code, describe(error.data), retryAfter);
  }
  return networkError('X', error);
}

/** Only a loaded twitter-api-v2 can have thrown its ApiResponseError, so the check needs no import. */
function isApiResponseError(error: unknown): error is ApiResponseError {
  const library = twitterApi.loaded();
  return library !== undefined && error instanceof library.ApiResponseError;
}

function describe(data: unknown): string | undefined {
  if (!data || typeof data !== 'object') return typeof data === 'string' && data !== '' ? data.slice(0, 500) : undefined;
  const body = data as { detail?: unknown; title?: unknown; errors?: { message?: unknown; detail?: unknown }[] };
  const first = Array.isArray(body.errors) ? body.errors[0] : undefined;
  for (const candidate of [body.detail, first?.message, first?.detail, body.title]) {
    if (typeof candidate === 'string' && candidate.trim() !== '') return candidate;
  }
  return undefined;
}

/** Seconds until the exhausted limit resets (the 24-hour DM caps outlast the 15-minute window). */
function rateLimitWait(rateLimit: TwitterRateLimit | undefined, now: Date): number | undefined {
  if (!rateLimit) return undefined;
  const windows = [rateLimit, rateLimit.day, rateLimit.userDay].filter((w) => w && Number.isFinite(w.reset) && w.reset > 0);
  const exhausted = windows.filter((w) => w!.remaining === 0);
  const resets = (exhausted.length > 0 ? exhausted : windows).map((w) => w!.reset);
  if (resets.length === 0) return undefined;
  return Math.max(1, Math.ceil(Math.max(...resets) - now.getTime() / 1000));
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The DM text: attachments go as links (X DM media needs a separate v1.1 media upload). */
function dmText(message: OutboundMessage): string {
  const links = message.attachments.map((attachment) => attachment.url);
  return [message.text, ...links].filter((part) => part.trim() !== '').join('\n');
}

async function send(config: XConfig, message: OutboundMessage, context: ConnectorContext) {
  const text = dmText(message);
  if (text === '') throw new ConnectorError('permanent', 'A direct message needs text');
  if (text.length > MAX_DM_LENGTH) throw new ConnectorError('permanent', `A direct message holds at most ${MAX_DM_LENGTH} characters`);
  const client = await createXClient(config, context.urls.x);
  try {
    const sent = await client.sendDmToParticipant(message.to.platformUserId, { text });
    const externalId = dmEventId(sent);
    // Sent but unidentifiable: a retry would send it twice, so this one is not retried.
    if (!externalId) throw new ConnectorError('permanent', 'X accepted the direct message but returned no dm_event_id');
    return { externalId };
  } catch (error) {
    throw xError(error);
  }
}

/** twitter-api-v2 types the answer as the ids, but X wraps them in `data`. */
function dmEventId(answer: unknown): string | undefined {
  const body = answer as { data?: { dm_event_id?: unknown }; dm_event_id?: unknown } | null;
  const id = body?.data?.dm_event_id ?? body?.dm_event_id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * Verifies the user credentials with GET /2/users/me and keeps the account id as `state.user_id`
 * (the `for_user_id` inbound events are routed by). Subscribing the app's webhook to the account
 * needs X's paid Account Activity API and is done once per app in X's developer portal, so it is
 * not attempted here. Bad credentials → `error`; X unreachable or rate-limited → throws (retried).
 */
async function register(config: XConfig, input: { state: Record<string, unknown> }, context: ConnectorContext): Promise<RegisterResult> {
  const client = await createXClient(config, context.urls.x);
  try {
    const me = await client.me();
    return { status: 'connected', state: { ...input.state, user_id: me.data.id, username: me.data.username } };
  } catch (error) {
    const failure = xError(error);
    if (failure.kind === 'transient') throw failure;
    return { status: 'error', last_error: failure.message };
  }
}

const xConnector: Connector<XConfig> = {
  type: 'x',
  configSchema: xConfigSchema,
  secretFields: ['api_key', 'api_secret', 'access_token', 'access_token_secret', 'bearer_token'],
  verifyWebhook(request, config) {
    return verifyWebhookSignature(config.api_secret, request.rawBody, request.headers['x-twitter-webhooks-signature']);
  },
  parseWebhook(request) {
    return parseXWebhook(request.rawBody);
  },
  send,
  register,
};

export default xConnector;
