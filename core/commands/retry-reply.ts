/**
 * "Send again" of a reply the platform refused or that ran out of attempts (`failed`), by a
 * member from the thread (docs/decisions.md#messages-and-delivery). The reply goes back into its
 * conversation's delivery drain as if stored now: `queued`, its failure and count of attempts
 * cleared, `created_at` now, so it reaches the customer after every reply already sent and the
 * thread shows it where it will arrive (as a scheduled reply's release does); the conversation's
 * `last_message_at` and `updated_at` follow.
 *
 * It was counted against the month when it was stored, so it is not counted again, except a
 * scheduled reply that failed at its release before it was counted (the monthly limit, the
 * channel gone, the window closed: it never went out), which is counted now (403 at the limit).
 *
 * Refused, with nothing changed: 404 for a message of another conversation or business; 409 for
 * anything but an agent's or the AI agent's reply in `failed` with no platform id (a private note,
 * a customer's message, one sent or still going out); 400 when the conversation's channel was
 * deleted; 422 `reply_window_closed` for a free-form WhatsApp reply once the 24 hours are over.
 *
 * A reply whose attempts ran out also left a failed job for the operator (`parley jobs failed`):
 * it goes, settled by this. An operator's `parley jobs retry` (core/commands/delivery-drain.ts
 * requeueReply) stays as it was: it requeues without moving it.
 */
import { z } from 'zod';
import { removeFailedJobs } from '../adapters/graphile-internals.ts';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { assertReserved, reservationRow } from '../domain/plans.ts';
import { replyWindowClosed, replyWindowOpen } from '../domain/whatsapp-templates.ts';
import { conflict, notFound } from '../errors.ts';
import { channelDeleted } from './messages.ts';
import { conversationUpdated, messageUpdated, type PendingEvent } from '../events/live.ts';
import { messageColumns, messageRow, presentMessage, type Message } from '../presenters/message.ts';

const failedReply = z.object({
  retryable: z.boolean(),
  never_released: z.boolean(),
  channel_id: z.string().nullable(),
  window_open: z.boolean(),
  window_closed_at: z.string().nullable(),
});

export async function retryReply(
  tx: Queryable,
  input: { businessId: string; conversationId: string; messageId: string },
): Promise<{ message: Message; events: PendingEvent[] }> {
  // Lock order as a scheduled reply's release: the reply, then its conversation (the counter slot last).
  const reply = await tx.maybeOne(sql.type(failedReply)`
    select (m.delivery_status = 'failed' and m.external_id is null and m.sender_type in ('agent', 'ai') and not m.private) as retryable,
           (m.send_at is not null and m.created_at < m.send_at) as never_released,
           c.channel_id,
           (m.template is not null or ${replyWindowOpen}) as window_open,
           to_char(c.reply_window_expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as window_closed_at
    from messages m join conversations c on c.id = m.conversation_id
    where m.id = ${input.messageId} and m.conversation_id = ${input.conversationId} and m.business_id = ${input.businessId}
    for update of m, c`);
  if (!reply) throw notFound('Message not found');
  if (!reply.retryable) throw conflict('Only a reply that failed can be sent again');
  if (!reply.channel_id) throw channelDeleted();
  if (!reply.window_open) throw replyWindowClosed(reply.window_closed_at);

  const row = await tx.one(sql.type(messageRow)`
    with m as (
      update messages set delivery_status = 'queued', delivery_attempts = 0, next_delivery_at = null, error = null,
             created_at = now(), updated_at = now()
      where id = ${input.messageId}
      returning *
    ), touched as (
      update conversations c set last_message_at = now(), updated_at = now()
      where c.id = ${input.conversationId}
    )
    select ${messageColumns} from m`);
  await tx.query(sql.unsafe`select delivery_arm_drain(${input.conversationId}::uuid)`);
  // The operator's failed job of this reply (its attempts ran out) is settled by this.
  await removeFailedJobs(tx, 'deliver_message', { message_id: input.messageId });
  // The counter slot last: its lock is held until commit.
  if (reply.never_released)
    assertReserved(await tx.one(sql.type(reservationRow)`select plan_name, plan_max, reserved from reserve_monthly_message(${input.businessId}::uuid)`));
  return {
    message: presentMessage(row),
    events: [
      messageUpdated(input.businessId, input.messageId, input.conversationId),
      conversationUpdated({ id: input.conversationId, business_id: input.businessId }),
    ],
  };
}
