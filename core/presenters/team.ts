/** teams row → the Team object (a group of agents; docs/decisions.md#teams-and-team-scoped-visibility). */
import { z } from '../../lib/zod.ts';
import { sql } from '../adapters/postgres/db.ts';

export const teamRow = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  member_count: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type TeamRow = z.infer<typeof teamRow>;

/** The columns teamRow reads, for `select ${teamColumns} from teams t` (the count: active members, by the memberships' primary key). */
export const teamColumns = sql.fragment`t.id, t.name, t.description,
  (select count(*) from team_memberships ms join team_members tm on tm.id = ms.member_id and tm.is_active
   where ms.business_id = t.business_id and ms.team_id = t.id)::int as member_count,
  t.created_at, t.updated_at`;

export const teamSchema = z
  .object({
    id: z.uuid(),
    name: z.string().openapi({ description: '1–80 characters, unique in the business whatever its case' }),
    description: z.string().openapi({ description: 'Up to 500 characters' }),
    member_count: z.number().int().openapi({ description: 'Its active members (GET /api/v1/teams/{team_id}/members)' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Team');
export type Team = z.infer<typeof teamSchema>;

export const presentTeam = (row: TeamRow): Team => ({ ...row });
