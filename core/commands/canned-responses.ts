/**
 * Canned responses: saved replies an agent inserts by typing `/short_code` in the composer. The
 * short code is unique in the business whatever its case (400 on a duplicate, as the contract
 * answers a duplicate widget domain). Rendering fills the placeholders for one conversation
 * (docs/decisions.md#labels-and-canned-responses).
 */
import { z } from 'zod';
import { UniqueIntegrityConstraintViolationError } from 'slonik';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { badRequest, notFound } from '../errors.ts';
import { cannedResponseColumns, cannedResponseRow, type CannedResponseRow } from '../presenters/label.ts';
import { visibleTo, type Viewer } from '../domain/team-visibility.ts';

export type CannedResponseFields = { short_code: string; content: string };

const codeTaken = (code: string) => badRequest(`A canned response with the short code "${code}" already exists`);

async function unlessTaken<T>(code: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof UniqueIntegrityConstraintViolationError) throw codeTaken(code);
    throw error;
  }
}

export async function createCannedResponse(
  tx: Queryable,
  input: { businessId: string; fields: CannedResponseFields },
): Promise<{ cannedResponse: CannedResponseRow }> {
  const cannedResponse = await unlessTaken(input.fields.short_code, () =>
    tx.one(sql.type(cannedResponseRow)`
      insert into canned_responses as cr (business_id, short_code, content)
      values (${input.businessId}, ${input.fields.short_code}, ${input.fields.content})
      returning ${cannedResponseColumns}`),
  );
  return { cannedResponse };
}

/** Changes the given fields (undefined keeps one). 404 for an unknown one or another business's. */
export async function updateCannedResponse(
  tx: Queryable,
  input: { businessId: string; id: string; changes: Partial<CannedResponseFields> },
): Promise<{ cannedResponse: CannedResponseRow }> {
  const { short_code, content } = input.changes;
  const cannedResponse = await unlessTaken(short_code ?? '', () =>
    tx.maybeOne(sql.type(cannedResponseRow)`
      update canned_responses as cr set
        short_code = coalesce(${short_code ?? null}, cr.short_code),
        content = coalesce(${content ?? null}, cr.content),
        updated_at = now()
      where cr.business_id = ${input.businessId} and cr.id = ${input.id}
      returning ${cannedResponseColumns}`),
  );
  if (!cannedResponse) throw notFound('Canned response not found');
  return { cannedResponse };
}

export async function deleteCannedResponse(tx: Queryable, input: { businessId: string; id: string }): Promise<{ deleted: true }> {
  const gone = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
    delete from canned_responses where business_id = ${input.businessId} and id = ${input.id} returning id`);
  if (!gone) throw notFound('Canned response not found');
  return { deleted: true };
}

/** The values a canned response's placeholders take, by placeholder name. */
export type PlaceholderValues = Record<'customer.name' | 'customer.first_name' | 'customer.email' | 'agent.name' | 'business.name', string | null>;

/**
 * `{{ name }}` or `{{ name | default: "fallback" }}` (Liquid's filter; single quotes too): a
 * placeholder, spaces inside the braces allowed, with the text used when the value is empty.
 */
const placeholder = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*(?:\|\s*default\s*:\s*(?:"([^"{}]*)"|'([^'{}]*)')\s*)?\}\}/g;

/**
 * Fills the known placeholders: an empty or missing value becomes the placeholder's fallback
 * (`{{customer.name | default: "there"}}` → `there`), else nothing. Anything else, unknown
 * placeholders included, stays exactly as typed. One pass: a value that itself looks like a
 * placeholder (a customer named `{{agent.name}}`) is not filled again.
 */
export function fillPlaceholders(content: string, values: PlaceholderValues): string {
  return content.replace(placeholder, (whole, name: string, doubleQuoted?: string, singleQuoted?: string) => {
    if (!Object.hasOwn(values, name)) return whole;
    const value = values[name as keyof PlaceholderValues]?.trim() ?? '';
    return value !== '' ? value : (doubleQuoted ?? singleQuoted ?? '');
  });
}

/** The first word of a name ("Maria" of "Maria Lopez"), or null. */
const firstName = (name: string | null) => name?.trim().split(/\s+/)[0] || null;

const contextRow = z.object({ customer_name: z.string().nullable(), customer_email: z.string().nullable(), business_name: z.string() });

/**
 * The canned response's content filled for this conversation and agent. 404 for a canned
 * response or conversation outside the business, or a conversation the viewer may not see.
 */
export async function renderCannedResponse(
  q: Queryable,
  input: { businessId: string; id: string; conversationId: string; agentName: string; viewer: Viewer },
): Promise<CannedResponseRow & { content: string }> {
  const row = await q.maybeOne(sql.type(cannedResponseRow)`
    select ${cannedResponseColumns} from canned_responses cr where cr.business_id = ${input.businessId} and cr.id = ${input.id}`);
  if (!row) throw notFound('Canned response not found');
  const context = await q.maybeOne(sql.type(contextRow)`
    select case when cu.name = cu.generated_name then null else cu.name end as customer_name, cu.email as customer_email, b.name as business_name
    from conversations c
    join businesses b on b.id = c.business_id
    left join customers cu on cu.id = c.customer_id and cu.business_id = c.business_id
    where c.id = ${input.conversationId} and c.business_id = ${input.businessId} and ${visibleTo(input.viewer)}`);
  // A conversation hidden from the caller (team-scoped visibility) is 404, as on every path that names one.
  if (!context) throw notFound('Conversation not found');
  const content = fillPlaceholders(row.content, {
    'customer.name': context.customer_name,
    'customer.first_name': firstName(context.customer_name),
    'customer.email': context.customer_email,
    'agent.name': input.agentName,
    'business.name': context.business_name,
  });
  return { ...row, content };
}
