/** The business's customers: search and read. Customers are created by inbound messages. */
import { z } from '../../../lib/zod.ts';
import { sql } from '../../../core/adapters/postgres/db.ts';
import { notFound } from '../../../core/errors.ts';
import { defineRoute } from '../../route.ts';
import { customerColumns, customerRow, customerSchema, presentCustomer } from '../../../core/presenters/customer.ts';
import { customerParams, listCustomersQuery } from './schema.ts';

const tags = ['Customers'];

/** `%q%` for ILIKE with the pattern characters in q taken literally. */
const containsPattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export const list = defineRoute({
  method: 'get',
  path: '/api/v1/customers',
  summary: 'List or search customers',
  description:
    'Newest first. `q` matches a case-insensitive substring of the name, e-mail or phone. `limit` 1–200 (default 50). ' +
    'When more exist, the `X-Next-Cursor` response header holds the value to pass as `before` for the next page. See docs/decisions.md#conversations-states-and-assignment.',
  tags,
  auth: 'user',
  policy: 'customers.read',
  query: listCustomersQuery,
  response: z.array(customerSchema),
  errors: [404],
  handler: async ({ query, member, deps, ctx }) => {
    const { businessId } = member;
    const conditions = [sql.fragment`cu.business_id = ${businessId}`];
    if (query.q) {
      const pattern = containsPattern(query.q);
      conditions.push(sql.fragment`(cu.name ilike ${pattern} or cu.email ilike ${pattern} or cu.phone ilike ${pattern})`);
    }
    if (query.before !== undefined) conditions.push(sql.fragment`cu.number < ${query.before}`);
    const rows = await deps.db.any(sql.type(customerRow)`
      select ${customerColumns}
      from customers cu join businesses b on b.id = cu.business_id
      where ${sql.join(conditions, sql.fragment` and `)}
      order by cu.number desc
      limit ${query.limit + 1}`);
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    if (rows.length > query.limit && last) ctx.set('X-Next-Cursor', String(last.number));
    return page.map(presentCustomer);
  },
});

export const read = defineRoute({
  method: 'get',
  path: '/api/v1/customers/:id',
  summary: 'Read a customer',
  description: '`id` is the customer\'s integer id; another business\'s customer is 404. See docs/decisions.md#businesses-plans-and-limits.',
  tags,
  auth: 'user',
  policy: 'customers.read',
  params: customerParams,
  response: customerSchema,
  errors: [404],
  handler: async ({ params, member, deps }) => {
    const { businessId } = member;
    const row = await deps.db.maybeOne(sql.type(customerRow)`
      select ${customerColumns}
      from customers cu join businesses b on b.id = cu.business_id
      where cu.number = ${params.id} and cu.business_id = ${businessId}`);
    if (!row) throw notFound('Customer not found');
    return presentCustomer(row);
  },
});

export default [list, read];
