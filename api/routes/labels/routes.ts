/** Labels: the business's set (owners and admins manage it), and each conversation's labels (any member). */
import { z } from '../../../lib/zod.ts';
import { keysetPage } from '../../cursor.ts';
import { sql } from '../../../core/adapters/postgres/db.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import { createLabel, deleteLabel, setConversationLabels, updateLabel } from '../../../core/commands/labels.ts';
import { labelColumns, labelRow, labelSchema, presentLabel } from '../../../core/presenters/label.ts';
import { conversationParams } from '../conversations/schema.ts';
import { defineRoute } from '../../route.ts';
import {
  createLabelBody,
  deletedResponse,
  encodeNameCursor,
  labelParams,
  listLabelsQuery,
  setLabelsBody,
  setLabelsResponse,
  updateLabelBody,
} from './schema.ts';

const tags = ['Labels'];
const seeDecisions = 'See docs/decisions.md#labels-and-canned-responses.';

const pagedLabelRow = labelRow.extend({ sort_key: z.string() });

export const list = defineRoute({
  method: 'get',
  path: '/api/v1/labels',
  summary: 'List labels',
  description: `In alphabetical order (case-insensitive). \`limit\` 1–200 (default 100); when more exist, the \`X-Next-Cursor\` response header holds the value to pass as \`cursor\` for the next page. ${seeDecisions}`,
  tags,
  auth: 'user',
  policy: 'labels.read',
  query: listLabelsQuery,
  response: z.array(labelSchema),
  errors: [404],
  handler: async ({ query, member, deps, ctx }) => {
    const rows = await deps.db.any(sql.type(pagedLabelRow)`
      select ${labelColumns}, lower(l.name) as sort_key from labels l
      where l.business_id = ${member.businessId}
        ${query.cursor !== undefined ? sql.fragment`and lower(l.name) > ${query.cursor}` : sql.fragment``}
      order by lower(l.name)
      limit ${query.limit + 1}`);
    const page = keysetPage(ctx, rows, query.limit, (last) => encodeNameCursor(last.sort_key));
    return page.map(({ sort_key: _, ...row }) => presentLabel(row));
  },
});

export const create = defineRoute({
  method: 'post',
  path: '/api/v1/labels',
  summary: 'Create a label',
  description: `\`name\` 1–50 characters without a comma, unique in the business whatever its case (a duplicate: 400 \`{detail}\`); \`color\` \`#rrggbb\` (default \`#1f93ff\`); \`description\` up to 200 characters. ${seeDecisions}`,
  tags,
  auth: 'user',
  policy: 'labels.manage',
  body: createLabelBody,
  response: labelSchema,
  errors: [400, 403, 404],
  handler: async ({ body, member, deps }) => {
    const { label } = await runCommand(deps, (tx) => createLabel(tx, { businessId: member.businessId, fields: body }));
    return presentLabel(label);
  },
});

export const update = defineRoute({
  method: 'patch',
  path: '/api/v1/labels/:label_id',
  summary: 'Change a label',
  description: `Changes the fields sent (same rules as creating). A new name shows at once on every conversation that carries the label; no per-conversation event is sent. ${seeDecisions}`,
  tags,
  auth: 'user',
  policy: 'labels.manage',
  params: labelParams,
  body: updateLabelBody,
  response: labelSchema,
  errors: [400, 403, 404],
  handler: async ({ params, body, member, deps }) => {
    const { label } = await runCommand(deps, (tx) => updateLabel(tx, { businessId: member.businessId, labelId: params.label_id, changes: body }));
    return presentLabel(label);
  },
});

export const remove = defineRoute({
  method: 'delete',
  path: '/api/v1/labels/:label_id',
  summary: 'Delete a label',
  description: `Every conversation loses the label; no per-conversation event is sent. ${seeDecisions}`,
  tags,
  auth: 'user',
  policy: 'labels.manage',
  params: labelParams,
  response: deletedResponse,
  errors: [403, 404],
  handler: async ({ params, member, deps }) => {
    await runCommand(deps, (tx) => deleteLabel(tx, { businessId: member.businessId, labelId: params.label_id }));
    return { detail: 'Label deleted' };
  },
});

export const setForConversation = defineRoute({
  method: 'put',
  path: '/api/v1/conversations/:conversation_id/labels',
  summary: "Set a conversation's labels",
  description:
    "`labels`: names of the business's labels (case-insensitive; at most 50). The conversation's labels become exactly these; a name the business has no label for: 400 naming it, and nothing changes. " +
    'When the set changed, `conversation_updated` follows (the conversation carries `labels`); its `updated_at` is kept, so labelling does not move it up the inbox. ' +
    seeDecisions,
  tags: ['Conversations'],
  auth: 'user',
  policy: 'conversations.label',
  params: conversationParams,
  body: setLabelsBody,
  response: setLabelsResponse,
  errors: [400, 404],
  handler: async ({ params, body, member, deps }) => {
    const result = await runCommand(deps, (tx) =>
      setConversationLabels(tx, { businessId: member.businessId, conversationId: params.conversation_id, names: body.labels }),
    );
    return { labels: result.labels };
  },
});

export default [list, create, update, remove, setForConversation];
