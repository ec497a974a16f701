/**
 * The customer reads: every Customer object the API presents (GET /customers and /customers/{id},
 * the `customer` of a conversation, the `customer_updated` / `customer_merged` events, the
 * `customer.*` webhooks, the exports) is read here and presented by core/presenters/customer.ts.
 * Each read is a fixed number of queries, however many customers it returns.
 *
 * Which customers show: the lists and the reads by number show the visible ones
 * (`visibleCustomer`: not merged away, not being erased); a read by uuid shows the row as it is,
 * as a conversation's own customer or an event about a customer just changed shows it.
 */
import { prepared, sql, type Queryable } from '../adapters/postgres/db.ts';
import { customerColumns, customerRow, presentCustomer, visibleCustomer, type Customer } from '../presenters/customer.ts';

/** These customers (by uuid) as GET /customers/{id} shows them, keyed by uuid; unknown ids are left out. */
export async function customersByIds(q: Queryable, ids: (string | null)[]): Promise<Map<string, Customer>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  if (wanted.length === 0) return new Map();
  const rows = await q.any(
    prepared(sql.type(customerRow)`
    select ${customerColumns} from customers cu join businesses b on b.id = cu.business_id
    where cu.id = any(${sql.array(wanted, 'uuid')})`),
  );
  return new Map(rows.map((r) => [r.id, presentCustomer(r)]));
}

/** The customer of this uuid (it must exist: a command reads back what it just wrote). */
export async function customerById(q: Queryable, id: string): Promise<Customer> {
  return presentCustomer(
    await q.one(sql.type(customerRow)`select ${customerColumns} from customers cu join businesses b on b.id = cu.business_id where cu.id = ${id}`),
  );
}

/** GET /customers/{id}: the business's visible customer of this integer id (`number`); null when none. */
export async function customerByNumber(q: Queryable, businessId: string, number: number): Promise<Customer | null> {
  const row = await q.maybeOne(sql.type(customerRow)`
    select ${customerColumns}
    from customers cu join businesses b on b.id = cu.business_id
    where cu.number = ${number} and cu.business_id = ${businessId} and ${visibleCustomer}`);
  return row ? presentCustomer(row) : null;
}

/** What GET /customers filters by, parsed by the route. */
export type CustomerFilter = {
  /** A case-insensitive substring of the name, e-mail or phone. */
  text?: string;
  /** Attribute filters, all must match: `key` equal to one of `values` (served by customers_attributes_idx). */
  attributes?: { key: string; values: (string | number | boolean)[] }[];
};

/** `%q%` for ILIKE with the pattern characters in q taken literally. */
const containsPattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * GET /customers: the business's visible customers, newest (highest number) first, `limit` of
 * them below `before`; `next` is the number to pass as `before` when more exist.
 */
export async function customerPage(
  q: Queryable,
  businessId: string,
  filter: CustomerFilter,
  page: { limit: number; before?: number },
): Promise<{ customers: Customer[]; next: number | null }> {
  const conditions = [sql.fragment`cu.business_id = ${businessId}`, visibleCustomer];
  for (const { key, values } of filter.attributes ?? []) {
    const alternatives = values.map((value) => sql.fragment`cu.attributes @> ${sql.jsonb({ [key]: value })}`);
    conditions.push(sql.fragment`(${sql.join(alternatives, sql.fragment` or `)})`);
  }
  if (filter.text) {
    const pattern = containsPattern(filter.text);
    conditions.push(sql.fragment`(cu.name ilike ${pattern} or cu.email ilike ${pattern} or cu.phone ilike ${pattern})`);
  }
  if (page.before !== undefined) conditions.push(sql.fragment`cu.number < ${page.before}`);
  const rows = await q.any(sql.type(customerRow)`
    select ${customerColumns}
    from customers cu join businesses b on b.id = cu.business_id
    where ${sql.join(conditions, sql.fragment` and `)}
    order by cu.number desc
    limit ${page.limit + 1}`);
  const shown = rows.slice(0, page.limit);
  const last = shown.at(-1);
  return { customers: shown.map(presentCustomer), next: rows.length > page.limit && last ? last.number : null };
}

/** The business's visible customers after integer id `after`, in id order, `limit` at most (the CSV export's batches). */
export async function customersAfter(q: Queryable, businessId: string, after: number, limit: number): Promise<Customer[]> {
  const rows = await q.any(sql.type(customerRow)`
    select ${customerColumns} from customers cu join businesses b on b.id = cu.business_id
    where cu.business_id = ${businessId} and ${visibleCustomer} and cu.number > ${after}
    order by cu.number limit ${limit}`);
  return rows.map(presentCustomer);
}
