/**
 * The business's customers: search, read, edit, merge, export and erase; and the business's
 * retention period. Customers are created by inbound messages. See docs/decisions.md#customer-records.
 */
import { z } from '../../../lib/zod.ts';
import type { Queryable } from '../../../core/adapters/postgres/db.ts';
import { ATTRIBUTE_KEY_PATTERN } from '../../../core/domain/customer-attributes.ts';
import { notFound, validationError, type ValidationIssue } from '../../../core/errors.ts';
import { attributeFilterValues, loadAttributeDefinitions, MAX_ATTRIBUTE_FILTERS } from '../../../core/domain/customer-attributes.ts';
import { defineRoute } from '../../route.ts';
import { customerSchema } from '../../../core/presenters/customer.ts';
import { customerByNumber, customerPage, type CustomerFilter } from '../../../core/reads/customers.ts';
import { exportCustomer } from '../../../core/reads/customer-export.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import { loadRetention, mergeCustomers, requestCustomerErasure, updateCustomer, updateRetention } from '../../../core/commands/customers.ts';
import { actorOf } from '../../../core/domain/platform/audit.ts';
import { visitOf, visitSchema } from '../../../core/domain/visitors/visitor-context.ts';
import {
  customerExportSchema,
  customerParams,
  erasureSchema,
  listCustomersQuery,
  mergeCustomerBody,
  mergeResultSchema,
  retentionSchema,
  updateCustomerBody,
  updateRetentionBody,
} from './schema.ts';

const tags = ['Customers'];

/**
 * `attr.<key>=<value>` query parameters → the attribute filters of the read (core/reads/customers.ts);
 * 422 naming the parameter for an unknown key or a value of the wrong type.
 */
async function attributeFilters(deps: { db: Queryable }, businessId: string, query: Record<string, unknown>) {
  const filters = Object.entries(query).filter(([name]) => name.startsWith('attr.'));
  if (filters.length === 0) return [];
  const issues: ValidationIssue[] = [];
  if (filters.length > MAX_ATTRIBUTE_FILTERS) issues.push({ loc: ['query'], msg: `At most ${MAX_ATTRIBUTE_FILTERS} attribute filters`, type: 'too_many' });
  const definitions = await loadAttributeDefinitions(deps.db, businessId);
  const parsedFilters: NonNullable<CustomerFilter['attributes']> = [];
  for (const [name, raw] of filters) {
    const key = name.slice('attr.'.length);
    const text = Array.isArray(raw) ? raw.at(-1) : raw;
    if (typeof text !== 'string' || !ATTRIBUTE_KEY_PATTERN.test(key)) {
      issues.push({ loc: ['query', name], msg: 'Filter as attr.<key>=<value>', type: 'value_error' });
      continue;
    }
    const parsed = attributeFilterValues(definitions, key, text);
    if ('problem' in parsed) {
      issues.push({ loc: ['query', name], msg: parsed.problem, type: 'value_error' });
      continue;
    }
    parsedFilters.push({ key, values: parsed.values });
  }
  if (issues.length) throw validationError(issues);
  return parsedFilters;
}

export const list = defineRoute({
  method: 'get',
  path: '/api/v1/customers',
  summary: 'List or search customers',
  description:
    'Newest first. `q` matches a case-insensitive substring of the name, e-mail or phone. `limit` 1–200 (default 50). ' +
    "`attr.<key>=<value>` (up to 5, all must match) keeps customers whose attribute `key` equals the value, read as the attribute definition's type " +
    '(`attr.plan=pro`, `attr.orders=12`, `attr.vip=true`, `attr.renewal=2026-01-31`); an undefined key or a value of the wrong type is 422 naming the parameter. ' +
    'With no definitions, the value matches as text and as the number or boolean it spells. ' +
    'When more exist, the `X-Next-Cursor` response header holds the value to pass as `before` for the next page. See docs/decisions.md#conversations-states-and-assignment.',
  tags,
  auth: 'user',
  policy: 'customers.read',
  query: listCustomersQuery,
  response: z.array(customerSchema),
  errors: [404],
  handler: async ({ query, member, deps, ctx }) => {
    const { businessId } = member;
    const attributes = await attributeFilters(deps, businessId, ctx.query);
    const page = await customerPage(deps.db, businessId, { text: query.q, attributes }, { limit: query.limit, before: query.before });
    if (page.next !== null) ctx.set('X-Next-Cursor', String(page.next));
    return page.customers;
  },
});

export const read = defineRoute({
  method: 'get',
  path: '/api/v1/customers/:id',
  summary: 'Read a customer',
  description: "`id` is the customer's integer id; another business's customer is 404. See docs/decisions.md#businesses-plans-and-limits.",
  tags,
  auth: 'user',
  policy: 'customers.read',
  params: customerParams,
  response: customerSchema,
  errors: [404],
  handler: async ({ params, member, deps }) => {
    const customer = await customerByNumber(deps.db, member.businessId, params.id);
    if (!customer) throw notFound('Customer not found');
    return customer;
  },
});

export const visit = defineRoute({
  method: 'get',
  path: '/api/v1/customers/:id/visit',
  summary: "A website visitor's visit: page, referrer, browser, language, local time, pages seen",
  description:
    "What the widget last reported of the customer's visit (at each session start or resume) with the browser and system of its User-Agent: `visit` is null for a customer who is not a website visitor or whose widget reported nothing. " +
    "Another business's customer is 404. See docs/decisions.md#website-widget-and-visitors.",
  tags,
  auth: 'user',
  policy: 'customers.read',
  params: customerParams,
  response: z.object({ visit: visitSchema.nullable() }).openapi('CustomerVisit'),
  errors: [404],
  handler: async ({ params, member, deps }) => {
    const customer = await customerByNumber(deps.db, member.businessId, params.id);
    if (!customer) throw notFound('Customer not found');
    return { visit: await visitOf(deps.db, customer.uuid) };
  },
});

