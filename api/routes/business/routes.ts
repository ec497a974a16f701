/** The caller's workspace: create, read, update. (The plan endpoint lives in plan.ts.) */
import { sql } from '../../../core/adapters/postgres/db.ts';
import { createBusiness, updateBusiness } from '../../../core/commands/businesses.ts';
import { defineRoute } from '../../route.ts';
import { businessColumns, businessRow, businessSchema, presentBusiness } from '../../presenters/business.ts';
import { createBusinessBody, updateBusinessBody } from './schema.ts';
import { readPlan } from './plan.ts';
import type { Queryable } from '../../../core/adapters/postgres/db.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import { startingPlan } from '../../../core/domain/plans.ts';
import { actorOf, recordAudit } from '../../../core/domain/platform/audit.ts';

const tags = ['Business'];

const loadBusiness = async (q: Queryable, id: string) =>
  presentBusiness(await q.one(sql.type(businessRow)`select ${businessColumns} from businesses b where b.id = ${id}`));

export const create = defineRoute({
  method: 'post',
  path: '/api/v1/business',
  summary: "Create the caller's workspace",
  description:
    "Creates the business on plan Free, the caller's owner membership (agent number 1) and the built-in `webchat` channel. A user belongs to at most one business: 400 otherwise. See docs/decisions.md#businesses-plans-and-limits.",
  tags,
  auth: 'user',
  body: createBusinessBody,
  response: businessSchema,
  errors: [400],
  handler: async ({ body, caller, deps }) =>
    runCommand(deps, async (tx) => loadBusiness(tx, await createBusiness(tx, caller.userId, body, startingPlan(deps.config)))),
});

export const read = defineRoute({
  method: 'get',
  path: '/api/v1/business',
  summary: "The caller's workspace",
  tags,
  auth: 'user',
  policy: 'business.read',
  response: businessSchema,
  errors: [404],
  handler: async ({ member, deps }) => {
    return loadBusiness(deps.db, member.businessId);
  },
});

export const update = defineRoute({
  method: 'patch',
  path: '/api/v1/business',
  summary: "Update the caller's workspace (owner or admin)",
  description: 'Omitted fields keep their value. Recorded in the audit log (the fields sent, with their new values).',
  tags,
  auth: 'user',
  policy: 'business.update',
  body: updateBusinessBody,
  response: businessSchema,
  errors: [403, 404],
  handler: async ({ body, caller, member, deps }) => {
    const { businessId: id } = member;
    await runCommand(deps, async (tx) => {
      await updateBusiness(tx, id, body);
      const changed = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
      await recordAudit(tx, { businessId: id, actor: actorOf(caller), action: 'business.updated', targetType: 'business', targetId: id, details: { changed } });
      return {};
    });
    return loadBusiness(deps.db, id);
  },
});

export default [create, read, update, readPlan];
