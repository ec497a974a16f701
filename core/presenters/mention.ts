/** mentions row (+ its note and conversation) → the Mention object of GET /api/v1/mentions and `mention_created` (read by core/reads/mentions.ts). */
import { z } from '../../lib/zod.ts';
import { messageRow, messageSchema, presentMessage } from './message.ts';

export const mentionRow = messageRow.extend({
  mention_id: z.string(),
  member_id: z.string(),
  /** The mentioned member's user id: their live events' room. */
  member_user_id: z.string(),
  mentioned_by: z.string().nullable(),
  mentioned_by_name: z.string().nullable(),
  customer_name: z.string().nullable(),
  conversation_status: z.string(),
  mentioned_at: z.string(),
  read_at: z.string().nullable(),
});
export type MentionRow = z.infer<typeof mentionRow>;

export const mentionSchema = z
  .object({
    id: z.uuid(),
    member_id: z.uuid().openapi({ description: "The mentioned membership (`id` of GET /api/v1/team/members): the caller's own" }),
    conversation_id: z.uuid(),
    message_id: z.uuid(),
    mentioned_by: z.uuid().nullable().openapi({ description: "User id of the note's author" }),
    mentioned_by_name: z.string().nullable().openapi({ description: "The author's full name (null once the account is gone)" }),
    customer_name: z.string().nullable().openapi({ description: "Name of the conversation's customer, when it has one" }),
    conversation_status: z.string().openapi({ description: "The conversation's status now" }),
    // The note as GET …/messages shows it (`private: true`); the named schema as it is (another description would be a second `Message`).
    message: messageSchema,
    read_at: z.string().nullable().openapi({ description: 'When the member marked it read (PATCH …/read); null while unread' }),
    created_at: z.string(),
  })
  .openapi('Mention');
export type Mention = z.infer<typeof mentionSchema>;

export const presentMention = (row: MentionRow): Mention => ({
  id: row.mention_id,
  member_id: row.member_id,
  conversation_id: row.conversation_id,
  message_id: row.id,
  mentioned_by: row.mentioned_by,
  mentioned_by_name: row.mentioned_by_name,
  customer_name: row.customer_name,
  conversation_status: row.conversation_status,
  message: presentMessage(row),
  read_at: row.read_at,
  created_at: row.mentioned_at,
});
