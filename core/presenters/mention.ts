/** mentions row (+ its note and conversation) → the Mention object of GET /api/v1/mentions and `mention_created`. */
import { z } from '../../lib/zod.ts';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { messageColumns, messageRow, messageSchema, presentMessage } from './message.ts';

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

/**
 * What mentionRow reads, for `from mentions mn join messages m … join conversations c …
 * left join customers cu … left join users au on au.id = mn.mentioned_by`.
 */
export const mentionColumns = sql.fragment`
  ${messageColumns}, mn.id as mention_id, mn.member_id, tm.user_id as member_user_id, mn.mentioned_by, au.full_name as mentioned_by_name,
  cu.name as customer_name, c.status as conversation_status, mn.created_at as mentioned_at, mn.read_at`;

export const mentionJoins = sql.fragment`
  join messages m on m.id = mn.message_id and m.business_id = mn.business_id
  join conversations c on c.id = mn.conversation_id
  join team_members tm on tm.id = mn.member_id
  left join customers cu on cu.id = c.customer_id
  left join users au on au.id = mn.mentioned_by`;

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

/** These mentions of the business, presented with their member's user id, keyed by id (ones not found are left out). */
export async function mentionsByIds(q: Queryable, businessId: string, ids: string[]): Promise<Map<string, { userId: string; mention: Mention }>> {
  if (ids.length === 0) return new Map();
  const rows = await q.any(sql.type(mentionRow)`
    select ${mentionColumns} from mentions mn ${mentionJoins}
    where mn.business_id = ${businessId} and mn.id = any(${sql.array([...new Set(ids)], 'uuid')})`);
  return new Map(rows.map((r) => [r.mention_id, { userId: r.member_user_id, mention: presentMention(r) }]));
}