export const update = defineRoute({
  method: 'patch',
  path: '/api/v1/customers/:id',
  summary: 'Edit a customer',
  description:
    'Omitted fields keep their value. `attributes` are merged into the stored ones (a key set to null is removed). ' +
    "Once edited, the record keeps its name, e-mail and phone: the platform's profile (inbound messages, the widget) only fills fields that are blank. " +
    'Publishes `customer_updated` (webhook `customer.updated`); recorded in the audit log with the names of the fields changed, never their values. ' +
    "Another business's customer is 404. See docs/decisions.md#customer-records.",
  tags,
  auth: 'user',
  policy: 'customers.update',
  params: customerParams,
  body: updateCustomerBody,
  response: customerSchema,
  errors: [404],
  handler: async ({ params, body, caller, member, deps }) => {
    const { customer } = await runCommand(deps, (tx) =>
      updateCustomer(tx, { businessId: member.businessId, actor: actorOf(caller), number: params.id, changes: body }),
    );
    return customer;
  },
});

export const merge = defineRoute({
  method: 'post',
  path: '/api/v1/customers/:id/merge',
  summary: 'Merge another customer into this one',
  description:
    "In one transaction: the other customer's conversations become this one's, and its platform identities too (later messages from either identity land here, " +
    "also when they arrive during the merge); this record's blank name, e-mail, phone and platform id are filled from the other's and attributes it lacks are added. " +
    'The other customer is gone afterwards (404). Merging a customer into itself is 400; a customer of another business is 404. ' +
    'Publishes `customer_merged` (webhook `customer.merged`) and `conversation_updated` for the conversations moved (the first 100); recorded in the audit log. ' +
    'See docs/decisions.md#customer-records.',
  tags,
  auth: 'user',
  policy: 'customers.merge',
  params: customerParams,
  body: mergeCustomerBody,
  response: mergeResultSchema,
  errors: [400, 404],
  handler: async ({ params, body, caller, member, deps }) => {
    const { customer, moved } = await runCommand(deps, (tx) =>
      mergeCustomers(tx, { businessId: member.businessId, actor: actorOf(caller), number: params.id, fromNumber: body.from_customer_id }),
    );
    return { customer, conversations_moved: moved };
  },
});

export const exportOne = defineRoute({
  method: 'get',
  path: '/api/v1/customers/:id/export',
  summary: "Export all of a customer's data",
  description:
    'Everything Parley holds about the customer, as JSON (a right-of-access request, GDPR article 15): the record, its platform identities, every conversation with all its ' +
    "messages (private notes included, marked `private`), and every file of those messages, linked. Another business's customer is 404. See docs/decisions.md#customer-records.",
  tags,
  auth: 'user',
  policy: 'customers.export',
  params: customerParams,
  response: customerExportSchema,
  errors: [403, 404],
  handler: async ({ params, member, deps, ctx }) => {
    const data = await exportCustomer(deps.db, member.businessId, params.id);
    if (!data) throw notFound('Customer not found');
    ctx.set('Content-Disposition', `attachment; filename="customer-${params.id}.json"`);
    ctx.set('Cache-Control', 'no-store');
    return data;
  },
});

export const erase = defineRoute({
  method: 'delete',
  path: '/api/v1/customers/:id',
  summary: 'Erase a customer and all their data',
  description:
    'A right-to-erasure request (GDPR article 17). At once the record is emptied and gone from every list, search and read (404 from here on); the `erase_customer` job then removes, ' +
    'in one transaction, the customer, every conversation and message of theirs, their files, the stored inbound events of their identities, the webhook deliveries that carried ' +
    "them, and the identities merged into them. A second request while the job runs answers the same. What remains: an audit row with the customer's integer id and the counts " +
    "erased (no name, address or content), and the month's message count used for billing. Publishes `customer_erased` (webhook `customer.erased`). " +
    'See docs/decisions.md#customer-records.',
  tags,
  auth: 'user',
  policy: 'customers.erase',
  params: customerParams,
  response: erasureSchema,
  errors: [403, 404],
  handler: async ({ params, caller, member, deps }) => {
    await runCommand(deps, (tx) => requestCustomerErasure(tx, { businessId: member.businessId, actor: actorOf(caller), number: params.id }));
    return { id: params.id, status: 'erasing' as const };
  },
});

export const readRetention = defineRoute({
  method: 'get',
  path: '/api/v1/settings/retention',
  summary: 'Data retention',
  description: 'How long resolved and closed conversations are kept (null: forever, the default). See docs/decisions.md#customer-records.',
  tags: ['Settings'],
  auth: 'user',
  policy: 'retention.read',
  response: retentionSchema,
  errors: [404],
  handler: async ({ member, deps }) => loadRetention(deps.db, member.businessId),
});

export const changeRetention = defineRoute({
  method: 'patch',
  path: '/api/v1/settings/retention',
  summary: 'Change data retention (owner or admin)',
  description:
    "A daily job (03:23 UTC) deletes the business's resolved and closed conversations whose last message is older than `days`, with their messages and files; customers stay. " +
    'Open and pending conversations are never deleted. Each run that deletes something writes an audit row with the counts. See docs/decisions.md#customer-records.',
  tags: ['Settings'],
  auth: 'user',
  policy: 'retention.update',
  body: updateRetentionBody,
  response: retentionSchema,
  errors: [403, 404],
  handler: async ({ body, caller, member, deps }) =>
    runCommand(deps, (tx) => updateRetention(tx, { businessId: member.businessId, actor: actorOf(caller), days: body.days })),
});

export default [list, read, visit, update, merge, exportOne, erase, readRetention, changeRetention];
