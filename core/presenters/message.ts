/** messages row → the spec's Message object (plus delivery_status, external_id, error). */
import { z } from '../../lib/zod.ts';
import { sql } from '../adapters/postgres/db.ts';
import { showRemoteImages } from '../../lib/email-html.ts';

export const senderTypes = ['agent', 'customer', 'ai', 'system'] as const;
export const deliveryStatuses = ['scheduled', 'queued', 'sent', 'delivered', 'read', 'failed'] as const;

export const messageRow = z.object({
  id: z.string(),
  conversation_id: z.string(),
  sender_type: z.enum(senderTypes),
  sender_id: z.string().nullable(),
  content: z.string(),
  attachments: z.array(z.record(z.string(), z.unknown())),
  delivery_status: z.enum(deliveryStatuses).nullable(),
  external_id: z.string().nullable(),
  error: z.string().nullable(),
  private: z.boolean(),
  send_at: z.string().nullable(),
  created_at: z.string(),
  /** Migration 0096; optional for statements that do not read them (null then). */
  html: z.string().nullable().optional(),
  email: z.record(z.string(), z.unknown()).nullable().optional(),
});
export type MessageRow = z.infer<typeof messageRow>;

/** The columns messageRow reads, for `select ${messageColumns} from messages m`. */
export const messageColumns = sql.fragment`m.id, m.conversation_id, m.sender_type, m.sender_id, m.content, m.attachments, m.delivery_status, m.external_id, m.error, m.private, m.send_at, m.created_at, m.html, m.email`;

export const attachmentSchema = z
  .object({
    url: z.string().optional().openapi({ description: 'Absolute URL of the file (uploads: readable without a token)' }),
    filename: z.string().optional(),
    content_type: z.string().optional(),
    size: z.number().int().optional().openapi({ description: 'Bytes' }),
  })
  .catchall(z.unknown())
  .openapi('Attachment', { description: "Agent attachments always carry all four fields; a customer's may lack some the platform did not give." });

const addressSchema = z
  .object({ address: z.string(), name: z.string().optional() })
  .openapi('EmailAddress', { description: 'An e-mail address (lower-cased) with its display name when known' });

export const emailDetailsSchema = z
  .object({
    to: z.array(addressSchema).openapi({ description: "A customer's mail: its To recipients (the support address among them)" }),
    cc: z.array(addressSchema).openapi({ description: "A customer's mail: its Cc recipients. A reply: the copies it was sent to" }),
    bcc: z.array(addressSchema).openapi({ description: 'A reply: its blind copies (shown to the team only)' }),
    signature: z.string().nullable().openapi({ description: "A reply: the signature appended when it was sent (the agent's, then the channel's)" }),
    forward_to: z
      .array(addressSchema)
      .nullable()
      .openapi({ description: 'A forward (POST …/forward): the outside recipients; the message is private to the team' }),
    forwarded_message_ids: z.array(z.uuid()).nullable().openapi({ description: 'A forward: the messages it quoted (null: the whole conversation)' }),
  })
  .openapi({ description: 'E-mail channels only (see docs/decisions.md#e-mail-in-depth); null elsewhere' });
export type EmailDetails = z.infer<typeof emailDetailsSchema>;

export const messageSchema = z
  .object({
    id: z.uuid(),
    conversation_id: z.uuid(),
    sender_type: z.enum(senderTypes),
    sender_id: z.uuid().nullable().openapi({ description: "The agent's user id for agent messages, else null" }),
    content: z.string(),
    attachments: z.array(attachmentSchema),
    delivery_status: z.enum(deliveryStatuses).nullable().openapi({
      description:
        'Outbound messages: queued → sent → delivered → read, or failed; `scheduled` while a reply waits for its `send_at`; null for customer messages and notes',
    }),
    external_id: z.string().nullable().openapi({ description: "The platform's message id, once known" }),
    error: z.string().nullable().openapi({ description: 'Why delivery failed, when it did' }),
    private: z.boolean().openapi({
      description:
        'A private note of the team (POST …/messages with `private: true`): never delivered nor shown to the customer; `delivery_status` null. See docs/decisions.md#private-notes-and-mentions.',
    }),
    send_at: z.string().nullable().openapi({
      description:
        'A scheduled reply (POST …/messages with `send_at`): when it goes out. While `delivery_status` is `scheduled` it can be edited or cancelled; when it goes out its `created_at` becomes that moment. See docs/decisions.md#snooze-priority-bulk-and-scheduled-send.',
    }),
    created_at: z.string(),
    html_sanitized: z
      .string()
      .nullable()
      .openapi({
        description:
          "A customer e-mail's HTML part, sanitized when received (no scripts, styles, event handlers, forms, frames or `javascript:` links); `content` keeps the plain text. " +
          'Remote images are blocked: their `<img>` carries `data-parley-src` instead of `src` until the request asks with `images=1`. Tracking pixels are removed. Null for everything else.',
      }),
    remote_images: z.number().int().openapi({ description: 'How many remote images `html_sanitized` holds (blocked unless `images=1`)' }),
    email: emailDetailsSchema.nullable(),
  })
  .openapi('Message');
export type Message = z.infer<typeof messageSchema>;

const addresses = (value: unknown) => (Array.isArray(value) ? (value as { address: string; name?: string }[]) : []);

function presentEmail(email: Record<string, unknown> | null | undefined): EmailDetails | null {
  if (!email) return null;
  const forward = email.forward as { to?: unknown; message_ids?: unknown } | undefined;
  return {
    to: addresses(email.to),
    cc: addresses(email.cc),
    bcc: addresses(email.bcc),
    signature: typeof email.signature === 'string' ? email.signature : null,
    forward_to: forward ? addresses(forward.to) : null,
    forwarded_message_ids: forward && Array.isArray(forward.message_ids) ? (forward.message_ids as string[]) : null,
  };
}

/** `images`: the agent asked to see the remote images of HTML mail (`?images=1`). */
export const presentMessage = (row: MessageRow, options: { images?: boolean } = {}): Message => ({
  id: row.id,
  conversation_id: row.conversation_id,
  sender_type: row.sender_type,
  sender_id: row.sender_id,
  content: row.content,
  attachments: row.attachments,
  delivery_status: row.delivery_status,
  external_id: row.external_id,
  error: row.error,
  private: row.private,
  send_at: row.send_at,
  created_at: row.created_at,
  html_sanitized: row.html ? (options.images ? showRemoteImages(row.html) : row.html) : null,
  remote_images: row.html && typeof row.email?.remote_images === 'number' ? row.email.remote_images : 0,
  email: presentEmail(row.email),
});
