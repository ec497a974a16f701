/**
 * An identified website visitor (identity verification, core/domain/visitors/identity-verification.ts):
 * the hash is checked against the widget's secret (401 and nothing changes when it does not
 * match, or when the widget has no secret), then the visitor is the customer whose platform id
 * on the widget channel derives from the identity: found (every device of the same person gets
 * the same one, with the same conversations) or created. The name, e-mail and attributes given
 * fill the record as the widget always does (a record a member edited keeps its name and
 * e-mail); attributes are checked against the business's definitions (422).
 *
 * The anonymous visitor the browser was until now (its token in `resume`) is merged into the
 * identified customer, so the conversation they started before signing in comes along. Never
 * another identified visitor's record: a second person signing in on the same browser does not
 * take the first one's history.
 *
 * Locks: the same advisory lock as inbound_apply_message (channel, platform id), so a message of
 * the visitor and their identification never interleave; then the customer rows.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { conflict, HttpError, validationError } from '../errors.ts';
import type { PendingEvent } from '../events/live.ts';
import { attributeIssues, loadAttributeDefinitions } from '../domain/customer-attributes.ts';
import { identifiedVisitorId, identityHashMatches, isAnonymousVisitorId, openIdentitySecret } from '../domain/visitors/identity-verification.ts';
import type { VisitorClaims } from '../domain/visitors/visitor-tokens.ts';
import { MAX_ATTRIBUTES, MAX_ATTRIBUTES_BYTES, mergeCustomers, type AttributeValue } from './customers.ts';
import { impliedBy, recordEvents } from '../events/domain.ts';

export type VisitorIdentity = {
  /** The business's own id of the user; hashed when given (else the e-mail). */
  external_id?: string;
  email?: string;
  name?: string;
  attributes?: Record<string, AttributeValue | null>;
  /** hex(HMAC-SHA256(widget identity secret, external_id ?? email)). */
  user_hash: string;
};

const identityRefused = (detail: string) => new HttpError(401, { detail });

const customerRow = z.object({
  id: z.string(),
  number: z.coerce.number(),
  merged_into: z.string().nullable(),
  erasing: z.boolean(),
  attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
});

export async function identifyVisitor(
  tx: Queryable,
  key: Uint8Array,
  input: { widgetId: string; channelId: string; businessId: string; identity: VisitorIdentity; resume: VisitorClaims | null },
): Promise<{ customerId: string; visitorId: string; existed: boolean; events: PendingEvent[] }> {
  const { identity } = input;
  const sealed = await tx.maybeOneFirst(sql.type(z.object({ sealed: z.string().nullable() }))`
    select identity_secret_encrypted as sealed from widgets where id = ${input.widgetId}`);
  if (!sealed) throw identityRefused('Identity verification is not set up for this widget: make its secret in Settings → Website widget');
  const identifier = identity.external_id ?? identity.email!;
  if (!identityHashMatches(openIdentitySecret(key, sealed), identifier, identity.user_hash))
    throw identityRefused('Identity verification failed: user_hash is not the HMAC of this visitor');
  const issues = attributeIssues(await loadAttributeDefinitions(tx, input.businessId), identity.attributes ?? {}, ['body', 'identity', 'attributes']);
  if (issues.length) throw validationError(issues);

  const visitorId = identifiedVisitorId(identity);
  await tx.query(sql.unsafe`select pg_advisory_xact_lock(hashtext(${input.channelId}::text || ':' || ${visitorId}))`);
  let row = await tx.maybeOne(sql.type(customerRow)`
    select cu.id, cu.number, cu.merged_into, cu.erasing_at is not null as erasing, cu.attributes from customers cu
    where cu.channel_id = ${input.channelId} and cu.platform_user_id = ${visitorId} and cu.business_id = ${input.businessId}
    for update`);
  const existed = row !== null;
  // A person merged into another record continues as that record.
  if (row?.merged_into) {
    row = await tx.maybeOne(sql.type(customerRow)`
      select cu.id, cu.number, cu.merged_into, cu.erasing_at is not null as erasing, cu.attributes from customers cu
      where cu.id = ${row.merged_into} and cu.business_id = ${input.businessId} for update`);
  }
  if (row?.erasing) throw conflict('This visitor is being erased; try again in a minute');
  const email = identity.email?.toLowerCase() ?? null;
  const name = identity.name ?? null;
  let customer: { id: string; number: number };
  if (row) {
    const attributes: Record<string, AttributeValue> = { ...row.attributes };
    for (const [k, v] of Object.entries(identity.attributes ?? {})) {
      if (v === null) delete attributes[k];
      else attributes[k] = v;
    }
    assertWithinLimits(attributes);
    await tx.query(sql.unsafe`
      update customers cu set
        name = case when ${name}::text is null or (cu.edited_at is not null and cu.name <> '') then cu.name else ${name} end,
        email = case when cu.edited_at is null then coalesce(${email}, cu.email) else coalesce(cu.email, ${email}) end,
        external_id = coalesce(cu.external_id, ${identity.external_id ?? null}),
        attributes = ${sql.jsonb(attributes as never)},
        updated_at = now()
      where cu.id = ${row.id}`);
    customer = row;
  } else {
    const attributes = Object.fromEntries(Object.entries(identity.attributes ?? {}).filter(([, v]) => v !== null));
    assertWithinLimits(attributes);
    customer = await tx.one(sql.type(z.object({ id: z.string(), number: z.coerce.number() }))`
      insert into customers (business_id, channel_id, platform_user_id, name, email, external_id, attributes)
      values (${input.businessId}, ${input.channelId}, ${visitorId}, ${name ?? ''}, ${email}, ${identity.external_id ?? null}, ${sql.jsonb(attributes as never)})
      returning id, number`);
  }

  const events: PendingEvent[] = [];
  const anonymous = input.resume && isAnonymousVisitorId(input.resume.visitorId) ? await anonymousCustomer(tx, input, input.resume) : null;
  if (anonymous !== null && anonymous !== customer.number) {
    const merged = await mergeCustomers(tx, {
      businessId: input.businessId,
      actor: { type: 'system', name: 'Website widget (identity verification)' },
      number: customer.number,
      fromNumber: anonymous,
    });
    events.push(...merged.events);
    // In this transaction, so the merge and its webhook job commit together (the session route runs on the pool).
    await recordEvents(tx, impliedBy(merged.events));
  }
  return { customerId: customer.id, visitorId, existed, events };
}

function assertWithinLimits(attributes: Record<string, unknown>): void {
  if (Object.keys(attributes).length > MAX_ATTRIBUTES || Buffer.byteLength(JSON.stringify(attributes)) > MAX_ATTRIBUTES_BYTES)
    throw validationError([
      {
        loc: ['body', 'identity', 'attributes'],
        msg: `A customer has at most ${MAX_ATTRIBUTES} attributes and ${MAX_ATTRIBUTES_BYTES} bytes of them`,
        type: 'value_error',
      },
    ]);
}

/** The number of the visible anonymous customer the browser's token names on this channel, or null. */
async function anonymousCustomer(tx: Queryable, input: { channelId: string; businessId: string }, resume: VisitorClaims): Promise<number | null> {
  return tx.maybeOneFirst(sql.type(z.object({ number: z.coerce.number() }))`
    select cu.number from customers cu
    where cu.id = ${resume.customerId} and cu.channel_id = ${input.channelId} and cu.platform_user_id = ${resume.visitorId}
      and cu.business_id = ${input.businessId} and cu.merged_into is null and cu.erasing_at is null`);
}
