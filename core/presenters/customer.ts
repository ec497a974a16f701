/** customers row (with its business number) → the spec's Customer object. */
import { z } from '../../lib/zod.ts';
import { sql } from '../adapters/postgres/db.ts';

export const customerRow = z.object({
  id: z.string(),
  number: z.number(),
  business_number: z.number(),
  name: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  external_id: z.string().nullable(),
  attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  created_at: z.string(),
});
export type CustomerRow = z.infer<typeof customerRow>;

/** The columns customerRow reads, for `select ${customerColumns} from customers cu join businesses b on b.id = cu.business_id`. */
export const customerColumns = sql.fragment`cu.id, cu.number, b.number as business_number, cu.name, cu.email, cu.phone, cu.external_id, cu.attributes, cu.created_at`;

/**
 * The customers a business sees: not merged into another (that row is only an identity now) and
 * not being erased. For `where … and ${visibleCustomer}` on `customers cu`.
 */
export const visibleCustomer = sql.fragment`cu.merged_into is null and cu.erasing_at is null`;

export const customerSchema = z
  .object({
    id: z.number().int().openapi({ description: "The customer's integer number (the id in /customers/{id})" }),
    business_id: z.number().int().openapi({ description: "The business's integer number" }),
    uuid: z.uuid().openapi({ description: "The customer's UUID, used as `customer_id` on conversations" }),
    name: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    external_id: z.string().nullable(),
    attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).openapi({
      description:
        'Custom fields the business keeps on the customer: key → text, number or boolean (PATCH /customers/{id}; see docs/decisions.md#customer-records)',
    }),
    created_at: z.string(),
  })
  .openapi('Customer');
export type Customer = z.infer<typeof customerSchema>;

export const presentCustomer = (row: CustomerRow): Customer => ({
  id: row.number,
  business_id: row.business_number,
  uuid: row.id,
  name: row.name,
  email: row.email,
  phone: row.phone,
  external_id: row.external_id,
  attributes: row.attributes,
  created_at: row.created_at,
});
