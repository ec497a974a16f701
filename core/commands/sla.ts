/**
 * SLA policies (owners and admins manage them) and each conversation's due times and breaches
 * (docs/decisions.md#sla-targets-and-csat).
 *
 * `refreshSla` is the one place due times are worked out: the `sla_refresh` job runs it for a
 * conversation whenever what they depend on changed (armed by the triggers of migration 0095),
 * and the `sla_check` crontab job every minute for the conversations whose soonest unrecorded due
 * time has passed. It stores the policy and due times on the conversation (the inbox sorts and
 * filters by them), and records each breach once (`sla_breaches`, unique per conversation, target
 * and due time), returning `sla_breached` for each breach it recorded.
 */
import { z } from 'zod';
import { UniqueIntegrityConstraintViolationError } from 'slonik';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { badRequest, notFound } from '../errors.ts';
import { liveEvent } from '../events/catalogue.ts';
import { settingsChanged, type DomainEventInput } from '../events/domain.ts';
import { conversationUpdated, type PendingEvent } from '../events/live.ts';
import { breachedTargets, choosePolicy, slaDue, unmetTargets, type SlaClock, type SlaDue, type SlaPolicyRule, type TargetState } from '../domain/sla.ts';
import { loadBusinessHours } from './business-hours.ts';

export const slaPolicyRow = z.object({
  id: z.string(),
  business_id: z.string(),
  name: z.string(),
  first_response_minutes: z.number().nullable(),
  next_response_minutes: z.number().nullable(),
  resolution_minutes: z.number().nullable(),
  business_hours_only: z.boolean(),
  channel_ids: z.array(z.string()),
  label_ids: z.array(z.string()),
  /** The names of its labels that still exist, alphabetical. */
  labels: z.array(z.string()),
  created_at: z.string(),
  updated_at: z.string(),
});
export type SlaPolicyRow = z.infer<typeof slaPolicyRow>;

export const slaPolicyColumns = sql.fragment`
  p.id, p.business_id, p.name, p.first_response_minutes, p.next_response_minutes, p.resolution_minutes, p.business_hours_only,
  p.channel_ids, p.label_ids,
  array(select l.name from labels l where l.business_id = p.business_id and l.id = any(p.label_ids) order by lower(l.name)) as labels,
  p.created_at, p.updated_at`;

export type SlaPolicyFields = {
  name: string;
  first_response_minutes: number | null;
  next_response_minutes: number | null;
  resolution_minutes: number | null;
  business_hours_only: boolean;
  channel_ids: string[];
  labels: string[];
};

/** Label names → ids of the business (400 naming the first unknown); channel ids checked as the business's (400). */
async function resolveScope(tx: Queryable, businessId: string, fields: Partial<SlaPolicyFields>): Promise<{ channelIds?: string[]; labelIds?: string[] }> {
  const out: { channelIds?: string[]; labelIds?: string[] } = {};
  if (fields.labels) {
    const wanted = [...new Set(fields.labels.map((n) => n.toLowerCase()))];
    const found = await tx.any(sql.type(z.object({ id: z.string(), lname: z.string() }))`
      select id, lower(name) as lname from labels where business_id = ${businessId} and lower(name) = any(${sql.array(wanted, 'text')})`);
    const missing = fields.labels.find((n) => !found.some((f) => f.lname === n.toLowerCase()));
    if (missing !== undefined) throw badRequest(`No label named "${missing}"`);
    out.labelIds = found.map((f) => f.id);
  }
  if (fields.channel_ids) {
    const wanted = [...new Set(fields.channel_ids)];
    const found = await tx.anyFirst(sql.type(z.object({ id: z.string() }))`
      select id from channels where business_id = ${businessId} and id = any(${sql.array(wanted, 'uuid')})`);
    const missing = wanted.find((id) => !found.includes(id));
    if (missing !== undefined) throw badRequest(`Channel ${missing} not found`);
    out.channelIds = wanted;
  }
  return out;
}

async function unlessTaken<T>(name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof UniqueIntegrityConstraintViolationError) throw badRequest(`An SLA policy named "${name}" already exists`);
    throw error;
  }
}

/** Every open or pending conversation of the business works its due times out again (core/subscribers/sla.ts). */
const policiesChanged = (businessId: string, before: SlaPolicyRow | null, after: SlaPolicyRow | null, id: string): DomainEventInput[] => [
  settingsChanged(businessId, 'sla', before, after, id),
];

