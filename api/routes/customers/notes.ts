/** Notes on a customer: the team's knowledge of the person, beside their conversations (docs/decisions.md#customer-records). */
import { z } from '../../../lib/zod.ts';
import { sql } from '../../../core/adapters/postgres/db.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import {
  addCustomerNote,
  customerNoteColumns,
  customerNoteRow,
  deleteCustomerNote,
  MAX_CUSTOMER_NOTE,
  visibleCustomerId,
} from '../../../core/commands/customer-notes.ts';
import { cursorColumn, cursorParam, encodeCursor, keysetPage } from '../../cursor.ts';
import { authorize } from '../../policies.ts';
import { defineRoute } from '../../route.ts';
import { intParam } from '../../validation.ts';
import { customerParams } from './schema.ts';

export const customerNoteSchema = z
  .object({
    id: z.uuid(),
    customer_id: z.number().int().openapi({ description: "The customer's integer id" }),
    author_id: z.uuid().nullable().openapi({ description: 'The user who wrote it (null once they are gone)' }),
    author_name: z.string().openapi({ description: 'Their name when they wrote it' }),
    body: z.string(),
    created_at: z.string(),
  })
  .openapi('CustomerNote');

const notesQuery = z.object({
  limit: intParam({ min: 1, max: 100 }).default(50).openapi({ default: 50 }),
  before: cursorParam.optional(),
});

const addNoteBody = z.object({
  body: z
    .string()
    .trim()
    .min(1)
    .max(MAX_CUSTOMER_NOTE)
    .openapi({ description: `1–${MAX_CUSTOMER_NOTE} characters after trimming` }),
});

const noteParams = customerParams.extend({ note_id: z.uuid() });

const docs = "Another business's customer is 404. See docs/decisions.md#customer-records.";

export const listNotes = defineRoute({
  method: 'get',
  path: '/api/v1/customers/:id/notes',
  summary: "A customer's notes",
  description: `Newest first. \`limit\` 1–100 (default 50); when more exist, the \`X-Next-Cursor\` response header holds the value to pass as \`before\`. ${docs}`,
  tags: ['Customers'],
  auth: 'user',
  policy: 'customer_notes.read',
  params: customerParams,
  query: notesQuery,
  response: z.array(customerNoteSchema),
  errors: [404],
  handler: async ({ params, query, member, deps, ctx }) => {
    const customerId = await visibleCustomerId(deps.db, member.businessId, params.id);
    const rows = await deps.db.any(sql.type(customerNoteRow.extend({ cursor_at: z.string() }))`
      select ${customerNoteColumns}, ${cursorColumn(sql.fragment`n.created_at`)} as cursor_at
      from customer_notes n join customers cu on cu.id = n.customer_id
      where n.business_id = ${member.businessId} and n.customer_id = ${customerId}
        ${query.before ? sql.fragment`and (n.created_at, n.id) < (${query.before.at}::timestamptz, ${query.before.id}::uuid)` : sql.fragment``}
      order by n.created_at desc, n.id desc
      limit ${query.limit + 1}`);
    return keysetPage(ctx, rows, query.limit, (last) => encodeCursor({ at: last.cursor_at, id: last.id })).map(({ cursor_at: _, ...note }) => note);
  },
});

export const addNote = defineRoute({
  method: 'post',
  path: '/api/v1/customers/:id/notes',
  summary: 'Add a note on a customer',
  description: `Signed with the caller's name. ${docs}`,
  tags: ['Customers'],
  auth: 'user',
  policy: 'customer_notes.write',
  params: customerParams,
  body: addNoteBody,
  response: customerNoteSchema,
  errors: [404],
  handler: async ({ params, body, caller, member, deps }) => {
    const { note } = await runCommand(deps, (tx) =>
      addCustomerNote(tx, { businessId: member.businessId, number: params.id, author: { userId: caller.userId, name: caller.fullName }, body: body.body }),
    );
    return note;
  },
});

export const removeNote = defineRoute({
  method: 'delete',
  path: '/api/v1/customers/:id/notes/:note_id',
  summary: 'Delete a note on a customer',
  description: `Its author may; someone else's note takes the owner or an admin (policy \`customer_notes.delete_any\`; others get 403). Unknown note: 404. ${docs}`,
  tags: ['Customers'],
  auth: 'user',
  policy: 'customer_notes.write',
  params: noteParams,
  response: z.object({ detail: z.string() }),
  errors: [403, 404],
  handler: async ({ params, caller, member, deps }) => {
    await runCommand(deps, (tx) =>
      deleteCustomerNote(tx, {
        businessId: member.businessId,
        number: params.id,
        noteId: params.note_id,
        userId: caller.userId,
        mayDeleteOthers: () => authorize(caller, 'customer_notes.delete_any'),
      }),
    );
    return { detail: 'Note deleted' };
  },
});

export default [listNotes, addNote, removeNote];
