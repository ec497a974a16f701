import { z } from '../../../lib/zod.ts';

export const memberParams = z.object({ member_id: z.uuid() });

export const conversationParams = z.object({ conversation_id: z.uuid() });

/** Any string: a value outside the three states is a 400, not a 422 (decisions.md). */
export const statusBody = z.object({
  status: z.string().openapi({ enum: ['live', 'away', 'offline'], example: 'live' }),
});

export const statusResponse = z.object({ status: z.enum(['live', 'away', 'offline']) }).openapi('TeamStatus');

/** `role` is any string so an unknown role is a 400 (decisions.md), not a 422. */
export const inviteQuery = z.object({
  email: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.email({ message: 'value is not a valid email address' }))
    .openapi({ type: 'string', format: 'email', description: 'E-mail of an existing user' }),
  role: z
    .string()
    .default('agent')
    .openapi({ enum: ['agent', 'admin'], default: 'agent' }),
});

export const inviteResponse = z
  .object({ message: z.string(), team_member_id: z.uuid().openapi({ description: 'The new membership id' }) })
  .openapi('TeamInvite');

export const assignQuery = z.object({
  agent_id: z.uuid().openapi({ description: 'The `user_id` of an active team member' }),
});

export { messageReply as messageResponse } from '../../openapi-replies.ts';

export const pendingHandoffSchema = z
  .object({
    id: z.uuid(),
    customer_id: z.uuid().nullable().openapi({ description: "The customer's `uuid`, or null" }),
    handoff_reason: z.string().openapi({ description: 'Why the AI agent asked for a human; empty when it gave no reason' }),
    status: z.enum(['open', 'pending']),
    created_at: z.string(),
  })
  .openapi('PendingHandoff');
