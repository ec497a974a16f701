/**
 * The business's labels, and which conversations carry them. A label's name is unique in the
 * business whatever its case (400 on a duplicate, as the contract answers a duplicate widget
 * domain); conversations are labelled by name. Setting a conversation's labels is the one change
 * that fires `conversation_updated`; renaming or deleting a label changes what every labelled
 * conversation shows without an event per conversation (docs/decisions.md#labels-and-canned-responses).
 */
import { z } from 'zod';
import { UniqueIntegrityConstraintViolationError } from 'slonik';
import type { DomainEventInput } from '../events/domain-types.ts';
import { domainEvent } from './conversations.ts';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { badRequest, notFound } from '../errors.ts';
import { conversationUpdated, type PendingEvent } from '../events/live.ts';
import { labelColumns, labelRow, type LabelRow } from '../presenters/label.ts';
import { labelsByConversation } from '../reads/conversations.ts';
import { liveEvent, type LiveEvent } from '../events/catalogue.ts';

export type LabelFields = { name: string; color: string; description: string };

const nameTaken = (name: string) => badRequest(`A label named "${name}" already exists`);

/** The insert or update, with a duplicate name as 400 instead of the unique index's error. */
async function unlessTaken<T>(name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof UniqueIntegrityConstraintViolationError) throw nameTaken(name);
    throw error;
  }
}

/** The event that tells open apps to read the labels again. */
const labelsChanged = (businessId: string) => liveEvent('settings_changed', { business_id: businessId, setting: 'labels', at: new Date().toISOString() });

export async function createLabel(tx: Queryable, input: { businessId: string; fields: LabelFields }): Promise<{ label: LabelRow; events: LiveEvent[] }> {
  const { name, color, description } = input.fields;
  const label = await unlessTaken(name, () =>
    tx.one(sql.type(labelRow)`
      insert into labels as l (business_id, name, color, description)
      values (${input.businessId}, ${name}, ${color}, ${description})
      returning ${labelColumns}`),
  );
  return { label, events: [labelsChanged(input.businessId)] };
}

/** Changes the given fields (undefined keeps one). 404 for an unknown label or another business's. */
export async function updateLabel(
  tx: Queryable,
  input: { businessId: string; labelId: string; changes: Partial<LabelFields> },
): Promise<{ label: LabelRow; events: LiveEvent[] }> {
  const { name, color, description } = input.changes;
  const label = await unlessTaken(name ?? '', () =>
    tx.maybeOne(sql.type(labelRow)`
      update labels as l set
        name = coalesce(${name ?? null}, l.name),
        color = coalesce(${color ?? null}, l.color),
        description = coalesce(${description ?? null}, l.description),
        updated_at = now()
      where l.business_id = ${input.businessId} and l.id = ${input.labelId}
      returning ${labelColumns}`),
  );
  if (!label) throw notFound('Label not found');
  return { label, events: [labelsChanged(input.businessId)] };
}

/** Deletes the label; conversations lose it (the foreign key cascades). */
export async function deleteLabel(tx: Queryable, input: { businessId: string; labelId: string }): Promise<{ deleted: true; events: LiveEvent[] }> {
  const gone = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
    delete from labels where business_id = ${input.businessId} and id = ${input.labelId} returning id`);
  if (!gone) throw notFound('Label not found');
  return { deleted: true, events: [labelsChanged(input.businessId)] };
}

const foundLabel = z.object({ id: z.string(), name: z.string(), wanted: z.string() });

/**
 * Replaces the conversation's labels with these names (case-insensitive; each once). 404 for a
 * conversation outside the business, 400 naming the labels the business does not have. Fires
 * `conversation_updated` only when the set changed; the conversation's `updated_at` stays (a
 * label does not move a conversation up the inbox).
 */
export async function setConversationLabels(
  tx: Queryable,
  input: { businessId: string; conversationId: string; names: string[] },
): Promise<{ labels: string[]; changed: boolean; events: PendingEvent[]; domainEvents?: DomainEventInput[] }> {
  // Locks the conversation: two agents labelling it at once apply one after the other.
  const conversation = await tx.maybeOne(sql.type(z.object({ id: z.string(), business_id: z.string() }))`
    select id, business_id from conversations where id = ${input.conversationId} and business_id = ${input.businessId} for update`);
  if (!conversation) throw notFound('Conversation not found');

  const wanted = [...new Map(input.names.map((n) => [n.toLowerCase(), n])).values()];
  const found = wanted.length
    ? await tx.any(sql.type(foundLabel)`
        select l.id, l.name, w.name as wanted
        from unnest(${sql.array(wanted, 'text')}) as w(name)
        join labels l on l.business_id = ${input.businessId} and lower(l.name) = lower(w.name)`)
    : [];
  const known = new Set(found.map((f) => f.wanted));
  const unknown = wanted.filter((n) => !known.has(n));
  if (unknown.length) throw badRequest(`Unknown label${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`);

  const ids = found.map((f) => f.id);
  const removed = await tx.any(sql.type(z.object({ label_id: z.string() }))`
    delete from conversation_labels
    where business_id = ${input.businessId} and conversation_id = ${conversation.id} and label_id <> all(${sql.array(ids, 'uuid')})
    returning label_id`);
  const added = await tx.any(sql.type(z.object({ label_id: z.string() }))`
    insert into conversation_labels (business_id, conversation_id, label_id)
    select ${input.businessId}, ${conversation.id}, id from unnest(${sql.array(ids, 'uuid')}) as ids(id)
    on conflict do nothing
    returning label_id`);
  const changed = removed.length > 0 || added.length > 0;
  const labels = (await labelsByConversation(tx, [conversation])).get(conversation.id) ?? [];
  if (!changed) return { labels, changed, events: [] };
  const names = await tx.any(sql.type(z.object({ id: z.string(), name: z.string() }))`
    select id, name from labels where business_id = ${input.businessId} and id = any(${sql.array(
      [...removed, ...added].map((r) => r.label_id),
      'uuid',
    )})`);
  const nameOf = (id: string) => names.find((n) => n.id === id)?.name ?? id;
  const data = { added: added.map((r) => nameOf(r.label_id)), removed: removed.map((r) => nameOf(r.label_id)) };
  return { labels, changed, events: [conversationUpdated(conversation)], domainEvents: [domainEvent('conversation.labelled', conversation, undefined, data)] };
}
