/**
 * The Connector interface: one module per platform (connectors/<type>/index.ts) adapts that
 * platform's own library to Parley's normalized shapes. Connectors never touch the database:
 * the worker tasks load rows, call a connector, and store what it returns.
 *
 * How to add a channel:
 *  1. Write connectors/<type>/index.ts exporting a `Connector` (config schema, secret fields,
 *     webhook verification, inbound parsing, send, optional register/poll, error classifier).
 *  2. Add it to connectors/index.ts.
 *  3. Write a fake of the platform in test/fakes/<type>.ts that checks requests as the platform
 *     does, and tests that drive the connector against it through its base-URL setting.
 */
import type { z } from 'zod';

export type ChannelType = 'webchat' | 'widget' | 'email' | 'whatsapp' | 'telegram' | 'instagram' | 'x' | 'sms';

/** Base URLs of the platforms (defaults: the real services; tests point them at fakes). */
export type PlatformUrls = {
  /** TELEGRAM_API_URL, e.g. https://api.telegram.org */
  telegram: string;
  /** META_GRAPH_URL, e.g. https://graph.facebook.com/v23.0 (WhatsApp) */
  metaGraph: string;
  /** INSTAGRAM_GRAPH_URL, e.g. https://graph.instagram.com/v23.0 */
  instagramGraph: string;
  /** TWILIO_API_URL; undefined = Twilio's own hosts */
  twilio?: string;
  /** X_API_URL, e.g. https://api.x.com */
  x: string;
};

export type ConnectorContext = {
  urls: PlatformUrls;
  /** PUBLIC_URL of this service, without a trailing slash. */
  publicUrl: string;
  /**
   * ALLOW_PRIVATE_HOSTS: hosts named in a channel's config (mail servers) may be on loopback or
   * private networks. Default false: only public addresses (core/host-safety.ts).
   */
  allowPrivateHosts?: boolean;
};

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

export type InboundAttachment = {
  /** A URL the platform serves the file at, when it gives one. */
  url?: string;
  /** The platform's file id (Telegram file_id, WhatsApp media id), when it gives one. */
  platform_file_id?: string;
  filename?: string;
  content_type?: string;
  /** Bytes, when known. */
  size?: number;
};

/** One customer message, normalized. */
export type InboundMessage = {
  kind: 'message';
  /** Which channel it belongs to, for endpoints shared by many channels (WhatsApp phone_number_id, Instagram account id, X for_user_id). */
  routingKey?: string;
  /** The platform's message id: unique per channel; a redelivery has the same one. */
  externalId: string;
  from: {
    /** The customer's id on the platform (chat id, wa_id, PSID, phone, e-mail address). */
    platformUserId: string;
    name?: string;
    email?: string;
    phone?: string;
  };
  text: string;
  attachments: InboundAttachment[];
  /** When the platform says it was sent (ISO 8601). */
  sentAt: string;
  /** E-mail only: Message-IDs from In-Reply-To and References, nearest parent first. */
  references?: string[];
  /** E-mail only. */
  subject?: string;
};

/** A platform's delivery receipt for a message Parley sent. */
export type DeliveryReceipt = {
  kind: 'receipt';
  routingKey?: string;
  /** The platform's id of the message Parley sent (what send() returned). */
  externalId: string;
  status: 'sent' | 'delivered' | 'read' | 'failed';
  /** The platform's reason, for `failed`. */
  error?: string;
  at: string;
};

export type InboundEvent = InboundMessage | DeliveryReceipt;

export type OutboundAttachment = { url: string; filename: string; content_type: string; size: number };

export type OutboundMessage = {
  /** The customer: platformUserId is what InboundMessage.from.platformUserId was. */
  to: { platformUserId: string; name?: string; email?: string; phone?: string };
  text: string;
  attachments: OutboundAttachment[];
  /** Parley's message id (used to build e-mail Message-IDs). */
  messageId: string;
  /** E-mail threading: the Message-IDs of the conversation so far, oldest first, and its subject. */
  thread?: { references: string[]; subject?: string };
  /**
   * Where the platform should post this message's delivery receipts, for platforms that take it
   * per message (Twilio `statusCallback`): the channel's webhook URL. Omitted: no receipts asked.
   */
  statusCallbackUrl?: string;
};

export type SendResult = {
  /** The platform's id for the sent message (e-mail: the Message-ID Parley set). */
  externalId: string;
};

export type RegisterResult = {
  /** What the platform said, for the channel's `status`. */
  status: 'connected' | 'error';
  last_error?: string;
  /** Connector state to keep (e.g. `{mode: 'polling'}` or a webhook secret). */
  state?: Record<string, unknown>;
};

export type PollResult = { events: InboundEvent[]; state: Record<string, unknown> };

/**
 * A failure talking to a platform. `transient` (network, 5xx, 429) is retried with backoff;
 * `permanent` (bad credentials, blocked recipient, outside the messaging window) marks the
 * message failed with `message` as the platform's reason.
 */
export class ConnectorError extends Error {
  readonly kind: 'transient' | 'permanent';
  /** Seconds the platform asked us to wait (429 Retry-After). */
  readonly retryAfterSeconds?: number;
  constructor(kind: 'transient' | 'permanent', message: string, retryAfterSeconds?: number) {
    super(message);
    this.name = 'ConnectorError';
    this.kind = kind;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export type Connector<C = Record<string, string>> = {
  type: ChannelType;
  /** The channel config this connector needs (decisions.md "Required config by type"). */
  configSchema: z.ZodType<C>;
  /** Config keys that are secrets: encrypted at rest, masked for agents. */
  secretFields: readonly string[];
  /**
   * Checks a webhook's signature or secret. `state` is the channel's connector state (e.g. a
   * generated webhook secret). Returns false for a request that must be refused.
   */
  verifyWebhook: (request: WebhookRequest, config: C, state: Record<string, unknown>) => boolean;
  /**
   * Parses a verified webhook body into normalized events (may be empty: echoes, unknown types).
   * May be async (e-mail parses MIME with an async parser): callers always `await` the result.
   */
  parseWebhook: (request: WebhookRequest) => InboundEvent[] | Promise<InboundEvent[]>;
  /** Sends one message; throws ConnectorError (transient or permanent) on failure. */
  send: (config: C, message: OutboundMessage, context: ConnectorContext) => Promise<SendResult>;
  /**
   * Registers the channel with the platform (e.g. Telegram setWebhook). `webhookUrl` is where the
   * platform should post; `secret` is a per-channel secret the platform should echo back.
   */
  register?: (config: C, input: { webhookUrl: string; secret: string; state: Record<string, unknown> }, context: ConnectorContext) => Promise<RegisterResult>;
  /** For channels that cannot push (Telegram without https, IMAP): fetch new events since `state`. */
  poll?: (config: C, state: Record<string, unknown>, context: ConnectorContext) => Promise<PollResult>;
};

export type AnyConnector = Connector<any>;
