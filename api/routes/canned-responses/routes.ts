/** Canned responses: saved replies any member manages and inserts (`/` in the composer), rendered for a conversation. */
import { z } from '../../../lib/zod.ts';
import { keysetPage } from '../../cursor.ts';
import { sql } from '../../../core/adapters/postgres/db.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import { createCannedResponse, deleteCannedResponse, renderCannedResponse, updateCannedResponse } from '../../../core/commands/canned-responses.ts';
import { cannedResponseColumns, cannedResponseRow, cannedResponseSchema, presentCannedResponse } from '../../../core/presenters/label.ts';
import { defineRoute } from '../../route.ts';
import { deletedResponse, encodeNameCursor } from '../labels/schema.ts';
import { cannedResponseParams, createCannedResponseBody, listCannedResponsesQuery, renderBody, updateCannedResponseBody } from './schema.ts';

const tags = ['Canned responses'];
const seeDecisions = 'See docs/decisions.md#labels-and-canned-responses.';

/** `%q%` for ILIKE with the pattern characters in q taken literally. */
const containsPattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const pagedRow = cannedResponseRow.extend({ sort_key: z.string() });

export const list = defineRoute({
  method: 'get',
  path: '/api/v1/canned-responses',
  summary: 'List or search canned responses',
  description:
    "By short code (alphabetical, case-insensitive). `q` matches a case-insensitive substring of the short code or the content (what the composer's `/` picker sends as the agent types). " +
    `\`limit\` 1–200 (default 50); when more exist, the \`X-Next-Cursor\` response header holds the value to pass as \`cursor\` for the next page. ${seeDecisions}`,
  tags,
  auth: 'user',
  policy: 'canned_responses.read',
  query: listCannedResponsesQuery,
  response: z.array(cannedResponseSchema),
  errors: [404],
  handler: async ({ query, member, deps, ctx }) => {
    const conditions = [sql.fragment`cr.business_id = ${member.businessId}`];
    if (query.q) {
      const pattern = containsPattern(query.q);
      conditions.push(sql.fragment`(cr.short_code ilike ${pattern} or cr.content ilike ${pattern})`);
    }
    if (query.cursor !== undefined) conditions.push(sql.fragment`lower(cr.short_code) > ${query.cursor}`);
    const rows = await deps.db.any(sql.type(pagedRow)`
      select ${cannedResponseColumns}, lower(cr.short_code) as sort_key from canned_responses cr
      where ${sql.join(conditions, sql.fragment` and `)}
      order by lower(cr.short_code)
      limit ${query.limit + 1}`);
    const page = keysetPage(ctx, rows, query.limit, (last) => encodeNameCursor(last.sort_key));
    return page.map(({ sort_key: _, ...row }) => presentCannedResponse(row));
  },
});

export const create = defineRoute({
  method: 'post',
  path: '/api/v1/canned-responses',
  summary: 'Create a canned response',
  description: `\`short_code\` is unique in the business whatever its case (a duplicate: 400 \`{detail}\`). ${seeDecisions}`,
  tags,
  auth: 'user',
  policy: 'canned_responses.manage',
  body: createCannedResponseBody,
  response: cannedResponseSchema,
  errors: [400, 404],
  handler: async ({ body, member, deps }) => {
    const { cannedResponse } = await runCommand(deps, (tx) => createCannedResponse(tx, { businessId: member.businessId, fields: body }));
    return presentCannedResponse(cannedResponse);
  },
});

export const update = defineRoute({
  method: 'patch',
  path: '/api/v1/canned-responses/:canned_response_id',
  summary: 'Change a canned response',
  description: `Changes the fields sent (same rules as creating). ${seeDecisions}`,
  tags,
  auth: 'user',
  policy: 'canned_responses.manage',
  params: cannedResponseParams,
  body: updateCannedResponseBody,
  response: cannedResponseSchema,
  errors: [400, 404],
  handler: async ({ params, body, member, deps }) => {
    const { cannedResponse } = await runCommand(deps, (tx) =>
      updateCannedResponse(tx, { businessId: member.businessId, id: params.canned_response_id, changes: body }),
    );
    return presentCannedResponse(cannedResponse);
  },
});

export const remove = defineRoute({
  method: 'delete',
  path: '/api/v1/canned-responses/:canned_response_id',
  summary: 'Delete a canned response',
  tags,
  auth: 'user',
  policy: 'canned_responses.manage',
  params: cannedResponseParams,
  response: deletedResponse,
  errors: [404],
  handler: async ({ params, member, deps }) => {
    await runCommand(deps, (tx) => deleteCannedResponse(tx, { businessId: member.businessId, id: params.canned_response_id }));
    return { detail: 'Canned response deleted' };
  },
});

export const render = defineRoute({
  method: 'post',
  path: '/api/v1/canned-responses/:canned_response_id/render',
  summary: 'Render a canned response for a conversation',
  description:
    "The canned response with `content` filled for the conversation: `{{customer.name}}` and `{{customer.email}}` from its customer, `{{agent.name}}` the caller's full name, `{{business.name}}` the business's. " +
    'Spaces inside the braces are allowed (`{{ customer.name }}`); `{{customer.first_name}}` is the first word of the name. A missing or blank value becomes the placeholder\'s fallback (`{{customer.name | default: "there"}}`), else empty; a visitor still known by their generated name has none. An unknown placeholder stays exactly as typed. Nothing is stored or sent. ' +
    `A canned response or conversation outside the business, or a conversation hidden from the caller by team-scoped visibility: 404. ${seeDecisions}`,
  tags,
  auth: 'user',
  policy: 'canned_responses.read',
  params: cannedResponseParams,
  body: renderBody,
  response: cannedResponseSchema,
  errors: [404],
  handler: async ({ params, body, caller, member, deps }) =>
    presentCannedResponse(
      await renderCannedResponse(deps.db, {
        businessId: member.businessId,
        id: params.canned_response_id,
        conversationId: body.conversation_id,
        agentName: caller.fullName,
        viewer: member,
      }),
    ),
});

export default [list, create, update, remove, render];
