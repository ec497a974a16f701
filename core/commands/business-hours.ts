/**
 * Business hours of a business (one business_hours row; none: the defaults, off) and the
 * out-of-hours auto-responder.
 *
 * The responder (`out_of_hours_reply {message_id}`, armed by the inbound SQL, migration 0086):
 * the customer message's arrival time decides. Closed then: the business's
 * `out_of_hours_message` goes to the customer as a `system` message delivered through the
 * channel and not counted against the month (core/commands/messages.ts), and the conversation
 * records that the matter is settled until the team opens (`hours_checked_until`). Open then:
 * it records that nothing is due until the team closes. A message before that time arms no job,
 * so a conversation hears the notice once per closed period; a settings change (a newer
 * `updated_at`) makes the next message decide afresh.
 */
import { z } from 'zod';
import { impliedBy, recordEvents } from '../events/domain.ts';
import { sql, type Db, type Queryable } from '../adapters/postgres/db.ts';
import { dayKeys, hoursState, LOOKAHEAD_DAYS, type Hours, type Shift, type Week } from '../domain/business-hours.ts';
import type { PendingEvent } from '../events/live.ts';
import { sendMessage } from './messages.ts';

export const DEFAULT_OUT_OF_HOURS_MESSAGE = 'Thanks for your message! Our team is away right now; we will answer as soon as we are back.';

export type BusinessHoursSettings = Hours & { enabled: boolean; out_of_hours_message: string; updated_at: string | null };

const shiftSchema = z.object({ open: z.string(), close: z.string() });
const hoursRow = z.object({
  enabled: z.boolean(),
  timezone: z.string(),
  week: z.record(z.string(), z.array(shiftSchema)),
  holidays: z.array(z.string()),
  out_of_hours_message: z.string(),
  updated_at: z.string().nullable(),
});

/** Every weekday key present (closed days as `[]`), in calendar order from Monday. */
export function fullWeek(week: Week): Record<(typeof dayKeys)[number], Shift[]> {
  const order = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
  return Object.fromEntries(order.map((day) => [day, [...(week[day] ?? [])].sort((a, b) => a.open.localeCompare(b.open))])) as Record<
    (typeof dayKeys)[number],
    Shift[]
  >;
}

const hoursColumns = sql.fragment`enabled, timezone, week, array(select to_char(d, 'YYYY-MM-DD') from unnest(holidays) d order by d) as holidays, out_of_hours_message, updated_at`;

/** The business's hours (the defaults when never set: off, UTC, no shifts). */
export async function loadBusinessHours(q: Queryable, businessId: string): Promise<BusinessHoursSettings> {
  const row = await q.maybeOne(sql.type(hoursRow)`select ${hoursColumns} from business_hours where business_id = ${businessId}`);
  return row ?? { enabled: false, timezone: 'UTC', week: {}, holidays: [], out_of_hours_message: DEFAULT_OUT_OF_HOURS_MESSAGE, updated_at: null };
}

export type BusinessHoursChanges = Partial<{ enabled: boolean; timezone: string; week: Week; holidays: string[]; out_of_hours_message: string }>;

/** Upserts the given fields (validated by the route); omitted fields keep their value. */
export async function updateBusinessHours(tx: Queryable, businessId: string, changes: BusinessHoursChanges): Promise<BusinessHoursSettings> {
  const current = await loadBusinessHours(tx, businessId);
  const next = { ...current, ...changes };
  const holidays = [...new Set(next.holidays)].sort();
  const row = await tx.one(sql.type(hoursRow)`
    insert into business_hours as h (business_id, enabled, timezone, week, holidays, out_of_hours_message)
    values (${businessId}, ${next.enabled}, ${next.timezone}, ${sql.jsonb(fullWeek(next.week) as never)}, ${sql.array(holidays, 'date')}, ${next.out_of_hours_message})
    on conflict (business_id) do update set
      enabled = excluded.enabled, timezone = excluded.timezone, week = excluded.week, holidays = excluded.holidays,
      out_of_hours_message = excluded.out_of_hours_message, updated_at = clock_timestamp()
    returning ${hoursColumns}`);
  return row;
}

/** What the public widget config says: open now (always, when hours are off) and the next opening when closed. */
export type HoursStatus = { enabled: boolean; is_open: boolean; next_open_at: string | null; timezone: string };

export function hoursStatus(settings: BusinessHoursSettings, now: Date): HoursStatus {
  if (!settings.enabled) return { enabled: false, is_open: true, next_open_at: null, timezone: settings.timezone };
  const state = hoursState(settings, now);
  return { enabled: true, is_open: state.open, next_open_at: state.open || !state.until ? null : state.until.toISOString(), timezone: settings.timezone };
}

const replyState = z.object({
  business_id: z.string(),
  conversation_id: z.string(),
  sender_type: z.string(),
  message_at: z.string(),
  now: z.string(),
  status: z.string(),
  channel_id: z.string().nullable(),
  hours_checked_at: z.string().nullable(),
  hours_checked_until: z.string().nullable(),
});

/**
 * The responder for one customer message (the job; safe to run twice: it decides under the
 * conversation's row lock and records its decision). Returns the events to publish.
 */
export async function replyIfOutOfHours(db: Db, messageId: string): Promise<PendingEvent[]> {
  return db.transaction(async (tx) => {
    const row = await tx.maybeOne(sql.type(replyState)`
      select m.business_id, m.conversation_id, m.sender_type, m.created_at as message_at, clock_timestamp() as now,
             c.status, c.channel_id, c.hours_checked_at, c.hours_checked_until
      from messages m join conversations c on c.id = m.conversation_id
      where m.id = ${messageId}
      for update of c`);
    if (!row || row.sender_type !== 'customer') return [];
    const settings = await loadBusinessHours(tx, row.business_id);
    if (!settings.enabled || !settings.updated_at) return [];
    const at = new Date(row.message_at);
    const decidedUnderTheseSettings = row.hours_checked_at !== null && Date.parse(row.hours_checked_at) >= Date.parse(settings.updated_at);
    if (decidedUnderTheseSettings && row.hours_checked_until !== null && Date.parse(row.hours_checked_until) > at.getTime()) return [];
    const state = hoursState(settings, at);
    const until = state.until ?? new Date(at.getTime() + LOOKAHEAD_DAYS * 86_400_000);
    const events: PendingEvent[] = [];
    // Not once the team is back (a worker that was down for hours), nor where nothing can deliver it.
    const stillClosed = Date.parse(row.now) < until.getTime();
    if (!state.open && stillClosed && row.channel_id && row.status !== 'closed') {
      const sent = await sendMessage(tx, {
        businessId: row.business_id,
        conversationId: row.conversation_id,
        sender: { type: 'system', deliver: true },
        content: settings.out_of_hours_message,
        attachments: [],
      });
      events.push(...sent.events);
      // Its domain events (webhooks, SLA…) with the message, in this transaction.
      await recordEvents(tx, impliedBy(sent.events, { type: 'system', name: 'Out-of-hours reply' }));
    }
    await tx.query(sql.unsafe`
      update conversations set hours_checked_at = clock_timestamp(), hours_checked_until = ${until.toISOString()}
      where id = ${row.conversation_id}`);
    return events;
  });
}
