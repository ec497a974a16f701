/** messages row → the spec's Message object (plus delivery_status, external_id, error). */
import { z } from '../../lib/zod.ts';
import { sql } from '../adapters/postgres/db.ts';

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
});
export type MessageRow = z.infer<typeof messageRow>;

/** The columns messageRow reads, for `select ${messageColumns} from messages m`. */
export const messageColumns = sql.fragment`m.id, m.conversation_id, m.sender_type, m.sender_id, m.content, m.attachments, m.delivery_status, m.external_id, m.error, m.private, m.send_at, m.created_at`;

export const attachmentSchema = z
  .object({
    url: z.string().optional().openapi({ description: 'Absolute URL of the file (uploads: readable without a token)' }),
    filename: z.string().optional(),
    content_type: z.string().optional(),
    size: z.number().int().optional().openapi({ description: 'Bytes' }),
  })
  .catchall(z.unknown())
  .openapi('Attachment', { description: 'Agent attachments always carry all four fields; a customer\'s may lack some the platform did not give.' });

export const messageSchema = z
  .object({
    id: z.uuid(),
    conversation_id: z.uuid(),
    sender_type: z.enum(senderTypes),
    sender_id: z.uuid().nullable().openapi({ description: 'The agent\'s user id for agent messages, else null' }),
    content: z.string(),
    attachments: z.array(attachmentSchema),
    delivery_status: z.enum(deliveryStatuses).nullable().openapi({ description: 'Outbound messages: queued → sent → delivered → read, or failed; `scheduled` while a reply waits for its `send_at`; null for customer messages and notes' }),
    external_id: z.string().nullable().openapi({ description: 'The platform\'s message id, once known' }),
    error: z.string().nullable().openapi({ description: 'Why delivery failed, when it did' }),
    private: z.boolean().openapi({
      description: 'A private note of the team (POST …/messages with `private: true`): never delivered nor shown to the customer; `delivery_status` null. See docs/decisions.md#private-notes-and-mentions.',
    }),
    send_at: z.string().nullable().openapi({
      description: 'A scheduled reply (POST …/messages with `send_at`): when it goes out. While `delivery_status` is `scheduled` it can be edited or cancelled; when it goes out its `created_at` becomes that moment. See docs/decisions.md#snooze-priority-bulk-and-scheduled-send.',
    }),
    created_at: z.string(),
  })
  .openapi('Message');
export type Message = z.infer<typeof messageSchema>;

export const presentMessage = (row: MessageRow): Message => ({
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
});
