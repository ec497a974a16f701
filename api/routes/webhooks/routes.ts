/**
 * Inbound platform webhooks. Each request is verified (signature or per-channel secret), its
 * events are stored with their processing jobs in one transaction, and only then is it
 * acknowledged — in milliseconds, since the slow work happens in `process_inbound`. A bad
 * signature is refused with 401 and stores nothing; a redelivered event is acknowledged and
 * dropped (unique per channel and platform message id).
 */
import type { Context } from 'koa';
import { z } from '../../../core/zod.ts';
import { HttpError, badRequest, notFound } from '../../../core/errors.ts';
import type { Deps } from '../../../core/deps.ts';
import {
  activeChannelsOfType,
  cachedChannelsByRoutingKey,
  channelsByVerifyToken,
  loadChannel,
  type RuntimeChannel,
} from '../../../core/commands/channel-runtime.ts';
import { storeInboundEvents } from '../../../core/commands/inbound.ts';
import { connectorFor } from '../../../connectors/index.ts';
import type { AnyConnector, InboundEvent, WebhookRequest } from '../../../connectors/types.ts';
import { isUnsignedMetaChannel, verifyMetaSubscription } from '../../../connectors/meta.ts';
import { CRC_TOKEN_PATTERN, crcResponseToken } from '../../../connectors/x/index.ts';
import { twimlEmptyResponse } from '../../../connectors/sms/index.ts';
import { defineRoute } from '../../route.ts';
import { rawBody } from '../../middlewares/raw-body.ts';

const tags = ['Webhooks'];
const JSON_LIMIT = 1024 * 1024;
const MIME_LIMIT = 25 * 1024 * 1024;

const channelParams = z.object({ channel_id: z.uuid() });
const ack = z.object({ received: z.number().int().openapi({ description: 'New events stored (repeats are not counted)' }) });

const invalidSignature = () => new HttpError(401, { detail: 'Invalid webhook signature' });

function webhookRequest(ctx: Context, deps: Deps): WebhookRequest {
  const body = (ctx.request as { body?: unknown }).body;
  return {
    url: deps.config.publicUrl + ctx.originalUrl,
    headers: ctx.headers as Record<string, string | undefined>,
    rawBody: ctx.state.rawBody as Buffer,
    form: ctx.request.type === 'application/x-www-form-urlencoded' ? (body as Record<string, string>) : undefined,
  };
}

/** Unsigned Meta channels already warned about by this process: once per channel is enough. */
const warnedUnsigned = new Set<string>();

/**
 * A Meta channel without `app_secret` cannot have its posts checked: refused when
 * META_REQUIRE_SIGNATURE is on (the production default), else accepted with a warning.
 */
function admitUnsigned(deps: Deps, channel: RuntimeChannel): void {
  if (deps.config.META_REQUIRE_SIGNATURE) {
    throw new HttpError(401, { detail: 'Unsigned webhook refused: set the channel\'s app_secret' });
  }
  if (warnedUnsigned.has(channel.id)) return;
  warnedUnsigned.add(channel.id);
  deps.logger.warn(
    { channel_id: channel.id, business_id: channel.business_id, type: channel.type },
    'unsigned Meta webhook accepted: the channel has no app_secret (set it, or META_REQUIRE_SIGNATURE=true to refuse)',
  );
}

function requireConnector(type: string): AnyConnector {
  const connector = connectorFor(type);
  if (!connector) throw new Error(`no connector for ${type}`);
  return connector;
}

/** Stores each channel's events in one transaction (one statement for one channel); returns how many were new. */
async function store(deps: Deps, batches: { channel: RuntimeChannel; events: InboundEvent[] }[], raw: Buffer): Promise<number> {
  if (batches.every((b) => b.events.length === 0)) return 0;
  const text = raw.toString('utf8');
  if (batches.length === 1) return (await storeInboundEvents(deps.db, batches[0].channel, batches[0].events, text)).length;
  return deps.db.transaction(async (tx) => {
    let stored = 0;
    for (const { channel, events } of batches) stored += (await storeInboundEvents(tx, channel, events, text)).length;
    return stored;
  });
}

/** A webhook addressed to one channel by its id in the path. */
async function channelFromPath(deps: Deps, type: string, channelId: string): Promise<RuntimeChannel> {
  const channel = await loadChannel(deps.db, deps.config.encryptionKey, channelId);
  if (!channel || channel.type !== type || !channel.is_active) throw notFound('Channel not found');
  return channel;
}

