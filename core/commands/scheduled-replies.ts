/**
 * Scheduled replies ("Send later"): an agent's reply stored `scheduled` with the time it goes out
 * (`send_at`), which the team can edit or cancel until then (docs/decisions.md#snooze-priority-bulk-and-scheduled-send).
 *
 * While scheduled a reply is a draft kept by the server: not delivered, not counted against the
 * month, not shown to the customer (visitor API, widget, AI agent), and the conversation is left
 * as it is. At `send_at` it is released: in one transaction it becomes exactly a reply sent then
 * — counted (or `failed` at the monthly limit), `queued` with `created_at` = the release, the
 * conversation touched (last_message_at, first_response_at, a pending one opens) and the
 * conversation's delivery drain armed (delivery_arm_drain) — so it goes out through the normal
 * delivery path, in order after every reply stored before that moment.
 *
 * Who releases: a send_scheduled_reply job per reply, run at its `send_at` (key
 * `scheduled:<message id>`, moved when the time is edited), and the minute crontab job
 * release_scheduled_replies, which releases any due reply a job missed. Releasing is idempotent:
 * only a `scheduled` reply whose time has come changes, under its row lock, which an edit or a
 * cancel takes too, so a reply is edited, cancelled or released — one of them, never half.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import type { Deps } from '../deps.ts';
import { conflict, notFound } from '../errors.ts';
import { enqueue } from '../jobs.ts';
import { liveEvent } from '../events/catalogue.ts';
import { conversationUpdated, messageUpdated, publishEvents, type PendingEvent } from '../events/live.ts';
import { messageColumns, messageRow, presentMessage, type Message } from '../presenters/message.ts';
import { impliedBy, recordEvents } from '../events/domain.ts';
import { sendMessage, type SendMessageInput } from './messages.ts';
import { replyWindowOpen } from '../domain/whatsapp-templates.ts';

/** How far ahead a reply may be scheduled. */
export const MAX_SCHEDULE_DAYS = 365;

const notScheduled = () => conflict('This reply is no longer scheduled: it has gone out (or is going out) and cannot be changed');

/** Stores a reply `scheduled` and its job for `sendAt`. Checks as for any reply (404, 400 channel deleted). */
export async function scheduleReply(
  tx: Queryable,
  input: Omit<SendMessageInput, 'sender' | 'unlessEmail'> & { userId: string; sendAt: Date },
): Promise<{ message: Message; events: PendingEvent[] }> {
  const sent = await sendMessage(tx, { ...input, sender: { type: 'agent', userId: input.userId, sendAt: input.sendAt } });
  await enqueue(tx, 'send_scheduled_reply', { message_id: sent.message.id }, { runAt: input.sendAt });
  return sent;
}

/** The reply, locked; 404 outside the business or the conversation, 409 once it is not scheduled. */
async function lockScheduled(tx: Queryable, input: { businessId: string; conversationId: string; messageId: string }) {
  const row = await tx.maybeOne(sql.type(z.object({ id: z.string(), delivery_status: z.string().nullable() }))`
    select id, delivery_status from messages
    where id = ${input.messageId} and conversation_id = ${input.conversationId} and business_id = ${input.businessId}
    for update`);
  if (!row) throw notFound('Message not found');
  if (row.delivery_status !== 'scheduled') throw notScheduled();
}

/** Changes the text and/or the time of a scheduled reply (a new time moves its job). */
export async function updateScheduledReply(
  tx: Queryable,
  input: { businessId: string; conversationId: string; messageId: string; content?: string; sendAt?: Date },
): Promise<{ message: Message; events: PendingEvent[] }> {
  await lockScheduled(tx, input);
  const row = await tx.one(sql.type(messageRow)`
    update messages m set
      content = coalesce(${input.content ?? null}, m.content),
      send_at = coalesce(${input.sendAt?.toISOString() ?? null}::timestamptz, m.send_at),
      updated_at = now()
    where m.id = ${input.messageId}
    returning ${messageColumns}`);
  if (input.sendAt) await enqueue(tx, 'send_scheduled_reply', { message_id: input.messageId }, { runAt: input.sendAt });
  return { message: presentMessage(row), events: [messageUpdated(input.businessId, input.messageId)] };
}

/** Cancels a scheduled reply: it is deleted (nothing was sent or counted), its job with it. */
export async function cancelScheduledReply(
  tx: Queryable,
  input: { businessId: string; conversationId: string; messageId: string },
): Promise<{ events: PendingEvent[] }> {
  await lockScheduled(tx, input);
  await tx.query(sql.unsafe`delete from messages where id = ${input.messageId}`);
  await tx.query(sql.unsafe`select graphile_worker.remove_job(${`scheduled:${input.messageId}`})`);
  const at = new Date().toISOString();
  return { events: [liveEvent('message_deleted', { business_id: input.businessId, conversation_id: input.conversationId, message_id: input.messageId, at })] };
}

export type ReleaseOutcome = 'released' | 'failed' | 'later' | 'gone';