export async function createSlaPolicy(
  tx: Queryable,
  businessId: string,
  fields: SlaPolicyFields,
): Promise<{ policy: SlaPolicyRow; domainEvents: DomainEventInput[] }> {
  const scope = await resolveScope(tx, businessId, fields);
  const policy = await unlessTaken(fields.name, () =>
    tx.one(sql.type(slaPolicyRow)`
      insert into sla_policies as p (business_id, name, first_response_minutes, next_response_minutes, resolution_minutes, business_hours_only, channel_ids, label_ids)
      values (${businessId}, ${fields.name}, ${fields.first_response_minutes}, ${fields.next_response_minutes}, ${fields.resolution_minutes},
              ${fields.business_hours_only}, ${sql.array(scope.channelIds ?? [], 'uuid')}, ${sql.array(scope.labelIds ?? [], 'uuid')})
      returning ${slaPolicyColumns}`),
  );
  return { policy, domainEvents: policiesChanged(businessId, null, policy, policy.id) };
}

/** Changes the given fields; 404 for an unknown policy or another business's. */
export async function updateSlaPolicy(
  tx: Queryable,
  businessId: string,
  policyId: string,
  changes: Partial<SlaPolicyFields>,
): Promise<{ policy: SlaPolicyRow; domainEvents: DomainEventInput[] }> {
  const scope = await resolveScope(tx, businessId, changes);
  const before = await tx.maybeOne(
    sql.type(slaPolicyRow)`select ${slaPolicyColumns} from sla_policies p where p.business_id = ${businessId} and p.id = ${policyId}`,
  );
  const keep = (key: keyof SlaPolicyFields) => changes[key] === undefined;
  const policy = await unlessTaken(changes.name ?? '', () =>
    tx.maybeOne(sql.type(slaPolicyRow)`
      update sla_policies as p set
        name = coalesce(${changes.name ?? null}, p.name),
        first_response_minutes = case when ${keep('first_response_minutes')} then p.first_response_minutes else ${changes.first_response_minutes ?? null}::int end,
        next_response_minutes = case when ${keep('next_response_minutes')} then p.next_response_minutes else ${changes.next_response_minutes ?? null}::int end,
        resolution_minutes = case when ${keep('resolution_minutes')} then p.resolution_minutes else ${changes.resolution_minutes ?? null}::int end,
        business_hours_only = coalesce(${changes.business_hours_only ?? null}::boolean, p.business_hours_only),
        channel_ids = coalesce(${scope.channelIds ? sql.array(scope.channelIds, 'uuid') : null}::uuid[], p.channel_ids),
        label_ids = coalesce(${scope.labelIds ? sql.array(scope.labelIds, 'uuid') : null}::uuid[], p.label_ids),
        updated_at = now()
      where p.business_id = ${businessId} and p.id = ${policyId}
      returning ${slaPolicyColumns}`),
  );
  if (!policy) throw notFound('SLA policy not found');
  return { policy, domainEvents: policiesChanged(businessId, before, policy, policyId) };
}

export async function deleteSlaPolicy(tx: Queryable, businessId: string, policyId: string): Promise<{ deleted: true; domainEvents: DomainEventInput[] }> {
  // Its conversations' policy id is set null by the foreign key; the business's open ones work their due times out again.
  const before = await tx.maybeOne(
    sql.type(slaPolicyRow)`select ${slaPolicyColumns} from sla_policies p where p.business_id = ${businessId} and p.id = ${policyId}`,
  );
  if (!before) throw notFound('SLA policy not found');
  await tx.query(sql.unsafe`delete from sla_policies where business_id = ${businessId} and id = ${policyId}`);
  return { deleted: true, domainEvents: policiesChanged(businessId, before, null, policyId) };
}

export async function getSlaPolicy(q: Queryable, businessId: string, policyId: string): Promise<SlaPolicyRow> {
  const policy = await q.maybeOne(
    sql.type(slaPolicyRow)`select ${slaPolicyColumns} from sla_policies p where p.business_id = ${businessId} and p.id = ${policyId}`,
  );
  if (!policy) throw notFound('SLA policy not found');
  return policy;
}

// ---- Due times and breaches

