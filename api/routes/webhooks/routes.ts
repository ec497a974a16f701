/**
 * Inbound platform webhooks, one POST route (and a GET handshake where the platform has one) per
 * connector with a webhook, generated from the registry: the path comes from the connector's
 * webhook mode, the documentation from its description. Each request is verified (signature or
 * per-channel secret), its events are stored with their processing jobs in one transaction, and
 * only then is it acknowledged — in milliseconds, since the slow work happens in
 * `process_inbound`. A bad signature is refused with 401 and stores nothing; a redelivered event
 * is acknowledged and dropped (unique per channel and platform message id).
 */
import type { Context } from 'koa';
import { z } from '../../../lib/zod.ts';
import { HttpError, notFound } from '../../../core/errors.ts';
import type { Deps } from '../../../core/deps.ts';
import { activeChannelsOfType, cachedChannelsByRoutingKey, channelsByVerifyToken, loadChannel } from '../../../core/commands/channel-runtime.ts';
import type { RuntimeChannel } from '../../../core/domain/channels/channel-row.ts';
import { storeInboundEvents } from '../../../core/commands/inbound.ts';
import { webhookPath } from '../../../core/domain/channels/webhook-urls.ts';
import { connectors } from '../../../connectors/index.ts';
import type { AnyConnector, HandshakeLookup, InboundEvent, WebhookHandshake, WebhookRequest, WebhookSpec } from '../../../connectors/types.ts';
import { defineRoute, type AnyRoute } from '../../route.ts';
import { rawBody } from '../../middlewares/raw-body.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import { turnstile } from '../../../lib/one-at-a-time.ts';

const tags = ['Webhooks'];

const channelParams = z.object({ channel_id: z.uuid() });
const ack = z.object({ received: z.number().int().openapi({ description: 'New events stored (repeats are not counted)' }) });

type Webhook = WebhookSpec<any>;

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

/** Unsigned channels already warned about by this process: once per channel is enough. */
const warnedUnsigned = new Set<string>();

/**
 * A channel whose posts cannot be checked (a Meta channel without `app_secret`): refused when
 * META_REQUIRE_SIGNATURE is on (the production default), else accepted with a warning.
 */
function admitUnsigned(deps: Deps, channel: RuntimeChannel, unsigned: NonNullable<Webhook['unsigned']>): void {
  if (deps.config.META_REQUIRE_SIGNATURE) throw new HttpError(401, { detail: unsigned.refusal });
  if (warnedUnsigned.has(channel.id)) return;
  warnedUnsigned.add(channel.id);
  deps.logger.warn({ channel_id: channel.id, business_id: channel.business_id, type: channel.type }, unsigned.log);
}

/** Refuses a post the channel does not accept. */
function verify(deps: Deps, webhook: Webhook, request: WebhookRequest, channel: RuntimeChannel): void {
  if (webhook.unsigned?.is(channel.config)) admitUnsigned(deps, channel, webhook.unsigned);
  if (!webhook.verify(request, channel.config, channel.state)) throw invalidSignature();
}

/** Stores each channel's events in one transaction (one statement for one channel); returns how many were new. */
async function store(deps: Deps, batches: { channel: RuntimeChannel; events: InboundEvent[] }[], raw: Buffer): Promise<number> {
  if (batches.every((b) => b.events.length === 0)) return 0;
  const text = raw.toString('utf8');
  const { stored } = await runCommand(
    deps,
    async (q) => {
      let stored = 0;
      for (const { channel, events } of batches) stored += (await storeInboundEvents(q, channel, events, text)).length;
      return { stored };
    },
    { oneStatement: batches.length === 1 },
  );
  return stored;
}

/** A webhook addressed to one channel by its id (in the path, or a handshake's query). */
async function channelById(deps: Deps, type: string, channelId: string): Promise<RuntimeChannel> {
  const channel = await loadChannel(deps.db, deps.config.encryptionKey, channelId);
  if (!channel || channel.type !== type || !channel.is_active) throw notFound('Channel not found');
  return channel;
}

/**
 * Shared endpoints: events are routed by the ids inside them, and every channel they reach must
 * accept the signature — or nothing is stored.
 */
async function receiveShared(ctx: Context, deps: Deps, type: string, webhook: Webhook): Promise<number> {
  const request = webhookRequest(ctx, deps);
  return inTurn(request, () => receiveSharedEvents(deps, type, webhook, request));
}

async function receiveSharedEvents(deps: Deps, type: string, webhook: Webhook, request: WebhookRequest): Promise<number> {
  const events = await webhook.parse(request);
  const byKey = new Map<string, InboundEvent[]>();
  for (const event of events) {
    if (!event.routingKey) continue;
    byKey.set(event.routingKey, [...(byKey.get(event.routingKey) ?? []), event]);
  }
  const batches: { channel: RuntimeChannel; events: InboundEvent[] }[] = [];
  for (const [key, keyed] of byKey) {
    for (const channel of await cachedChannelsByRoutingKey(deps.db, deps.config.encryptionKey, type, key)) {
      verify(deps, webhook, request, channel);
      batches.push({ channel, events: keyed });
    }
  }
  if (batches.length === 0 && events.length > 0) deps.logger.warn({ type, keys: [...byKey.keys()] }, 'webhook for no known channel: acknowledged and dropped');
  return store(deps, batches, request.rawBody);
}

