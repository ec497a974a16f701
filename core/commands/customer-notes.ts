/**
 * Notes the team keeps on a customer (GET/POST /customers/{id}/notes, DELETE …/notes/{noteId}):
 * about the person, not one conversation (a conversation's private notes are messages). Any
 * member writes one; its author, the owner or an admin deletes it. A merge moves them to the
 * kept customer, an erasure deletes them with the customer.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { notFound } from '../errors.ts';
import { visibleCustomer } from '../presenters/customer.ts';

export const MAX_CUSTOMER_NOTE = 5000;

export const customerNoteRow = z.object({
  id: z.string(),
  customer_id: z.number(),
  author_id: z.string().nullable(),
  author_name: z.string(),
  body: z.string(),
  created_at: z.string(),
});
export type CustomerNoteRow = z.infer<typeof customerNoteRow>;
/** For `select ${customerNoteColumns} from customer_notes n join customers cu on cu.id = n.customer_id`. */
export const customerNoteColumns = sql.fragment`n.id, cu.number as customer_id, n.author_id, n.author_name, n.body, n.created_at`;

/** The uuid of the business's visible customer `number`; 404 otherwise. */
export async function visibleCustomerId(q: Queryable, businessId: string, number: number): Promise<string> {
  const id = await q.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
    select cu.id from customers cu where cu.business_id = ${businessId} and cu.number = ${number} and ${visibleCustomer}`);
  if (!id) throw notFound('Customer not found');
  return id;
}

export async function addCustomerNote(
  tx: Queryable,
  input: { businessId: string; number: number; author: { userId: string; name: string }; body: string },
): Promise<{ note: CustomerNoteRow }> {
  const customerId = await visibleCustomerId(tx, input.businessId, input.number);
  const note = await tx.one(sql.type(customerNoteRow)`
    with n as (
      insert into customer_notes (business_id, customer_id, author_id, author_name, body)
      values (${input.businessId}, ${customerId}, ${input.author.userId}, ${input.author.name}, ${input.body})
      returning *)
    select ${customerNoteColumns} from n join customers cu on cu.id = n.customer_id`);
  return { note };
}

/**
 * 404 for no such note on that customer. Someone else's note: `mayDeleteOthers` throws when the
 * caller may not (the policy table's `customer_notes.delete_any`, checked by the route).
 */
export async function deleteCustomerNote(
  tx: Queryable,
  input: { businessId: string; number: number; noteId: string; userId: string; mayDeleteOthers: () => void },
): Promise<{ deleted: true }> {
  const customerId = await visibleCustomerId(tx, input.businessId, input.number);
  const note = await tx.maybeOne(sql.type(z.object({ author_id: z.string().nullable() }))`
    select author_id from customer_notes where business_id = ${input.businessId} and customer_id = ${customerId} and id = ${input.noteId} for update`);
  if (!note) throw notFound('Note not found');
  if (note.author_id !== input.userId) input.mayDeleteOthers();
  await tx.query(sql.unsafe`delete from customer_notes where business_id = ${input.businessId} and id = ${input.noteId}`);
  return { deleted: true };
}
