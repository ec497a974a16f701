/**
 * The Connector interface: one folder per channel type (connectors/<type>/index.ts) holds the
 * whole description of that channel — its config fields and which are secrets, how inbound is
 * routed, its webhook (path mode, handshake, signature check, answer), its setup text, its
 * platform base-URL setting — and adapts the platform's own library to Parley's normalized
 * shapes. Connectors never touch the database: routes and worker tasks do the lookups the
 * description asks for, call the connector, and store what it returns.
 *
 * How to add a channel:
 *  1. Write connectors/<type>/index.ts exporting a `Connector` (type, label, config fields,
 *     routing, webhook, setup text, base URL, send, optional register/poll).
 *  2. Add one line for it to connectors/index.ts (the registry is the list of channel types:
 *     the API's enums, the webhook routes and `GET /api/v1/channel-types` all come from it).
 *  3. Write a forward migration (sql/migrations/) adding the type to the `channels.type` check;
 *     test/channel-registry.test.ts fails until the check and the registry agree.
 *  4. Write a fake of the platform in test/fakes/<type>.ts that checks requests as the platform
 *     does, and tests that drive the connector against it through its base-URL setting.
 */
import type { InboundAttachment, InternalSendResult, MediaDownload, OutboundMessage, PollResult, RegisterResult, SendResult } from './messages.ts';
import type { WebhookSpec } from './webhook-spec.ts';
import type { ChannelConfig } from './channel-config.ts';

export type * from './messages.ts';
export type * from './webhook-spec.ts';

/** A channel type's name, as stored in `channels.type` (one per registered connector). */
export type ChannelType = string;

/** A stored channel config: every value a string (the spec says "all values strings"). */
export type { ChannelConfig } from './channel-config.ts';

export type ConnectorContext = {
  /**
   * This connector's platform base URL: its `baseUrl.env` setting, else its default (tests
   * point it at fakes); '' when neither is set (Twilio: the library's own hosts).
   */
  baseUrl: string;
  /** PUBLIC_URL of this service, without a trailing slash. */
  publicUrl: string;
  /**
   * ALLOW_PRIVATE_HOSTS: hosts named in a channel's config (mail servers) may be on loopback or
   * private networks. Default false: only public addresses (lib/host-safety.ts).
   */
  allowPrivateHosts?: boolean;
};

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

/** How a config value is checked and normalized (core/domain/channels/channel-config.ts). */
export type ConfigRule = 'text' | 'port' | 'email' | 'twilio_sid';

/** One config field of a channel type: what the API checks and what a dashboard's form shows. */
export type ConfigField = {
  key: string;
  /** Default `text` (trimmed); `port` 1-65535 kept as a string; `email` lower-cased; `twilio_sid` starts with AC. */
  rule?: ConfigRule;
  /** A missing required field is 400 `Missing required config fields: …`. */
  required: boolean;
  /** A credential: encrypted at rest like every value, shown as "********" to agents. */
  secret?: boolean;
  /** Names a server the workers connect to: checked against internal addresses (lib/host-safety.ts). */
  host?: boolean;
  /** Names a widget: it must be one of the channel's business (checked by core/commands/channels.ts). */
  widget?: boolean;
  /** The form label, in the platform's words. */
  label: string;
  placeholder?: string;
  /** Several lines of text (a signature): forms show a text area. */
  multiline?: boolean;
};

/** What inbound routing needs in plain columns (see core/commands/channels.ts). */
export type ChannelRouting = {
  /** The platform account, unique per type across all businesses; null when unknown until registration. */
  routingKey: string | null;
  /** Meta's webhook handshake token. */
  verifyToken: string | null;
};

