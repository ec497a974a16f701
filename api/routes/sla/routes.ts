/** SLA policies: the response and resolution targets the inbox holds conversations to (owners and admins manage them). */
import { z } from '../../../lib/zod.ts';
import { keysetPage } from '../../cursor.ts';
import { sql } from '../../../core/adapters/postgres/db.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import {
  createSlaPolicy,
  deleteSlaPolicy,
  getSlaPolicy,
  slaPolicyColumns,
  slaPolicyRow,
  updateSlaPolicy,
  type SlaPolicyRow,
} from '../../../core/commands/sla.ts';
import { defineRoute } from '../../route.ts';
import { deletedResponse, encodeNameCursor } from '../labels/schema.ts';
import { createSlaPolicyBody, listSlaPoliciesQuery, slaPolicyParams, slaPolicySchema, updateSlaPolicyBody } from './schema.ts';

const tags = ['SLA'];
const seeDecisions = 'See docs/decisions.md#sla-targets-and-csat.';

const present = (p: SlaPolicyRow): z.infer<typeof slaPolicySchema> => ({
  id: p.id,
  name: p.name,
  first_response_minutes: p.first_response_minutes,
  next_response_minutes: p.next_response_minutes,
  resolution_minutes: p.resolution_minutes,
  business_hours_only: p.business_hours_only,
  channel_ids: p.channel_ids,
  labels: p.labels,
  created_at: p.created_at,
  updated_at: p.updated_at,
});

const pagedRow = slaPolicyRow.extend({ sort_key: z.string() });

export const list = defineRoute({
  method: 'get',
  path: '/api/v1/sla-policies',
  summary: 'List SLA policies',
  description:
    'In alphabetical order (case-insensitive), which is also the order in which policies are tried: a conversation follows the first naming one of its labels, else the first naming its channel, else the first naming neither. ' +
    `\`limit\` 1–200 (default 100); when more exist, \`X-Next-Cursor\` holds the \`cursor\` of the next page. ${seeDecisions}`,
  tags,
  auth: 'user',
  policy: 'sla_policies.read',
  query: listSlaPoliciesQuery,
  response: z.array(slaPolicySchema),
  errors: [404],
  handler: async ({ query, member, deps, ctx }) => {
    const rows = await deps.db.any(sql.type(pagedRow)`
      select ${slaPolicyColumns}, lower(p.name) as sort_key from sla_policies p
      where p.business_id = ${member.businessId}
        ${query.cursor !== undefined ? sql.fragment`and lower(p.name) > ${query.cursor}` : sql.fragment``}
      order by lower(p.name)
      limit ${query.limit + 1}`);
    const page = keysetPage(ctx, rows, query.limit, (last) => encodeNameCursor(last.sort_key));
    return page.map(present);
  },
});

export const read = defineRoute({
  method: 'get',
  path: '/api/v1/sla-policies/:policy_id',
  summary: 'Read an SLA policy',
  description: seeDecisions,
  tags,
  auth: 'user',
  policy: 'sla_policies.read',
  params: slaPolicyParams,
  response: slaPolicySchema,
  errors: [404],
  handler: async ({ params, member, deps }) => present(await getSlaPolicy(deps.db, member.businessId, params.policy_id)),
});

const effect =
  'Open and pending conversations work their due times out again within moments (the `sla_refresh` job), each sending `conversation_updated`. ' +
  'Targets are minutes of calendar time, or with `business_hours_only` (while business hours are on) minutes the team is open, DST included. ';

export const create = defineRoute({
  method: 'post',
  path: '/api/v1/sla-policies',
  summary: 'Create an SLA policy',
  description: `A duplicate name: 400. An unknown label or channel: 400 naming it. ${effect}${seeDecisions}`,
  tags,
  auth: 'user',
  policy: 'sla_policies.manage',
  body: createSlaPolicyBody,
  response: slaPolicySchema,
  errors: [400, 403, 404],
  handler: async ({ body, member, deps }) => present((await runCommand(deps, (tx) => createSlaPolicy(tx, member.businessId, body))).policy),
});

export const update = defineRoute({
  method: 'patch',
  path: '/api/v1/sla-policies/:policy_id',
  summary: 'Change an SLA policy',
  description: `Changes the fields sent (\`channel_ids\` and \`labels\` replace the lists; a target set to null is dropped). ${effect}${seeDecisions}`,
  tags,
  auth: 'user',
  policy: 'sla_policies.manage',
  params: slaPolicyParams,
  body: updateSlaPolicyBody,
  response: slaPolicySchema,
  errors: [400, 403, 404],
  handler: async ({ params, body, member, deps }) =>
    present((await runCommand(deps, (tx) => updateSlaPolicy(tx, member.businessId, params.policy_id, body))).policy),
});

export const remove = defineRoute({
  method: 'delete',
  path: '/api/v1/sla-policies/:policy_id',
  summary: 'Delete an SLA policy',
  description: `Its conversations follow the next policy that fits, or none. Breaches already recorded stay. ${seeDecisions}`,
  tags,
  auth: 'user',
  policy: 'sla_policies.manage',
  params: slaPolicyParams,
  response: deletedResponse,
  errors: [403, 404],
  handler: async ({ params, member, deps }) => {
    await runCommand(deps, (tx) => deleteSlaPolicy(tx, member.businessId, params.policy_id));
    return { detail: 'SLA policy deleted' };
  },
});

export default [list, create, read, update, remove];
