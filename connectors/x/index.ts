/**
 * X direct messages (twitter-api-v2). Inbound DMs arrive on the shared Account Activity webhook
 * /api/v1/webhooks/x, signed with the app's consumer secret and routed by `for_user_id` (kept as
 * `state.user_id` by register); replies go out as DMs with the account's OAuth 1.0a user tokens.
 */
import type { ApiResponseError, TwitterRateLimit } from 'twitter-api-v2';
import { z } from '../../lib/zod.ts';
import { httpStatusError, networkError, parseRetryAfter } from '../http-errors.ts';
import { ConnectorError, type ConnectorContext, type OutboundMessage, type RegisterResult, type WebhookConnector, type WebhookHandshake } from '../types.ts';
import { createXClient } from './client.ts';
import { twitterApi } from './library.ts';
import { fetchXMedia } from './media.ts';
import { parseXWebhook } from './parse.ts';
import { CRC_TOKEN_PATTERN, crcResponseToken, verifyWebhookSignature } from './signature.ts';

export { CRC_TOKEN_PATTERN, crcResponseToken, isCrcToken, webhookSignature } from './signature.ts';
export { forUserIdOf } from './parse.ts';

export type XConfig = { api_key: string; api_secret: string; access_token: string; access_token_secret: string; bearer_token: string };

/** X's longest DM. */
const MAX_DM_LENGTH = 10_000;

/** Anything twitter-api-v2 threw → ConnectorError (401/403 and other 4xx permanent; 429, 5xx, network transient). */
export function xError(error: unknown, now: Date = new Date()): ConnectorError {
  if (error instanceof ConnectorError) return error;
  if (isApiResponseError(error)) {
    const retryAfter = error.code === 429 ? (rateLimitWait(error.rateLimit, now) ?? parseRetryAfter(header(error.headers['retry-after']))) : undefined;
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
  const client = await createXClient(config, context.baseUrl);
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
  const client = await createXClient(config, context.baseUrl);
  try {
    const me = await client.me();
    return { status: 'connected', state: { ...input.state, user_id: me.data.id, username: me.data.username } };
  } catch (error) {
    const failure = xError(error);
    if (failure.kind === 'transient') throw failure;
    return { status: 'error', last_error: failure.message };
  }
}

/**
 * X's CRC: answered with the consumer secret of the channel `channel_id` names, or else of the
 * active X channels — X's own request names no account, but every channel of one app holds its
 * consumer secret.
 */
const crc: WebhookHandshake<XConfig> = {
  summary: 'X: the CRC challenge',
  description:
    'Answers `{response_token}` signed with the consumer secret of the X channel named by `channel_id`, or else of the active X channels, ' +
    "which X's own request cannot name: several channels of one X app share its consumer secret; when their secrets differ it is 400 " +
    "(register `…/webhooks/x?channel_id=<id>` as that app's webhook URL instead); 404 when there is no X channel.",
  query: z.object({
    crc_token: z.string().regex(CRC_TOKEN_PATTERN, 'must be an X crc_token (1-128 base64 characters)').openapi({
      description: "X's challenge: 1-128 characters of `A-Z a-z 0-9 + / _ = -`; anything else is 422, so no caller can have a webhook body signed",
    }),
    channel_id: z.uuid().optional(),
  }),
  response: z.object({ response_token: z.string() }),
  errors: [400, 404, 422],
  lookup: (query) => (typeof query.channel_id === 'string' ? { by: 'channel', channelId: query.channel_id } : { by: 'all' }),
  answer: (query, channels) => {
    if (new Set(channels.map((c) => c.config.api_secret)).size > 1)
      return { refused: 400, detail: 'X channels with different consumer secrets exist: pass channel_id' };
    const channel = channels[0];
    if (!channel) return { refused: 404, detail: 'Channel not found' };
    return { body: { response_token: crcResponseToken(channel.config.api_secret, String(query.crc_token)) } };
  },
};

const xConnector: WebhookConnector<XConfig> = {
  type: 'x',
  label: 'X',
  icon: { color: '#111827', path: 'M4 4l16 16 M20 4L4 20' },
  config: [
    { key: 'api_key', required: true, secret: true, label: 'API key' },
    { key: 'api_secret', required: true, secret: true, label: 'API secret' },
    { key: 'access_token', required: true, secret: true, label: 'Access token' },
    { key: 'access_token_secret', required: true, secret: true, label: 'Access token secret' },
    { key: 'bearer_token', required: true, secret: true, label: 'Bearer token' },
  ],
  // The account's user id, the routing key, is learned at registration (state.user_id).
  duplicateAccountMessage: 'This X account is already connected to another channel (of this or another business); disconnect it there first',
  webhook: {
    mode: 'shared',
    audience: 'platform',
    bodyLimit: 1024 * 1024,
    summary: 'X: direct message events',
    description: "Routed by `for_user_id`; `x-twitter-webhooks-signature` must match the channel's consumer secret (401 otherwise).",
    errors: [400, 401, 413],
    verify(request, config) {
      return verifyWebhookSignature(config.api_secret, request.rawBody, request.headers['x-twitter-webhooks-signature']);
    },
    parse(request) {
      return parseXWebhook(request.rawBody);
    },
    handshake: crc,
  },
  setup: {
    intro: "From the X developer portal (an app with Account Activity API access): its keys and the account's access tokens.",
    steps: [
      'In the X developer portal, open the app with Account Activity API access and copy its API key and secret and its bearer token.',
      'Generate the access token and secret of the account customers write to.',
      "After connecting, set the webhook URL shown here as the app's Account Activity webhook and subscribe the account.",
    ],
  },
  baseUrl: { env: 'X_API_URL', default: 'https://api.x.com', description: 'X API base URL' },
  send,
  register,
  // DM media on ton.twitter.com, a GET signed with OAuth 1.0a as the account (connectors/x/media.ts).
  fetchMedia: (config, attachment, context) => fetchXMedia(config, attachment, context),
};

export default xConnector;
