/**
 * The workspace: create it (the business on its starting plan, its owner's membership as agent 1, its
 * built-in webchat channel), change its profile, turn the AI agent's auto-reply on or off.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { badRequest } from '../errors.ts';
import { assertMayUseAutoReply, type PlanName } from '../domain/plans.ts';
import { builtinChannelType } from '../../connectors/index.ts';

export type BusinessFields = { name: string; website?: string; industry?: string; team_size?: string; goal?: string };

/**
 * Creates the business on `plan` (plans.ts startingPlan: Free where plans are sold) in the
 * caller's transaction; 400 when the user already belongs to one.
 */
export async function createBusiness(tx: Queryable, ownerId: string, fields: BusinessFields, plan: PlanName = 'Free'): Promise<string> {
  const taken = await tx.exists(sql.unsafe`select 1 from team_members where user_id = ${ownerId}`);
  if (taken) throw badRequest('User already belongs to a business');
  const { id } = await tx.one(sql.type(z.object({ id: z.string() }))`
    insert into businesses (name, website, industry, team_size, goal, owner_id, next_agent_number, plan)
    values (${fields.name}, ${fields.website ?? ''}, ${fields.industry ?? ''}, ${fields.team_size ?? ''}, ${fields.goal ?? ''}, ${ownerId}, 2, ${plan})
    returning id`);
  const member = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
    insert into team_members (business_id, user_id, role, agent_number)
    values (${id}, ${ownerId}, 'owner', 1)
    on conflict (user_id) do nothing
    returning id`);
  if (!member) throw badRequest('User already belongs to a business');
  await tx.query(sql.unsafe`
    insert into channels (business_id, type, is_builtin, status) values (${id}, ${builtinChannelType}, true, 'connected')`);
  return id;
}

/** Changes the given profile fields; an omitted (undefined) field keeps its value. */
export async function updateBusiness(q: Queryable, businessId: string, fields: Partial<BusinessFields>): Promise<void> {
  await q.query(sql.unsafe`
    update businesses set
      name = coalesce(${fields.name ?? null}, name),
      website = coalesce(${fields.website ?? null}, website),
      industry = coalesce(${fields.industry ?? null}, industry),
      team_size = coalesce(${fields.team_size ?? null}, team_size),
      goal = coalesce(${fields.goal ?? null}, goal),
      updated_at = now()
    where id = ${businessId}`);
}

/**
 * Turns AI auto-reply on or off in the caller's transaction; returns the stored value. Turning it
 * on is 402 feature_not_available/ai_auto_reply on a plan without it; turning it off always works.
 */
export async function setAiAutoReply(tx: Queryable, businessId: string, enabled: boolean): Promise<boolean> {
  if (enabled) await assertMayUseAutoReply(tx, businessId);
  const row = await tx.one(sql.type(z.object({ ai_auto_reply_enabled: z.boolean() }))`
    update businesses set ai_auto_reply_enabled = ${enabled}, updated_at = now()
    where id = ${businessId}
    returning ai_auto_reply_enabled`);
  return row.ai_auto_reply_enabled;
}
