/** Creating a workspace: the business (plan Free), its owner's membership (agent 1), its built-in webchat channel. */
import { z } from 'zod';
import { sql, type Queryable } from '../db.ts';
import { badRequest } from '../errors.ts';

export type BusinessFields = { name: string; website?: string; industry?: string; team_size?: string; goal?: string };

/** Creates the business in the caller's transaction; 400 when the user already belongs to one. */
export async function createBusiness(tx: Queryable, ownerId: string, fields: BusinessFields): Promise<string> {
  const taken = await tx.exists(sql.unsafe`select 1 from team_members where user_id = ${ownerId}`);
  if (taken) throw badRequest('User already belongs to a business');
  const { id } = await tx.one(sql.type(z.object({ id: z.string() }))`
    insert into businesses (name, website, industry, team_size, goal, owner_id, next_agent_number)
    values (${fields.name}, ${fields.website ?? ''}, ${fields.industry ?? ''}, ${fields.team_size ?? ''}, ${fields.goal ?? ''}, ${ownerId}, 2)
    returning id`);
  const member = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
    insert into team_members (business_id, user_id, role, agent_number)
    values (${id}, ${ownerId}, 'owner', 1)
    on conflict (user_id) do nothing
    returning id`);
  if (!member) throw badRequest('User already belongs to a business');
  await tx.query(sql.unsafe`
    insert into channels (business_id, type, is_builtin, status) values (${id}, 'webchat', true, 'connected')`);
  return id;
}