export type Connector<C = ChannelConfig> = {
  /** The channel type, as stored in `channels.type`. */
  type: ChannelType;
  /** The platform's name for people, e.g. `WhatsApp`. */
  label: string;
  /**
   * Parley is the platform (webchat, widget): connected from the start, nothing to register or
   * reconnect, no recipient id needed to deliver.
   */
  internal?: boolean;
  /** May be connected on plans limited to widget channels (Free); default false. */
  onWidgetOnlyPlans?: boolean;
  /** Delivered replies are pushed to the website visitor's open widgets (the /widget socket). */
  liveToVisitor?: boolean;
  /**
   * Conversations are threads the platform names (e-mail): an inbound message joins the
   * conversation of a message its `references` name (none: a new conversation), and replies
   * carry the conversation's thread (earlier Message-IDs and subject). Otherwise a customer's
   * message joins their latest conversation on the channel.
   */
  threaded?: boolean;
  /** The config fields (decisions.md "Required config by type"); unknown keys are dropped. */
  config: readonly ConfigField[];
  /** Extra rules of the type, applied by core/domain/channels/channel-config.ts around the field checks. */
  normalize?: {
    /** Fields required for this input beyond the `required` ones (e-mail: any IMAP field needs the IMAP set). */
    alsoRequired?: (input: Record<string, unknown>) => string[];
    /** The checked config completed with defaults (IMAP port, a generated verify token). */
    complete?: (config: ChannelConfig) => ChannelConfig;
  };
  /** The plain copies inbound routing needs; default none. */
  routing?: (config: ChannelConfig) => ChannelRouting;
  /** 400 when another channel already holds the routing key (the platform account). */
  duplicateAccountMessage: string;
  /** How the platform posts to Parley; absent: it does not (webchat, widget). */
  webhook?: WebhookSpec<C>;
  /**
   * Fields added to the config of create and update responses (owners see how to finish the
   * setup on the platform's side); `webhookUrl` is the channel's webhook URL.
   */
  setupFields?: (config: ChannelConfig, webhookUrl: string) => Record<string, unknown>;
  /**
   * How to connect it, for dashboards: one paragraph, then the steps in order; `afterConnect`
   * is what the owner still sets in the platform once the channel exists, each value named by
   * its place on the channel object (`webhook_url`, `config.verify_token`, `inbound_webhook.url`).
   */
  setup: { intro: string; steps: string[]; afterConnect?: { text: string; values: { label: string; source: string }[] } };
  /** A small icon for lists: one SVG path on a 24×24 grid, stroked in `color`. */
  icon: { color: string; path: string };
  /** The config field that tells two channels of the type apart in a list (a number, an address); absent: none does. */
  titleField?: string;
  /** The platform's base URL setting (core/config.ts builds the env entry from it). */
  baseUrl?: {
    /** The environment variable, e.g. `TELEGRAM_API_URL`. */
    env: string;
    /** The real service; absent: the platform library's own hosts. */
    default?: string;
    description: string;
  };
  /** Sends one message; throws ConnectorError (transient or permanent) on failure. */
  send: (config: C, message: OutboundMessage, context: ConnectorContext) => Promise<SendResult | InternalSendResult>;
  /**
   * Registers the channel with the platform (e.g. Telegram setWebhook). `webhookUrl` is where the
   * platform should post; `secret` is a per-channel secret the platform should echo back.
   */
  register?: (config: C, input: { webhookUrl: string; secret: string; state: Record<string, unknown> }, context: ConnectorContext) => Promise<RegisterResult>;
  /**
   * Downloads one attachment a customer sent (fetch_attachment), as the platform serves it:
   * by its file id or URL, with the channel's credentials. Throws ConnectorError. Absent: the
   * attachment stays metadata only.
   */
  fetchMedia?: (config: C, attachment: InboundAttachment, context: ConnectorContext) => Promise<MediaDownload>;
  /** For channels that cannot push (Telegram without https, IMAP): fetch new events since `state`. */
  poll?: (config: C, state: Record<string, unknown>, context: ConnectorContext) => Promise<PollResult>;
  /**
   * The name of a customer whose messages carry none (Instagram: the User Profile API), by their
   * platform id; null when the platform has none to give. Throws ConnectorError. Absent: the
   * customer keeps the name their messages gave.
   */
  customerName?: (config: C, platformUserId: string, context: ConnectorContext) => Promise<string | null>;
};

/** A platform connector: it has a webhook, and every message it sends gets the platform's id. */
export type WebhookConnector<C = ChannelConfig> = Omit<Connector<C>, 'webhook' | 'send'> & {
  webhook: WebhookSpec<C>;
  send: (config: C, message: OutboundMessage, context: ConnectorContext) => Promise<SendResult>;
};

export type AnyConnector = Connector<any>;