/**
 * Posts larger than this are parsed and stored one at a time per process. A 25 MB e-mail holds
 * about its own size again in JavaScript strings while it is parsed and stored (the raw text,
 * its parts in base64, the event's JSON), and the web process's old space is capped (Procfile:
 * --max-old-space-size=96): a burst of them at once could otherwise add up past the cap. Their
 * raw bodies are read beside each other as before (Buffers, outside the JavaScript heap).
 */
const LARGE_BODY_BYTES = 1024 * 1024;
const largeBodies = turnstile();
const inTurn = <T>(request: WebhookRequest, work: () => Promise<T>): Promise<T> =>
  request.rawBody.length > LARGE_BODY_BYTES ? largeBodies.inTurn(work) : work();

/** Endpoints that carry the channel id: verify against that channel, then store. */
async function receiveForChannel(ctx: Context, deps: Deps, type: string, webhook: Webhook, channelId: string): Promise<number> {
  const channel = await channelById(deps, type, channelId);
  const request = webhookRequest(ctx, deps);
  verify(deps, webhook, request, channel);
  return inTurn(request, async () => store(deps, [{ channel, events: await webhook.parse(request) }], request.rawBody));
}

/** The answer: the connector's fixed reply (Twilio's TwiML) or the JSON ack. */
function answer(ctx: Context, webhook: Webhook, received: number): { received: number } | undefined {
  if (!webhook.reply) return { received };
  ctx.type = webhook.reply.contentType;
  ctx.body = webhook.reply.body;
  return undefined;
}

function eventsRoute(type: string, webhook: Webhook): AnyRoute {
  const common = {
    method: 'post' as const,
    summary: webhook.summary,
    description: `${webhook.description} See docs/decisions.md#webhooks.`,
    tags,
    auth: 'none' as const,
    bodyParser: rawBody(webhook.bodyLimit),
    ...(webhook.reply ? { responseContentType: webhook.reply.contentType, response: z.string() } : { response: ack }),
    errors: webhook.errors,
  };
  if (webhook.mode === 'shared') {
    return defineRoute({
      ...common,
      path: webhookPath(type),
      handler: async ({ ctx, deps }) => answer(ctx, webhook, await receiveShared(ctx, deps, type, webhook)),
    });
  }
  return defineRoute({
    ...common,
    path: webhookPath(type, ':channel_id'),
    params: channelParams,
    handler: async ({ ctx, deps, params }) => answer(ctx, webhook, await receiveForChannel(ctx, deps, type, webhook, params.channel_id)),
  });
}

/** The channels a handshake answers for (the connector says which). */
async function handshakeChannels(deps: Deps, type: string, lookup: HandshakeLookup): Promise<RuntimeChannel[]> {
  const key = deps.config.encryptionKey;
  if (lookup.by === 'verify_token') return channelsByVerifyToken(deps.db, key, type, lookup.token);
  if (lookup.by === 'channel') return [await channelById(deps, type, lookup.channelId)];
  if (lookup.by === 'all') return activeChannelsOfType(deps.db, key, type);
  return [];
}

function handshakeRoute(type: string, handshake: WebhookHandshake<any>): AnyRoute {
  return defineRoute<Record<string, never>, Record<string, unknown>, undefined, 'none'>({
    method: 'get',
    path: webhookPath(type),
    summary: handshake.summary,
    description: `${handshake.description} See docs/decisions.md#webhooks.`,
    tags,
    auth: 'none',
    query: handshake.query as z.ZodType<Record<string, unknown>> | undefined,
    responseContentType: handshake.responseContentType,
    response: handshake.response,
    errors: handshake.errors,
    handler: async ({ ctx, deps, query }) => {
      const input = handshake.query ? query : (ctx.query as Record<string, unknown>);
      const result = handshake.answer(input, await handshakeChannels(deps, type, handshake.lookup(input)));
      if ('refused' in result) throw new HttpError(result.refused, { detail: result.detail });
      if (!result.contentType) return result.body;
      ctx.type = result.contentType;
      ctx.body = result.body;
      return undefined;
    },
  });
}

/** Every connector's webhook routes: the handshake (GET) before the events (POST) of one path. */
export function webhookRoutes(all: readonly AnyConnector[]): AnyRoute[] {
  return all.flatMap(({ type, webhook }) => {
    if (!webhook) return [];
    return webhook.handshake ? [handshakeRoute(type, webhook.handshake), eventsRoute(type, webhook)] : [eventsRoute(type, webhook)];
  });
}

export default webhookRoutes(connectors);
