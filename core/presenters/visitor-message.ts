/**
 * A message as a website visitor sees it (the visitor API, the `/widget` socket): the
 * customer's own messages and the replies of agents and the AI agent, without what is internal
 * to the business. Which messages qualify: core/reads/visitor-messages.ts.
 */
import { z } from 'zod';

export const visitorSenderTypes = ['customer', 'agent', 'ai', 'system'] as const;

export const visitorMessageRow = z.object({
  id: z.string(),
  conversation_id: z.string(),
  sender_type: z.enum(visitorSenderTypes),
  content: z.string(),
  attachments: z.array(z.record(z.string(), z.unknown())),
  created_at: z.string(),
  /** The satisfaction question sent on resolution: the token to rate with (POST /api/v1/csat/{token}) and the rating once given. */
  csat: z.object({ token: z.string(), rating: z.number().nullable() }).nullable().optional(),
});
export type VisitorMessage = z.infer<typeof visitorMessageRow>;

export const presentVisitorMessage = (row: VisitorMessage): VisitorMessage => ({
  id: row.id,
  conversation_id: row.conversation_id,
  sender_type: row.sender_type,
  content: row.content,
  attachments: row.attachments,
  created_at: row.created_at,
  ...(row.csat ? { csat: row.csat } : {}),
});