const clockRow = z.object({
  id: z.string(),
  business_id: z.string(),
  status: z.enum(['open', 'pending', 'resolved', 'closed']),
  channel_id: z.string().nullable(),
  created_at: z.string(),
  first_response_at: z.string().nullable(),
  resolved_at: z.string().nullable(),
  closed_at: z.string().nullable(),
  label_ids: z.array(z.string()),
  last_reply_at: z.string().nullable(),
  previous_reply_at: z.string().nullable(),
  waiting_since: z.string().nullable(),
  answered_since: z.string().nullable(),
  now: z.string(),
});

const policyRule = z.object({
  id: z.string(),
  name: z.string(),
  first_response_minutes: z.number().nullable(),
  next_response_minutes: z.number().nullable(),
  resolution_minutes: z.number().nullable(),
  business_hours_only: z.boolean(),
  channel_ids: z.array(z.string()),
  label_ids: z.array(z.string()),
});

const date = (s: string | null) => (s === null ? null : new Date(s));
const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/**
 * Works out one conversation's policy and due times, stores them, and records the breaches due
 * by now (each once). Locks the conversation's row; a conversation gone is nothing to do.
 */
export async function refreshSla(tx: Queryable, conversationId: string): Promise<{ events: PendingEvent[] }> {
  const row = await tx.maybeOne(sql.type(clockRow)`
    with c as (select * from conversations where id = ${conversationId} for update),
    replies as (
      select m.created_at from messages m, c
      where m.conversation_id = c.id and m.sender_type = 'agent' and not m.private
      order by m.created_at desc limit 2
    ),
    r as (select (select max(created_at) from replies) as last_reply_at, (select min(created_at) from replies having count(*) = 2) as previous_reply_at)
    select c.id, c.business_id, c.status, c.channel_id, c.created_at, c.first_response_at, c.resolved_at, c.closed_at,
      array(select cl.label_id from conversation_labels cl where cl.business_id = c.business_id and cl.conversation_id = c.id) as label_ids,
      r.last_reply_at, r.previous_reply_at,
      (select min(m.created_at) from messages m where m.conversation_id = c.id and m.sender_type = 'customer' and not m.private
         and r.last_reply_at is not null and m.created_at > r.last_reply_at) as waiting_since,
      (select min(m.created_at) from messages m where m.conversation_id = c.id and m.sender_type = 'customer' and not m.private
         and r.previous_reply_at is not null and m.created_at > r.previous_reply_at and m.created_at < r.last_reply_at) as answered_since,
      clock_timestamp() as now
    from c, r`);
  if (!row) return { events: [] };
  const businessId = row.business_id;
  const policies = await tx.any(sql.type(policyRule)`
    select id, name, first_response_minutes, next_response_minutes, resolution_minutes, business_hours_only, channel_ids, label_ids
    from sla_policies where business_id = ${businessId}`);
  const policy: SlaPolicyRule | null = choosePolicy(policies, { channel_id: row.channel_id, label_ids: row.label_ids });
  const now = new Date(row.now);
  let due = null;
  if (policy) {
    const settings = policy.business_hours_only ? await loadBusinessHours(tx, businessId) : null;
    const clock: SlaClock = {
      status: row.status,
      created_at: new Date(row.created_at),
      first_response_at: date(row.first_response_at),
      finished_at: date(row.resolved_at ?? row.closed_at),
      waiting_since: date(row.waiting_since),
      answered: row.answered_since && row.last_reply_at ? { since: new Date(row.answered_since), replied_at: new Date(row.last_reply_at) } : null,
    };
    due = slaDue(policy, settings?.enabled ? settings : null, clock);
  }
  const unmet = due ? unmetTargets(due) : [];
  const breached: TargetState[] = due ? breachedTargets(due, now) : [];
  const events: PendingEvent[] = [];
  for (const b of breached) {
    const recorded = await tx.maybeOne(sql.type(z.object({ id: z.string(), breached_at: z.string() }))`
      insert into sla_breaches (business_id, conversation_id, sla_policy_id, target, due_at)
      values (${businessId}, ${row.id}, ${policy!.id}, ${b.target}, ${b.due_at.toISOString()})
      on conflict (business_id, conversation_id, target, due_at) do nothing
      returning id, breached_at`);
    if (recorded) {
      events.push(
        liveEvent('sla_breached', {
          business_id: businessId,
          conversation_id: row.id,
          breach_id: recorded.id,
          sla_policy_id: policy!.id,
          target: b.target,
          due_at: b.due_at.toISOString(),
          at: recorded.breached_at,
        }),
      );
    }
  }
  if (due) await recordResults(tx, businessId, row.id, policy!.id, settledTargets(due, now, row));
  // The crontab's next look: the soonest unmet target still ahead (every one past due is recorded now).
  const ahead = unmet.find((s) => s.due_at.getTime() > now.getTime());
  const changed = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
    update conversations c set
      sla_policy_id = ${policy?.id ?? null},
      sla_first_response_due_at = ${iso(due?.first_response?.due_at)},
      sla_next_response_due_at = ${iso(due?.next_response?.due_at)},
      sla_resolution_due_at = ${iso(due?.resolution?.due_at)},
      sla_due_at = ${iso(unmet[0]?.due_at)},
      sla_alert_at = ${iso(ahead?.due_at)}
    where c.id = ${row.id} and (
      c.sla_policy_id, c.sla_first_response_due_at, c.sla_next_response_due_at, c.sla_resolution_due_at, c.sla_due_at, c.sla_alert_at
    ) is distinct from (
      ${policy?.id ?? null}::uuid, ${iso(due?.first_response?.due_at)}::timestamptz, ${iso(due?.next_response?.due_at)}::timestamptz,
      ${iso(due?.resolution?.due_at)}::timestamptz, ${iso(unmet[0]?.due_at)}::timestamptz, ${iso(ahead?.due_at)}::timestamptz
    )
    returning c.id`);
  if (changed || events.length > 0) events.push(conversationUpdated({ id: row.id, business_id: businessId }));
  return { events };
}

type Settled = TargetState & { started_at: Date };

/**
 * The targets whose outcome is decided as of `now`, each with the start of its clock (the key
 * of its result): met (in time or late), or unmet past its due time.
 */
function settledTargets(due: SlaDue, now: Date, row: { created_at: string; waiting_since: string | null; answered_since: string | null }): Settled[] {
  const created = new Date(row.created_at);
  const candidates: [TargetState | null, Date | null][] = [
    [due.first_response, created],
    [due.resolution, created],
    [due.next_response, date(row.waiting_since)],
    [due.answered_next_response, date(row.answered_since)],
  ];
  return candidates.flatMap(([s, start]) => (s && start && (s.met_at !== null || s.due_at.getTime() <= now.getTime()) ? [{ ...s, started_at: start }] : []));
}

/**
 * Records each settled target once in sla_results (the SLA report's source): hit when met by
 * its due time; its instant is the meeting reply or resolution, or for a miss the due time.
 * The first settlement of a clock stands (a later policy change or reopening does not rewrite it).
 */
async function recordResults(tx: Queryable, businessId: string, conversationId: string, policyId: string, settled: Settled[]): Promise<void> {
  if (settled.length === 0) return;
  const hit = settled.map((s) => s.met_at !== null && s.met_at.getTime() <= s.due_at.getTime());
  await tx.query(sql.unsafe`
    insert into sla_results (business_id, conversation_id, sla_policy_id, target, started_at, due_at, met_at, hit, settled_at)
    select ${businessId}, ${conversationId}, ${policyId}, r.target, r.started_at, r.due_at, r.met_at, r.hit, case when r.hit then r.met_at else r.due_at end
    from unnest(${sql.array(
      settled.map((s) => s.target),
      'text',
    )}, ${sql.array(
      settled.map((s) => s.started_at.toISOString()),
      'timestamptz',
    )}, ${sql.array(
      settled.map((s) => s.due_at.toISOString()),
      'timestamptz',
    )}, ${sql.array(
      settled.map((s) => iso(s.met_at)),
      'timestamptz',
    )}, ${sql.array(hit, 'bool')}) as r(target, started_at, due_at, met_at, hit)
    on conflict (business_id, conversation_id, target, started_at) do nothing`);
}

/** The conversations whose soonest unrecorded due time has passed (the crontab's batch), (refreshSla locks each). */
export async function dueForCheck(tx: Queryable, limit: number): Promise<string[]> {
  const ids = await tx.anyFirst(sql.type(z.object({ id: z.string() }))`
    select id from conversations where sla_alert_at <= clock_timestamp()
    order by sla_alert_at limit ${limit}`);
  return [...ids];
}
