/**
 * The normalized shapes a connector speaks: what a webhook or a poll yields (customer messages,
 * delivery receipts) and what a send takes and returns. Platform formats stop at the connector.
 */
export type InboundAttachment = {
  /** A URL the platform serves the file at, when it gives one. */
  url?: string;
  /** The platform's file id (Telegram file_id, WhatsApp media id), when it gives one. */
  platform_file_id?: string;
  filename?: string;
  content_type?: string;
  /** Bytes, when known. */
  size?: number;
  /**
   * E-mail only: the MIME part's bytes, base64 (the message carries them; nothing to download).
   * Kept in the stored inbound event only: fetch_attachment reads them from there, the message never holds them.
   */
  content_base64?: string;
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
  /**
   * E-mail only: the mail's other recipients (To and Cc, addresses lower-cased), and its HTML part
   * sanitized (lib/email-html.ts; remote images disarmed, `remote_images` of them).
   */
  email?: { to: EmailAddress[]; cc: EmailAddress[]; html?: string; remote_images?: number };
};

/** An e-mail address, lower-cased, with the display name when known. */
export type EmailAddress = { address: string; name?: string };

/** One message of the conversation, quoted in a forward. */
export type ForwardedMessage = { from: string; date: string; text: string; html?: string };

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
  /** A WhatsApp template message instead of free text (`text` is its rendered body, for the record). */
  template?: { name: string; language: string; parameters: string[] };
  /**
   * E-mail only: copies (Cc, Bcc), the signature to append, or — for a forward — the outside
   * recipients and the quoted messages (`text` is the agent's note; no threading, subject "Fwd:").
   */
  email?: { cc: EmailAddress[]; bcc: EmailAddress[]; signature?: string; forward?: { to: EmailAddress[]; messages: ForwardedMessage[] } };
};

export type SendResult = {
  /** The platform's id for the sent message (e-mail: the Message-ID Parley set). */
  externalId: string;
};

/** What the internal connectors (webchat, widget) return: Parley is the platform, there is no other id. */
export type InternalSendResult = { externalId: null };

export type RegisterResult = {
  /** What the platform said, for the channel's `status`. */
  status: 'connected' | 'error';
  last_error?: string;
  /** Connector state to keep (e.g. `{mode: 'polling'}` or a webhook secret). */
  state?: Record<string, unknown>;
  /**
   * Whether the platform accepted these credentials for the account the channel names (its
   * routing key): only then is the account the channel's alone. Default: `connected` proves it.
   * False for a connection that could not be tied to the account (an SMS sender id that is not
   * a number of the Twilio account).
   */
  proven?: boolean;
};

export type PollResult = { events: InboundEvent[]; state: Record<string, unknown> };

/** A download of a customer's media (Connector.fetchMedia; connectors/media.ts), headers first, the body streamed. */
export type MediaDownload = {
  /** The bytes, streamed. */
  body: AsyncIterable<Uint8Array>;
  /** What the platform says the type is (sniffed again before storing). */
  contentType?: string;
  /** Content-Length, when the platform sent it. */
  size?: number;
  /** A name the platform gives (Content-Disposition), when none is known already. */
  filename?: string;
  /** Stops reading (the file was refused). */
  cancel: () => void;
};
