/**
 * POST /customers/import: customers from a CSV file, upserted by e-mail (case-insensitive), else
 * by phone (same digits), else created (docs/decisions.md#customer-records). The header line
 * names the columns: `name`, `email`, `phone`, `external_id` and `attr.<key>` (what the export
 * writes; its `id`, `uuid` and `created_at` are read-only and skipped). Every row is checked on
 * its own: a bad row is reported (line, column, why) and skipped, the valid rows are applied, in
 * one transaction. An empty cell leaves the stored value as it is. An updated record counts as
 * edited by a member (the platform's profile then only fills its blanks).
 */
import { z } from 'zod';
import { parse } from 'csv-parse/sync';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { validationError } from '../errors.ts';
import { attributeFromText, loadAttributeDefinitions, MAX_ATTRIBUTE_TEXT, type AttributeDefinition } from '../domain/customer-attributes.ts';
import { recordAudit, type AuditActor } from '../domain/platform/audit.ts';
import { ATTRIBUTE_KEY_PATTERN, MAX_ATTRIBUTES, MAX_ATTRIBUTES_BYTES, type AttributeValue } from './customers.ts';

/** Rows per file (after the header). */
export const MAX_IMPORT_ROWS = 5000;
/** Bytes per file. */
export const MAX_IMPORT_BYTES = 2 * 1024 * 1024;

const FIELDS = ['name', 'email', 'phone', 'external_id'] as const;
const READ_ONLY = new Set(['id', 'uuid', 'business_id', 'created_at']);
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9 ().-]{3,50}$/;

export type ImportError = { line: number; column: string | null; msg: string };
export type ImportResult = { created: number; updated: number; errors: ImportError[] };

type Row = { line: number; name?: string; email?: string; phone?: string; external_id?: string; attributes: Record<string, AttributeValue> };

/** 422 (nothing applied) for a file that is not CSV, has no header, a column nobody knows, or too many rows. */
function readFile(text: string): { header: string[]; records: string[][] } {
  let records: string[][];
  try {
    records = parse(text, { bom: true, skip_empty_lines: true, relax_column_count: true, trim: true, max_record_size: 64 * 1024 });
  } catch (error) {
    throw validationError([{ loc: ['body', 'file'], msg: `Not a CSV file: ${(error as Error).message}`, type: 'csv_invalid' }]);
  }
  const [header, ...rows] = records;
  if (!header || rows.length === 0) throw validationError([{ loc: ['body', 'file'], msg: 'A header line and at least one row are needed', type: 'csv_empty' }]);
  if (rows.length > MAX_IMPORT_ROWS) throw validationError([{ loc: ['body', 'file'], msg: `At most ${MAX_IMPORT_ROWS} rows per file`, type: 'csv_too_long' }]);
  const names = header.map((h) => h.trim().toLowerCase());
  const unknown = names.filter(
    (h) => !(FIELDS as readonly string[]).includes(h) && !READ_ONLY.has(h) && !(h.startsWith('attr.') && ATTRIBUTE_KEY_PATTERN.test(h.slice(5))),
  );
  if (unknown.length)
    throw validationError([
      { loc: ['body', 'file'], msg: `Unknown column(s): ${unknown.join(', ')}. Use name, email, phone, external_id and attr.<key>`, type: 'csv_columns' },
    ]);
  if (!names.includes('email') && !names.includes('phone'))
    throw validationError([{ loc: ['body', 'file'], msg: 'An email or phone column is needed to match customers', type: 'csv_columns' }]);
  // Attribute keys keep their case: the header as written.
  return { header: header.map((h, i) => (names[i]!.startsWith('attr.') ? `attr.${h.trim().slice(5)}` : names[i]!)), records: rows };
}

