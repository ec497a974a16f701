import { z } from '../../../lib/zod.ts';
import { intParam } from '../../validation.ts';
import { nameCursorParam } from '../labels/schema.ts';

const name = z
  .string()
  .trim()
  .min(1)
  .max(80)
  .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), { message: 'A team name cannot contain control characters' });
const description = z.string().trim().max(500);

export const teamParams = z.object({ team_id: z.uuid() });

export const createTeamBody = z.object({
  name: name.openapi({ description: '1–80 characters; unique in the business whatever its case' }),
  description: description.default('').openapi({ description: 'Up to 500 characters', default: '' }),
});

export const updateTeamBody = z.object({ name: name.optional(), description: description.optional() });

export const listTeamsQuery = z.object({
  limit: intParam({ min: 1, max: 200 }).default(100).openapi({ default: 100 }),
  cursor: nameCursorParam.optional(),
});

export const listTeamMembersQuery = z.object({
  limit: intParam({ min: 1, max: 200 }).default(100).openapi({ default: 100 }),
  cursor: intParam({ type: 'int4', min: 0 }).optional().openapi({ type: 'string', description: 'The X-Next-Cursor header of the previous page (opaque)' }),
});

export const setTeamMembersBody = z.object({
  member_ids: z
    .array(z.uuid())
    .max(1000)
    .openapi({ description: "Membership ids (GET /api/v1/team/members `id`) of active members; the team's members become exactly these. `[]` empties it." }),
});

export const teamMemberIdsResponse = z
  .object({ member_ids: z.array(z.uuid()).openapi({ description: "The team's members now (membership ids)" }) })
  .openapi('TeamMemberIds');

export const setConversationTeamBody = z.object({
  team_id: z.union([z.uuid(), z.null()]).openapi({ type: 'string', description: 'A team of the business, or `null` for none' }),
});

export const conversationTeamResponse = z.object({ team_id: z.uuid().nullable() }).openapi('ConversationTeam');

export const teamDeletedResponse = z.object({ detail: z.string() }).openapi('TeamDeleted');