/**
 * Shared endpoints (WhatsApp, Instagram, X): events are routed by the ids inside them, and
 * every channel they reach must accept the signature — or nothing is stored.
 */
async function receiveRouted(ctx: Context, deps: Deps, type: string): Promise<number> {
  const connector = requireConnector(type);
  const request = webhookRequest(ctx, deps);
  const events = await connector.parseWebhook(request);
  const byKey = new Map<string, InboundEvent[]>();
  for (const event of events) {
    if (!event.routingKey) continue;
    byKey.set(event.routingKey, [...(byKey.get(event.routingKey) ?? []), event]);
  }
  const batches: { channel: RuntimeChannel; events: InboundEvent[] }[] = [];
  for (const [key, keyed] of byKey) {
    for (const channel of await cachedChannelsByRoutingKey(deps.db, deps.config.encryptionKey, type, key)) {
      if (isUnsignedMetaChannel(type, channel.config)) admitUnsigned(deps, channel);
      if (!connector.verifyWebhook(request, channel.config, channel.state)) throw invalidSignature();
      batches.push({ channel, events: keyed });
    }
  }
  if (batches.length === 0 && events.length > 0) deps.logger.warn({ type, keys: [...byKey.keys()] }, 'webhook for no known channel: acknowledged and dropped');
  return store(deps, batches, request.rawBody);
}

/** Endpoints that carry the channel id: verify against that channel, then store. */
async function receiveForChannel(ctx: Context, deps: Deps, type: string, channelId: string): Promise<number> {
  const connector = requireConnector(type);
  const channel = await channelFromPath(deps, type, channelId);
  const request = webhookRequest(ctx, deps);
  if (!connector.verifyWebhook(request, channel.config, channel.state)) throw invalidSignature();
  const events = await connector.parseWebhook(request);
  return store(deps, [{ channel, events }], request.rawBody);
}

const metaVerification = (type: 'whatsapp' | 'instagram') =>
  defineRoute({
    method: 'get',
    path: `/api/v1/webhooks/${type}`,
    summary: `${type === 'whatsapp' ? 'WhatsApp' : 'Instagram'}: Meta's subscription handshake`,
    description: 'Answers `hub.challenge` as text when `hub.mode` is `subscribe` and `hub.verify_token` is the `verify_token` of an active channel of this type; 403 otherwise.',
    tags,
    auth: 'none',
    responseContentType: 'text/plain',
    response: z.string(),
    errors: [403],
    handler: async ({ ctx, deps }) => {
      const token = typeof ctx.query['hub.verify_token'] === 'string' ? ctx.query['hub.verify_token'] : '';
      const channels = token ? await channelsByVerifyToken(deps.db, deps.config.encryptionKey, type, token) : [];
      const verified = verifyMetaSubscription(ctx.query, channels.map(() => token));
      if (!verified) throw new HttpError(403, { detail: 'Verification failed' });
      ctx.type = 'text/plain';
      ctx.body = verified.challenge;
    },
  });

const metaEvents = (type: 'whatsapp' | 'instagram') =>
  defineRoute({
    method: 'post',
    path: `/api/v1/webhooks/${type}`,
    summary: `${type === 'whatsapp' ? 'WhatsApp' : 'Instagram'}: messages and delivery receipts from Meta`,
    description:
      'Routed by `metadata.phone_number_id` (WhatsApp) or the account id (Instagram). When the channel has an `app_secret`, `X-Hub-Signature-256` must match (401 otherwise, nothing stored). ' +
      'A channel without `app_secret` is insecure (its `warnings` say so): its posts are refused with 401 when META_REQUIRE_SIGNATURE is on (the default when NODE_ENV=production), else accepted and logged once per channel.',
    tags,
    auth: 'none',
    bodyParser: rawBody(JSON_LIMIT),
    response: ack,
    errors: [400, 401, 413],
    handler: async ({ ctx, deps }) => ({ received: await receiveRouted(ctx, deps, type) }),
  });

export const telegramEvents = defineRoute({
  method: 'post',
  path: '/api/v1/webhooks/telegram/:channel_id',
  summary: 'Telegram: updates for one bot',
  description: 'Telegram sends the channel\'s secret in `X-Telegram-Bot-Api-Secret-Token` (set by registration); 401 when it does not match.',
  tags,
  auth: 'none',
  params: channelParams,
  bodyParser: rawBody(JSON_LIMIT),
  response: ack,
  errors: [400, 401, 404, 413],
  handler: async ({ ctx, deps, params }) => ({ received: await receiveForChannel(ctx, deps, 'telegram', params.channel_id) }),
});

