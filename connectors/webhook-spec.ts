/**
 * How a platform posts to Parley, as a connector describes it: the path mode, the signature
 * check, the parse, the answer and the handshake. api/routes/webhooks/routes.ts turns each
 * description into documented routes; the connector never sees the database.
 */
import type { z } from 'zod';
import type { ChannelConfig } from './channel-config.ts';
import type { InboundEvent } from './messages.ts';

/** A webhook request as the route received it. */
export type WebhookRequest = {
  /** The full public URL the platform posted to (PUBLIC_URL + path + query), for Twilio signatures. */
  url: string;
  /** Lower-cased header names. */
  headers: Record<string, string | undefined>;
  /** The exact bytes received (signatures are computed over these). */
  rawBody: Buffer;
  /** Parsed form fields for form-encoded bodies (Twilio), else undefined. */
  form?: Record<string, string>;
};

/** Which channels a webhook handshake is answered for; the route looks them up. */
export type HandshakeLookup = { by: 'verify_token'; token: string } | { by: 'channel'; channelId: string } | { by: 'all' } | { by: 'none' };

/** A handshake's answer: the body (JSON, or text with `contentType`), or a refusal the route turns into `{detail}`. */
export type HandshakeAnswer = { body: unknown; contentType?: string } | { refused: 400 | 403 | 404; detail: string };

/** A GET on the webhook's own path that the platform calls to prove the URL is ours (Meta's hub.challenge, X's CRC). */
export type WebhookHandshake<C> = {
  /** OpenAPI summary and description of the GET route. */
  summary: string;
  description: string;
  /** The query schema (validated: 422 otherwise); without one the raw query is passed. */
  query?: z.ZodType;
  response: z.ZodType;
  /** E.g. `text/plain`; default JSON. */
  responseContentType?: string;
  errors: number[];
  lookup: (query: Record<string, unknown>) => HandshakeLookup;
  answer: (query: Record<string, unknown>, channels: { config: C }[]) => HandshakeAnswer;
};

/** How a platform posts to Parley. */
export type WebhookSpec<C> = {
  /**
   * `channel`: POST /api/v1/webhooks/<type>/{channel_id}, verified against that channel.
   * `shared`: POST /api/v1/webhooks/<type> for every channel of the type, routed by each
   * event's routingKey; every channel reached must accept the signature.
   */
  mode: 'channel' | 'shared';
  /**
   * Who configures the URL: `platform` (shown as the channel's `webhook_url`: set by
   * registration or pasted into the platform's console), or `owner` (shown with the channel's
   * webhook secret as `inbound_webhook`, to owners and admins only: e-mail forwarding).
   */
  audience: 'platform' | 'owner';
  /** Largest accepted body, in bytes (413 above). */
  bodyLimit: number;
  /** OpenAPI summary and description of the POST route. */
  summary: string;
  description: string;
  errors: number[];
  /**
   * Checks a webhook's signature or secret. `state` is the channel's connector state (e.g. a
   * generated webhook secret). Returns false for a request that must be refused (401).
   */
  verify: (request: WebhookRequest, config: C, state: Record<string, unknown>) => boolean;
  /**
   * Parses a verified webhook body into normalized events (may be empty: echoes, unknown types).
   * May be async (e-mail parses MIME with an async parser): callers always `await` the result.
   */
  parse: (request: WebhookRequest) => InboundEvent[] | Promise<InboundEvent[]>;
  /** A fixed answer (Twilio's empty TwiML); default the JSON ack `{received}`. */
  reply?: { contentType: string; body: string };
  /**
   * Channels whose posts cannot be checked (a Meta channel without app_secret): refused with
   * 401 `refusal` when META_REQUIRE_SIGNATURE is on, else accepted with `log` once per channel;
   * `warning` is shown in the channel's `warnings`.
   */
  unsigned?: { is: (config: C) => boolean; refusal: string; log: string; warning: string };
  handshake?: WebhookHandshake<C>;
};