const scheduledRow = z.object({
  business_id: z.string(),
  conversation_id: z.string(),
  due: z.boolean(),
  send_at: z.string(),
  has_template: z.boolean(),
});

const conversationState = z.object({ channel_id: z.string().nullable(), window_closed: z.boolean() });

/** Marks the reply failed with the reason, in its own transaction. */
async function failRelease(deps: Pick<Deps, 'db' | 'events' | 'logger'>, messageId: string, businessId: string, reason: string): Promise<'failed'> {
  const failed = await deps.db.transaction(async (tx) => {
    const row = await tx.maybeOne(sql.unsafe`
      update messages set delivery_status = 'failed', error = ${reason}, updated_at = now()
      where id = ${messageId} and delivery_status = 'scheduled'
      returning id`);
    if (row) await recordEvents(tx, impliedBy([messageUpdated(businessId, messageId)]));
    return row !== null;
  });
  if (failed) await publishEvents(deps, [messageUpdated(businessId, messageId)]);
  return 'failed';
}

class LimitReached extends Error {}

/**
 * Releases one scheduled reply when its time has come: see the header. `later` when its time was
 * moved ahead (its job is set for then), `gone` when it was cancelled or released already,
 * `failed` when it cannot go out (channel deleted, WhatsApp window closed, monthly limit).
 */
export async function releaseScheduledReply(deps: Pick<Deps, 'db' | 'events' | 'logger'>, messageId: string): Promise<ReleaseOutcome> {
  let businessId = '';
  let conversationId = '';
  let failure: string | null = null;
  let outcome: ReleaseOutcome;
  try {
    outcome = await deps.db.transaction(async (tx) => {
      // Lock order: the reply, then its conversation, then the month's counter slot (last).
      const reply = await tx.maybeOne(sql.type(scheduledRow)`
        select business_id, conversation_id, send_at <= now() as due, send_at, template is not null as has_template
        from messages where id = ${messageId} and delivery_status = 'scheduled'
        for update`);
      if (!reply) return 'gone';
      businessId = reply.business_id;
      conversationId = reply.conversation_id;
      if (!reply.due) {
        await enqueue(tx, 'send_scheduled_reply', { message_id: messageId }, { runAt: new Date(reply.send_at) });
        return 'later';
      }
      const conversation = await tx.one(sql.type(conversationState)`
        select c.channel_id, not ${replyWindowOpen} as window_closed
        from conversations c where c.id = ${reply.conversation_id}
        for update`);
      if (!conversation.channel_id) {
        failure = "The conversation's channel was deleted before the scheduled time";
        return 'failed';
      }
      if (conversation.window_closed && !reply.has_template) {
        failure = "WhatsApp's 24-hour reply window had closed at the scheduled time (only a template can be sent then)";
        return 'failed';
      }
      // As sendMessage's agent reply, at this moment.
      await tx.query(sql.unsafe`
        with message as (
          update messages set delivery_status = 'queued', created_at = now(), updated_at = now()
          where id = ${messageId}
          returning conversation_id, created_at
        )
        update conversations c set
          first_response_at = coalesce(c.first_response_at, m.created_at),
          last_message_at = m.created_at,
          status = case when c.status = 'pending' then 'open' else c.status end,
          updated_at = now()
        from message m where c.id = m.conversation_id`);
      await tx.query(sql.unsafe`select delivery_arm_drain(${reply.conversation_id}::uuid)`);
      const events = [
        messageUpdated(businessId, messageId, reply.conversation_id),
        conversationUpdated({ id: reply.conversation_id, business_id: businessId }),
      ];
      await recordEvents(tx, impliedBy(events));
      // The counter slot last: its lock is held until commit.
      const reserved = await tx.oneFirst(sql.type(z.object({ reserved: z.boolean() }))`
        select reserved from reserve_monthly_message(${businessId}::uuid)`);
      if (!reserved) throw new LimitReached();
      return 'released';
    });
  } catch (error) {
    if (!(error instanceof LimitReached)) throw error;
    return failRelease(deps, messageId, businessId, "The plan's monthly message limit was reached at the scheduled time");
  }
  if (outcome === 'failed' && failure) return failRelease(deps, messageId, businessId, failure);
  if (outcome === 'released')
    await publishEvents(deps, [messageUpdated(businessId, messageId), conversationUpdated({ id: conversationId, business_id: businessId })]);
  return outcome;
}

/** The crontab's net: every due scheduled reply a job has not released yet (oldest first, in batches). */
export async function releaseDueReplies(deps: Pick<Deps, 'db' | 'events' | 'logger'>): Promise<number> {
  let released = 0;
  for (;;) {
    const ids = await deps.db.anyFirst(sql.type(z.object({ id: z.string() }))`
      select id from messages where delivery_status = 'scheduled' and send_at <= now() order by send_at, id limit 100`);
    if (!ids.length) return released;
    let progressed = false;
    for (const id of ids) {
      const outcome = await releaseScheduledReply(deps, id);
      if (outcome !== 'later') progressed = true;
      if (outcome === 'released') released += 1;
    }
    if (!progressed) return released;
  }
}