export const smsEvents = defineRoute({
  method: 'post',
  path: '/api/v1/webhooks/sms/:channel_id',
  summary: 'SMS (Twilio): inbound messages and status callbacks',
  description: '`X-Twilio-Signature` is checked against PUBLIC_URL + path with the channel\'s auth token (401 otherwise). Answers empty TwiML.',
  tags,
  auth: 'none',
  params: channelParams,
  bodyParser: rawBody(JSON_LIMIT),
  responseContentType: 'text/xml',
  response: z.string(),
  errors: [401, 404, 413],
  handler: async ({ ctx, deps, params }) => {
    await receiveForChannel(ctx, deps, 'sms', params.channel_id);
    const twiml = twimlEmptyResponse();
    ctx.type = twiml.contentType;
    ctx.body = twiml.body;
  },
});

export const emailEvents = defineRoute({
  method: 'post',
  path: '/api/v1/webhooks/email/:channel_id',
  summary: 'E-mail: one raw MIME message (for mail providers that forward by HTTP)',
  description: 'The body is the RFC 822 message (any content type, at most 25 MiB). Header `X-Parley-Webhook-Secret` must be the channel\'s webhook secret (shown to owners in the channel\'s `webhook_secret`); 401 otherwise.',
  tags,
  auth: 'none',
  params: channelParams,
  bodyParser: rawBody(MIME_LIMIT),
  response: ack,
  errors: [401, 404, 413],
  handler: async ({ ctx, deps, params }) => ({ received: await receiveForChannel(ctx, deps, 'email', params.channel_id) }),
});

export const xCrc = defineRoute({
  method: 'get',
  path: '/api/v1/webhooks/x',
  summary: 'X: the CRC challenge',
  description:
    'Answers `{response_token}` signed with the consumer secret of the X channel named by `channel_id`, or else of the active X channels, ' +
    'which X\'s own request cannot name: several channels of one X app share its consumer secret; when their secrets differ it is 400 ' +
    '(register `…/webhooks/x?channel_id=<id>` as that app\'s webhook URL instead); 404 when there is no X channel.',
  tags,
  auth: 'none',
  query: z.object({
    crc_token: z.string().regex(CRC_TOKEN_PATTERN, 'must be an X crc_token (1-128 base64 characters)').openapi({
      description: 'X\'s challenge: 1-128 characters of `A-Z a-z 0-9 + / _ = -`; anything else is 422, so no caller can have a webhook body signed',
    }),
    channel_id: z.uuid().optional(),
  }),
  response: z.object({ response_token: z.string() }),
  errors: [400, 404, 422],
  handler: async ({ query, deps }) => {
    let channel: RuntimeChannel | undefined;
    if (query.channel_id) channel = await channelFromPath(deps, 'x', query.channel_id);
    else {
      const all = await activeChannelsOfType(deps.db, deps.config.encryptionKey, 'x');
      // One app, several accounts: X's CRC names neither, but every channel of the app has its secret.
      if (new Set(all.map((c) => c.config.api_secret)).size > 1) throw badRequest('X channels with different consumer secrets exist: pass channel_id');
      channel = all[0];
    }
    if (!channel) throw notFound('Channel not found');
    return { response_token: crcResponseToken(channel.config.api_secret, query.crc_token) };
  },
});

export const xEvents = defineRoute({
  method: 'post',
  path: '/api/v1/webhooks/x',
  summary: 'X: direct message events',
  description: 'Routed by `for_user_id`; `x-twitter-webhooks-signature` must match the channel\'s consumer secret (401 otherwise).',
  tags,
  auth: 'none',
  bodyParser: rawBody(JSON_LIMIT),
  response: ack,
  errors: [400, 401, 413],
  handler: async ({ ctx, deps }) => ({ received: await receiveRouted(ctx, deps, 'x') }),
});

export default [
  metaVerification('whatsapp'),
  metaEvents('whatsapp'),
  metaVerification('instagram'),
  metaEvents('instagram'),
  telegramEvents,
  smsEvents,
  emailEvents,
  xCrc,
  xEvents,
];
