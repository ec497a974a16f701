/** team_members row joined with its user → the spec's Team member object. */
import { z } from '../../lib/zod.ts';
import { sql } from '../../core/adapters/postgres/db.ts';

export const teamMemberRow = z.object({
  id: z.string(),
  user_id: z.string(),
  email: z.string(),
  full_name: z.string(),
  role: z.enum(['owner', 'admin', 'agent']),
  status: z.enum(['live', 'away', 'offline']),
  is_active: z.boolean(),
  invited_at: z.string(),
  agent_number: z.number(),
});
export type TeamMemberRow = z.infer<typeof teamMemberRow>;

/** The columns teamMemberRow reads, for `select ${teamMemberColumns} from team_members m join users u on u.id = m.user_id`. */
export const teamMemberColumns = sql.fragment`m.id, m.user_id, u.email, u.full_name, m.role, m.status, m.is_active, m.invited_at, m.agent_number`;

export const teamMemberSchema = z
  .object({
    id: z.uuid().openapi({ description: 'Membership id (not the user id)' }),
    user_id: z.uuid(),
    email: z.string(),
    name: z.string().openapi({ description: "The user's full name" }),
    role: z.enum(['owner', 'admin', 'agent']),
    status: z.enum(['live', 'away', 'offline']),
    is_active: z.boolean(),
    invited_at: z.string(),
    agent_number: z.number().int().openapi({ description: 'Per-business integer: owner 1, then 2, 3 … in order of joining; never reused' }),
  })
  .openapi('TeamMember');

export const presentTeamMember = (row: TeamMemberRow): z.infer<typeof teamMemberSchema> => ({
  id: row.id,
  user_id: row.user_id,
  email: row.email,
  name: row.full_name,
  role: row.role,
  status: row.status,
  is_active: row.is_active,
  invited_at: row.invited_at,
  agent_number: row.agent_number,
});
