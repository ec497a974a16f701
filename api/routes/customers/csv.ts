/**
 * Customers as CSV (docs/decisions.md#customer-records): the export streams every customer of the
 * business (batches read by keyset, written as they come), the import upserts from a file. CSV is
 * written by csv-stringify and read by csv-parse (RFC 4180 quoting, a BOM, CRLF, embedded
 * newlines; the export escapes cells a spreadsheet would run as a formula). No CSV library was a
 * dependency; these two have no dependencies of their own, are maintained together, and stream.
 */
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import { z } from '../../../lib/zod.ts';
import { sql, type Db } from '../../../core/adapters/postgres/db.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import { importCustomers, MAX_IMPORT_BYTES, MAX_IMPORT_ROWS } from '../../../core/commands/customer-import.ts';
import { loadAttributeDefinitions } from '../../../core/domain/customer-attributes.ts';
import { actorOf } from '../../../core/domain/platform/audit.ts';
import { visibleCustomer } from '../../../core/presenters/customer.ts';
import { customersAfter } from '../../../core/reads/customers.ts';
import { fileIssue, oneFileMultipart, receivedFiles } from '../../multipart-upload.ts';
import { defineRoute } from '../../route.ts';

const BATCH = 500;

/** Every column: the record's fields, then `attr.<key>` for each defined key and each other key some customer has. */
async function exportColumns(db: Db, businessId: string): Promise<string[]> {
  const defined = (await loadAttributeDefinitions(db, businessId)).map((d) => d.key);
  const present = await db.anyFirst(sql.type(z.object({ key: z.string() }))`
    select distinct jsonb_object_keys(cu.attributes) as key from customers cu
    where cu.business_id = ${businessId} and ${visibleCustomer} and cu.attributes <> '{}'::jsonb order by 1`);
  const keys = [...defined, ...present.filter((k) => !defined.includes(k))];
  return ['id', 'uuid', 'name', 'email', 'phone', 'external_id', 'created_at', ...keys.map((k) => `attr.${k}`)];
}

async function* customerLines(db: Db, businessId: string, columns: string[]) {
  yield columns;
  let after = 0;
  for (;;) {
    const rows = await customersAfter(db, businessId, after, BATCH);
    for (const r of rows) {
      const fields: Record<string, unknown> = {
        id: r.id,
        uuid: r.uuid,
        name: r.name,
        email: r.email,
        phone: r.phone,
        external_id: r.external_id,
        created_at: r.created_at,
      };
      yield columns.map((c) => {
        const value = c.startsWith('attr.') ? r.attributes[c.slice(5)] : fields[c];
        return value === null || value === undefined ? '' : String(value);
      });
    }
    if (rows.length < BATCH) return;
    after = rows.at(-1)!.id;
  }
}

export const exportCsv = defineRoute({
  method: 'get',
  path: '/api/v1/customers/export.csv',
  summary: 'Export every customer as CSV',
  description:
    'A `text/csv` attachment (`parley-customers-<date>.csv`), streamed: a header line, then one line per customer, oldest first: `id`, `uuid`, `name`, `email`, `phone`, ' +
    '`external_id`, `created_at`, and `attr.<key>` for every attribute (the defined ones in their order, then any other key a customer holds). Booleans are `true`/`false`; ' +
    "empty cells are null. Cells starting with `=`, `+`, `-`, `@`, tab or CR are prefixed with `'` (spreadsheet formula injection). The same file can be imported back. " +
    'See docs/decisions.md#customer-records.',
  tags: ['Customers'],
  auth: 'user',
  policy: 'customers.export_all',
  response: z.string().openapi({ description: 'CSV (RFC 4180, CRLF line ends)' }),
  responseContentType: 'text/csv',
  errors: [403, 404],
  handler: async ({ member, deps, ctx }) => {
    const columns = await exportColumns(deps.db, member.businessId);
    ctx.status = 200;
    ctx.type = 'text/csv; charset=utf-8';
    ctx.set('Content-Disposition', `attachment; filename="parley-customers-${new Date().toISOString().slice(0, 10)}.csv"`);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = Readable.from(customerLines(deps.db, member.businessId, columns)).pipe(stringify({ record_delimiter: 'windows', escape_formulas: true }));
    return undefined;
  },
});

/** The CSV in field `file`; the temp file removed afterwards. */
const csvUpload = oneFileMultipart({ maxBytes: MAX_IMPORT_BYTES, maxFields: 5, maxFieldsSize: 4096, headroomBytes: 64 * 1024 });

const importResultSchema = z
  .object({
    created: z.number().int(),
    updated: z.number().int(),
    errors: z
      .array(
        z.object({
          line: z.number().int().openapi({ description: 'Line of the file (the header is line 1)' }),
          column: z.string().nullable().openapi({ description: 'The column at fault; null for the row as a whole' }),
          msg: z.string(),
        }),
      )
      .openapi({ description: 'The rows skipped and why; every other row was applied' }),
  })
  .openapi('CustomerImport');

export const importCsv = defineRoute({
  method: 'post',
  path: '/api/v1/customers/import',
  summary: 'Import customers from CSV',
  description:
    `Multipart form with the CSV in field \`file\` (UTF-8, at most ${MAX_IMPORT_BYTES / (1024 * 1024)} MiB and ${MAX_IMPORT_ROWS} rows; 413 past the size). ` +
    "The header names the columns: `name`, `email`, `phone`, `external_id`, `attr.<key>` (the export's `id`, `uuid` and `created_at` are skipped); another column is 422 and nothing is applied. " +
    "Each row updates the business's customer with that e-mail (case-insensitive), else that phone (same digits), else creates one; an empty cell keeps the stored value. " +
    'Rows are checked one by one (attributes against the definitions): a bad row is listed in `errors` and skipped, the others are applied together. ' +
    'Recorded in the audit log with the counts. See docs/decisions.md#customer-records.',
  tags: ['Customers'],
  auth: 'user',
  policy: 'customers.import',
  bodyParser: csvUpload,
  response: importResultSchema,
  errors: [403, 404, 413],
  handler: async ({ caller, member, deps, ctx }) => {
    const files = receivedFiles(ctx);
    if (files.length === 0) throw fileIssue('Field required', 'missing');
    const text = await readFile(files[0]!.filepath, 'utf8');
    return runCommand(deps, (tx) => importCustomers(tx, { businessId: member.businessId, actor: actorOf(caller), text }));
  },
});

export default [exportCsv, importCsv];