/** One record checked: the row to apply, or its errors. Line numbers count the header as line 1. */
function checkRow(header: string[], cells: string[], line: number, definitions: readonly AttributeDefinition[]): Row | ImportError[] {
  const errors: ImportError[] = [];
  if (cells.length !== header.length) return [{ line, column: null, msg: `Expected ${header.length} cells, found ${cells.length}` }];
  const row: Row = { line, attributes: {} };
  for (const [i, column] of header.entries()) {
    const value = cells[i]!;
    if (value === '' || READ_ONLY.has(column)) continue;
    // PostgreSQL text and jsonb cannot hold NUL: the row is refused by line and column, not the whole file by a 500.
    if (value.includes('\u0000') || !value.isWellFormed()) {
      errors.push({ line, column, msg: 'Text must not contain NUL (\\u0000) characters or unpaired surrogates' });
      continue;
    }
    if (column.startsWith('attr.')) {
      const key = column.slice(5);
      const definition = definitions.find((d) => d.key === key);
      if (definitions.length && !definition) {
        errors.push({ line, column, msg: `Unknown attribute ${key}` });
        continue;
      }
      if (!definition) {
        if (value.length > MAX_ATTRIBUTE_TEXT) {
          errors.push({ line, column, msg: `At most ${MAX_ATTRIBUTE_TEXT} characters` });
          continue;
        }
        row.attributes[key] = value;
        continue;
      }
      const parsed = attributeFromText(definition, value);
      if ('problem' in parsed) {
        errors.push({ line, column, msg: parsed.problem });
        continue;
      }
      row.attributes[key] = parsed.value;
      continue;
    }
    if (/[\u0000-\u001f\u007f]/.test(value)) {
      errors.push({ line, column, msg: 'Control characters are not allowed' });
      continue;
    }
    if (column === 'name' && value.length > 200) {
      errors.push({ line, column, msg: 'At most 200 characters' });
      continue;
    }
    if (column === 'email' && (value.length > 254 || !EMAIL.test(value))) {
      errors.push({ line, column, msg: 'Not a valid e-mail address' });
      continue;
    }
    if (column === 'phone' && !PHONE.test(value)) {
      errors.push({ line, column, msg: 'Digits, spaces, + ( ) . - only (3–50 characters)' });
      continue;
    }
    if (column === 'external_id' && value.length > 200) {
      errors.push({ line, column, msg: 'At most 200 characters' });
      continue;
    }
    row[column as (typeof FIELDS)[number]] = value;
  }
  if (!errors.length && !row.email && !row.phone) errors.push({ line, column: null, msg: 'An e-mail or a phone is needed to match the customer' });
  return errors.length ? errors : row;
}

const existingRow = z.object({ id: z.string(), attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])) });

/** The business's visible customer with this e-mail, else this phone (digits): the most recent one. */
async function findExisting(tx: Queryable, businessId: string, row: Row) {
  const visible = sql.fragment`cu.business_id = ${businessId} and cu.merged_into is null and cu.erasing_at is null`;
  if (row.email) {
    const byEmail = await tx.maybeOne(sql.type(existingRow)`
      select cu.id, cu.attributes from customers cu where ${visible} and cu.email is not null and lower(cu.email) = ${row.email.toLowerCase()}
      order by cu.number desc limit 1 for update`);
    if (byEmail) return byEmail;
  }
  if (row.phone) {
    const digits = row.phone.replace(/\D/g, '');
    return tx.maybeOne(sql.type(existingRow)`
      select cu.id, cu.attributes from customers cu
      where ${visible} and cu.phone is not null and regexp_replace(cu.phone, '\\D', '', 'g') = ${digits}
      order by cu.number desc limit 1 for update`);
  }
  return null;
}

const tooLarge = (attributes: Record<string, unknown>) =>
  Object.keys(attributes).length > MAX_ATTRIBUTES || Buffer.byteLength(JSON.stringify(attributes)) > MAX_ATTRIBUTES_BYTES;

export async function importCustomers(tx: Queryable, input: { businessId: string; actor: AuditActor; text: string }): Promise<ImportResult> {
  const { header, records } = readFile(input.text);
  const definitions = await loadAttributeDefinitions(tx, input.businessId);
  const result: ImportResult = { created: 0, updated: 0, errors: [] };
  for (const [index, cells] of records.entries()) {
    const checked = checkRow(header, cells, index + 2, definitions);
    if (Array.isArray(checked)) {
      result.errors.push(...checked);
      continue;
    }
    const existing = await findExisting(tx, input.businessId, checked);
    const attributes = { ...(existing?.attributes ?? {}), ...checked.attributes };
    if (tooLarge(attributes)) {
      result.errors.push({
        line: checked.line,
        column: null,
        msg: `A customer has at most ${MAX_ATTRIBUTES} attributes and ${MAX_ATTRIBUTES_BYTES} bytes of them`,
      });
      continue;
    }
    if (existing) {
      await tx.query(sql.unsafe`
        update customers set
          name = coalesce(${checked.name ?? null}, name),
          email = coalesce(${checked.email ?? null}, email),
          phone = coalesce(${checked.phone ?? null}, phone),
          external_id = coalesce(${checked.external_id ?? null}, external_id),
          attributes = ${sql.jsonb(attributes as never)},
          edited_at = now(), updated_at = now()
        where id = ${existing.id}`);
      result.updated += 1;
    } else {
      await tx.query(sql.unsafe`
        insert into customers (business_id, name, email, phone, external_id, attributes, edited_at)
        values (${input.businessId}, ${checked.name ?? ''}, ${checked.email ?? null}, ${checked.phone ?? null}, ${checked.external_id ?? null},
          ${sql.jsonb(attributes as never)}, now())`);
      result.created += 1;
    }
  }
  // Counts only: the file's content is the customers' personal data.
  await recordAudit(tx, {
    businessId: input.businessId,
    actor: input.actor,
    action: 'customers.imported',
    targetType: 'customer',
    targetId: null,
    details: { created: result.created, updated: result.updated, rows_with_errors: new Set(result.errors.map((e) => e.line)).size },
  });
  return result;
}
