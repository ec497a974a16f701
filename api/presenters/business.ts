/** businesses row → the spec's Business object. */
import { z } from '../../lib/zod.ts';
import { sql } from '../../core/adapters/postgres/db.ts';

export const businessRow = z.object({
  id: z.string(),
  number: z.number(),
  name: z.string(),
  website: z.string(),
  industry: z.string(),
  team_size: z.string(),
  goal: z.string(),
  plan: z.string(),
  created_at: z.string(),
});
export type BusinessRow = z.infer<typeof businessRow>;

/** The columns businessRow reads, for `select ${businessColumns} from businesses b`. */
export const businessColumns = sql.fragment`b.id, b.number, b.name, b.website, b.industry, b.team_size, b.goal, b.plan, b.created_at`;

export const businessSchema = z
  .object({
    id: z.uuid(),
    number: z.number().int().openapi({ description: 'Stable integer id, shown where the interface declares an integer business id' }),
    name: z.string(),
    website: z.string(),
    industry: z.string(),
    team_size: z.string(),
    goal: z.string(),
    plan: z.enum(['Free', 'Mini', 'Pro']),
    created_at: z.string(),
  })
  .openapi('Business');

export const presentBusiness = (row: BusinessRow): z.infer<typeof businessSchema> => ({
  id: row.id,
  number: row.number,
  name: row.name,
  website: row.website,
  industry: row.industry,
  team_size: row.team_size,
  goal: row.goal,
  plan: row.plan as 'Free' | 'Mini' | 'Pro',
  created_at: row.created_at,
});
