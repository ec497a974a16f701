/**
 * The delivery drain of one conversation (deliver_message {conversation_id}): its queued replies
 * go out through the channel one at a time, oldest first (created_at, id), so a customer
 * receives them in the order they were stored — agent, AI and later senders alike. Different
 * conversations drain in parallel (a job each).
 *
 * A reply that fails transiently (network, 5xx, 429) stays `queued` with a time to try again
 * (the platform's Retry-After, else graphile-worker's own backoff, e^attempts seconds, and the
 * attempt counted): the drain schedules itself for then and stops, so it holds back the
 * replies after it in this conversation. A Retry-After (a 429's) also holds the reply's channel
 * until then (`channels.send_held_until`, migration 0125): the platform limits the sender, so
 * the channel's other conversations wait too, each drain reading the hold with its next reply;
 * other channels go on. A permanent refusal, or the last of
 * MAX_DELIVERY_ATTEMPTS, marks it `failed` with the reason and the next one goes. A reply that
 * failed for good is also left as a failed job (deliver_message {message_id}), so `parley jobs
 * failed` lists it and `parley jobs retry` queues it again.
 *
 * Arming: storing a reply calls the SQL function delivery_arm_drain (migration 0085), which
 * writes a job only when no drain is waiting to run already: no job row and no NOTIFY per reply.
 * A drain gives up its job key as it starts (delivery_drain_enter, migration 0120), so a reply
 * stored while it runs arms the next one. The one gap — a reply whose transaction found the
 * waiting job just before a worker took it — is closed by the STORE lock, as in the inbound
 * drain: the drain's last look (delivery_drain_leave) takes it exclusively and so waits for that
 * reply's commit, and lets DRAIN go in the same step.
 *
 * One drain of a conversation at a time: a session advisory lock (DRAIN) on the drain's own
 * connection, held while it sends (no transaction stays open across a platform call). A drain
 * that finds it taken comes back in a second (a net for a drain whose worker died). The running
 * drain, leaving after a last look that sent every reply stored meanwhile, removes the drain jobs
 * still waiting (migration 0122): the next reply then arms a drain at once, not a second later.
 *
 * At least once, never twice after a platform id: a reply is sent only while `queued`; a worker
 * killed between the platform's answer and the update sends it again on the next drain.
 */
import { z } from 'zod';
import { UniqueIntegrityConstraintViolationError } from 'slonik';
import { prepared, sql, type Queryable } from '../adapters/postgres/db.ts';
import type { Deps } from '../deps.ts';
import { enqueue } from '../jobs.ts';
import { audienceRead, messageUpdated, messageUpdatedEvent, publishEvents } from '../events/live.ts';
import { audienceColumns, audienceFields } from '../domain/team-visibility.ts';
import { impliedBy, recordEvents, recordEventsFragment } from '../events/domain.ts';
import { messageColumns, messageRow, presentMessage, type Message } from '../presenters/message.ts';
import { channelUpdated, loadChannel } from './channel-runtime.ts';
import { asTheDrain } from './drain-session.ts';
import { channelRow, type RuntimeChannel } from '../domain/channels/channel-row.ts';
import { webhookUrl } from '../domain/channels/webhook-urls.ts';
import { loadVisitorMessageEvent } from '../domain/visitors/visitor-messages.ts';
import { connectorFor } from '../../connectors/index.ts';
import { connectorContext } from '../domain/channels/connector-context.ts';
import {
  ConnectorError,
  type AnyConnector,
  type EmailAddress,
  type ForwardedMessage,
  type InternalSendResult,
  type OutboundMessage,
  type SendResult,
} from '../../connectors/types.ts';
import { showRemoteImages } from '../../lib/email-html.ts';
import { csatPageUrl } from './csat.ts';

/**
 * Advisory lock classes, keyed by hashtext(conversation id). STORE (also written in
 * delivery_arm_drain, migration 0085): shared by every transaction storing a reply, exclusive in
 * the drain's last look. DRAIN: one drain of a conversation at a time (a session lock).
 */
export const deliveryLocks = { store: 20_203, drain: 20_204 } as const;

/** Attempts of one reply before it is `failed` (graphile-worker's default for a job: about three days of backoff). */
export const MAX_DELIVERY_ATTEMPTS = 25;

/**
 * The longest Retry-After obeyed (a day: X's daily DM allowance resets within one). A longer or
 * garbled one would hold the channel for good, or overflow the timestamp and fail every drain.
 */
export const MAX_RETRY_AFTER_SECONDS = 24 * 60 * 60;

/** Replies one drain run sends before it hands its worker slot back (it arms its successor). */
const RUN_LIMIT = 200;

const replyRow = z.object({
  id: z.string(),
  business_id: z.string(),
  conversation_id: z.string(),
  content: z.string(),
  attachments: z.array(z.object({ url: z.string(), filename: z.string(), content_type: z.string(), size: z.number() })),
  delivery_attempts: z.number(),
  template: z.object({ name: z.string(), language: z.string(), parameters: z.array(z.string()) }).nullable(),
  /** E-mail: cc, bcc, signature; or the forward's recipients (migration 0096). */
  email: z.record(z.string(), z.unknown()).nullable(),
  /** Ms until the reply may be tried again: its own retry's wait, or its channel's hold (0 or less: now). */
  wait_ms: z.number().nullable(),
  channel_id: z.string().nullable(),
  subject: z.string().nullable(),
  customer_platform_user_id: z.string().nullable(),
  customer_name: z.string().nullable(),
  customer_email: z.string().nullable(),
  customer_phone: z.string().nullable(),
  /** A CSAT question's unanswered survey token: the link to rate is added to the text as it is sent (core/commands/csat.ts). */
  csat_token: z.string().nullable(),
});
type Reply = z.infer<typeof replyRow>;

/** The channel a Retry-After held, for its `channel_updated`. */
const heldChannelRow = channelRow.pick({ id: true, business_id: true, status: true });

export type DrainOutcome = { sent: number; failed: number; waiting: boolean };

type DrainJob = { id: string; abortSignal?: AbortSignal };

/** Drains the conversation's queued replies; `job` is the drain's own job (its key is given up). */
export async function drainDeliveries(deps: Deps, conversationId: string, job: DrainJob): Promise<DrainOutcome> {
  return deps.db.connect(async (connection) => {
    const session = {
      lockClass: deliveryLocks.drain,
      key: conversationId,
      enter: sql.fragment`delivery_drain_enter(${job.id}::bigint, ${conversationId}::uuid)`,
      leave: sql.fragment`delivery_drain_leave(${conversationId}::uuid)`,
    };
    const outcome = await asTheDrain(connection, session, (leave) => drain(deps, connection, conversationId, job, leave));
    // Another drain of this conversation runs: this one comes back (entering re-armed it).
    return outcome ?? { sent: 0, failed: 0, waiting: true };
  });
}

/** Sends while replies are queued, then takes its last look (`leave`); stops early, re-armed, for a retry's wait or its run limit. */
async function drain(deps: Deps, q: Queryable, conversationId: string, job: DrainJob, leave: () => Promise<boolean>): Promise<DrainOutcome> {
  const outcome: DrainOutcome = { sent: 0, failed: 0, waiting: false };
  const channels = new Map<string, RuntimeChannel | null>();
  // The next reply, when the statement that recorded the last one sent read it already.
  let next: Reply | null | undefined;
  for (let run = 0; ; run++) {
    const reply = next === undefined ? await oldestQueued(q, conversationId) : next;
    next = undefined;
    if (!reply) {
      if (!(await leave())) continue;
      return outcome;
    }
    if (run >= RUN_LIMIT || job.abortSignal?.aborted) {
      // Long enough: the rest goes on in a fresh job (the worker may be stopping, or others wait).
      await scheduleDrain(q, conversationId, new Date());
      return { ...outcome, waiting: true };
    }
    if (reply.wait_ms !== null && reply.wait_ms > 0) {
      await scheduleDrain(q, conversationId, new Date(Date.now() + reply.wait_ms));
      return { ...outcome, waiting: true };
    }
    if (reply.channel_id && !channels.has(reply.channel_id)) {
      channels.set(reply.channel_id, await loadChannel(q, deps.config.encryptionKey, reply.channel_id));
    }
    const delivered = await deliverOne(deps, q, reply, reply.channel_id ? (channels.get(reply.channel_id) ?? null) : null);
    const result = typeof delivered === 'string' ? delivered : 'sent';
    if (typeof delivered !== 'string') next = delivered.next;
    if (result === 'retry') {
      const next = await oldestQueued(q, conversationId);
      await scheduleDrain(q, conversationId, new Date(Date.now() + Math.max(0, next?.wait_ms ?? 0)));
      return { ...outcome, waiting: true };
    }
    outcome[result] += 1;
  }
}

/**
 * The conversation's oldest queued reply, with what sending it needs, as a select whose columns
 * are named `${prefix}<field of replyRow>`; `after`: leaving that reply out (it is being marked
 * sent by the same statement, whose snapshot still sees it queued).
 */
const queuedReply = (prefix: '' | 'next_', conversationId: string, after: string | null) => {
  const as = (name: keyof Reply) => sql.identifier([`${prefix}${name}`]);
  return sql.fragment`
    select q.id as ${as('id')}, q.business_id as ${as('business_id')}, q.conversation_id as ${as('conversation_id')},
           q.content as ${as('content')}, q.attachments as ${as('attachments')}, q.delivery_attempts as ${as('delivery_attempts')},
           q.template as ${as('template')}, q.email as ${as('email')},
           (extract(epoch from greatest(q.next_delivery_at, qch.send_held_until) - clock_timestamp()) * 1000)::float8 as ${as('wait_ms')},
           qc.channel_id as ${as('channel_id')}, qc.subject as ${as('subject')},
           qcu.platform_user_id as ${as('customer_platform_user_id')}, qcu.name as ${as('customer_name')},
           qcu.email as ${as('customer_email')}, qcu.phone as ${as('customer_phone')},
           case when q.sender_type = 'system' then (select v.token from csat_surveys v where v.message_id = q.id and v.rating is null) end as ${as('csat_token')}
    from messages q
    join conversations qc on qc.id = q.conversation_id
    left join channels qch on qch.id = qc.channel_id
    left join customers qcu on qcu.id = qc.customer_id
    where q.conversation_id = ${conversationId} and q.delivery_status = 'queued' ${after ? sql.fragment`and q.id <> ${after}` : sql.fragment``}
    order by q.created_at, q.id
    limit 1`;
};

const oldestQueued = (q: Queryable, conversationId: string) => q.maybeOne(prepared(sql.type(replyRow)`${queuedReply('', conversationId, null)}`));

/** The next drain of the conversation at `at` (an earlier waiting one is moved to `at`). */
const scheduleDrain = (q: Queryable, conversationId: string, at: Date) => enqueue(q, 'deliver_message', { conversation_id: conversationId }, { runAt: at });

/**
 * Sends one reply and records the outcome; 'retry' when it waits for another attempt. Sent: the
 * conversation's next queued reply too, as the statement that recorded this one read it
 * (undefined: not read).
 */
async function deliverOne(
  deps: Deps,
  q: Queryable,
  reply: Reply,
  channel: RuntimeChannel | null,
): Promise<'sent' | 'failed' | 'retry' | { next: Reply | null | undefined }> {
  if (!channel) return settleFailed(deps, q, reply, "The conversation's channel was deleted", false);
  const connector = connectorFor(channel.type);
  // Internal connectors (webchat, widget) deliver to whoever has the conversation open.
  if (!connector.internal && !reply.customer_platform_user_id) return settleFailed(deps, q, reply, 'The conversation has no customer to deliver to', false);
  let result: SendResult | InternalSendResult;
  try {
    result = await connector.send(channel.config, await outboundOf(deps, q, reply, connector, channel), connectorContext(deps.config, connector));
  } catch (error) {
    const failure = error instanceof ConnectorError ? error : new ConnectorError('transient', (error as Error).message ?? String(error));
    if (failure.kind === 'permanent') return settleFailed(deps, q, reply, failure.message, false);
    // The platform's Retry-After is a wait it asked for, not a failed attempt (as before the
    // drains: it re-enqueued a fresh job); anything else counts, with graphile-worker's backoff
    // for a job's attempt n: e^min(n, 10) seconds.
    const retryAfter = failure.retryAfterSeconds && failure.retryAfterSeconds > 0 ? Math.min(failure.retryAfterSeconds, MAX_RETRY_AFTER_SECONDS) : null;
    const attempts = reply.delivery_attempts + (retryAfter ? 0 : 1);
    if (attempts >= MAX_DELIVERY_ATTEMPTS) return settleFailed(deps, q, reply, failure.message, true);
    const waitSeconds = retryAfter ?? Math.exp(Math.min(attempts, 10));
    // A Retry-After is the platform's limit on the sender, so the whole channel waits it out
    // (its other conversations' drains read the hold with their next reply); other channels do not.
    const held = await q.maybeOne(
      prepared(sql.type(heldChannelRow)`
      with hold as (
        update channels set send_held_until = greatest(send_held_until, clock_timestamp() + make_interval(secs => ${waitSeconds}))
        where id = ${reply.channel_id} and ${retryAfter !== null}
        returning id, business_id, status
      ), retry as (
        update messages set delivery_attempts = ${attempts}, error = ${failure.message.slice(0, 1000)},
               next_delivery_at = clock_timestamp() + make_interval(secs => ${waitSeconds}), updated_at = now()
        where id = ${reply.id} and delivery_status = 'queued'
      )
      select id, business_id, status from hold`),
    );
    // Settings → Channels reloads on it and shows the hold.
    if (held) await publishEvents(deps, [channelUpdated(held, held.status)]);
    deps.logger.info({ message_id: reply.id, attempts, retry_in_s: waitSeconds }, 'reply delivery failed transiently: the conversation waits for its retry');
    return 'retry';
  }
  // Outside the try: a database error here is not the platform's failure (it must not mark the reply failed).
  const sent = await recordSent(deps, q, reply, result.externalId);
  // Through publishEvents: under team-scoped visibility only the members who may see the conversation hear of it.
  if (sent)
    await publishEvents(deps, [messageUpdatedEvent(reply.business_id, sent.message), audienceRead(reply.business_id, sent.message.conversation_id, sent)]);
  // A widget visitor's open widgets show the reply (the /widget socket, core/domain/visitors/visitor-messages.ts).
  const visitorEvent = connector.liveToVisitor ? await loadVisitorMessageEvent(q, reply.id) : null;
  if (visitorEvent) deps.events.publish(visitorEvent);
  return { next: sent ? sent.next : undefined };
}

/**
 * `failed` with the reason; when the attempts ran out, also a failed job for the operator
 * (`parley jobs failed` shows it with the reason, `parley jobs retry` queues the reply again).
 */
async function settleFailed(deps: Deps, q: Queryable, reply: Reply, reason: string, exhausted: boolean): Promise<'failed'> {
  await q.transaction(async (tx) => {
    await tx.query(sql.unsafe`
      update messages set delivery_status = 'failed', error = ${reason.slice(0, 1000)}, next_delivery_at = null, updated_at = now()
      where id = ${reply.id} and external_id is null`);
    if (exhausted) {
      const jobId = await enqueue(tx, 'deliver_message', { message_id: reply.id });
      await tx.query(
        sql.unsafe`select graphile_worker.permanently_fail_jobs(array[${jobId}::bigint], ${`Delivery failed after ${MAX_DELIVERY_ATTEMPTS} attempts: ${reason}`.slice(0, 2000)})`,
      );
    }
    await recordEvents(tx, impliedBy([messageUpdated(reply.business_id, reply.id, reply.conversation_id)]));
  });
  await publishEvents(deps, [messageUpdated(reply.business_id, reply.id)]);
  return 'failed';
}

/**
 * Marks a delivered reply sent with the platform's id (none from the internal connectors, where
 * Parley is the platform), in one statement that also records its `message.updated` domain event
 * (domain_events_record, sql/functions/), returns the message as it now is, for the live
 * event, and reads the conversation's next queued reply for the drain: one round trip per reply
 * sent. The id is unique per channel (inbound messages are deduplicated by it); if another
 * message already holds it, the reply still went out: it is `sent` without an id, since failing
 * here would send it again. Null when the reply was settled already.
 */
type NextReplyShape = { [K in keyof typeof replyRow.shape as `next_${K}`]: z.ZodNullable<(typeof replyRow.shape)[K]> };
const nextReplyRow = z.object(
  Object.fromEntries(Object.entries(replyRow.shape).map(([name, schema]) => [`next_${name}`, schema.nullable()])) as NextReplyShape,
);
const sentRow = messageRow.extend(audienceFields).extend(nextReplyRow.shape);

/** The next reply of a "sent" row: null when none is queued (every next_ column is null then). */
function nextReplyOf(row: z.infer<typeof sentRow>): Reply | null {
  if (row.next_id === null) return null;
  // Each column passed its own schema (made nullable only for the row that is not there).
  return Object.fromEntries(Object.keys(replyRow.shape).map((name) => [name, row[`next_${name as keyof Reply}`]])) as Reply;
}

async function recordSent(
  deps: Deps,
  q: Queryable,
  reply: Reply,
  externalId: string | null,
): Promise<{ message: Message; team_visibility: boolean; audience: string[] | null; next: Reply | null } | null> {
  const recorded = recordEventsFragment(impliedBy([messageUpdated(reply.business_id, reply.id, reply.conversation_id)]));
  const mark = (id: string | null) =>
    q.maybeOne(
      prepared(sql.type(sentRow)`
      with m as (
        update messages m set external_id = ${id}, delivery_status = 'sent', error = null, next_delivery_at = null, updated_at = now()
        where m.id = ${reply.id} and m.external_id is null
        returning ${messageColumns}
      ), recorded as (
        select ${recorded} from m
      ), next as (${queuedReply('next_', reply.conversation_id, reply.id)})
      -- Where its live event may go (team-scoped visibility): publishing needs no query for it.
      select m.*, (select count(*) from recorded) as recorded, ${audienceColumns('c')}, next.*
      from m join conversations c on c.id = m.conversation_id left join next on true`),
    );
  const sent = (row: z.infer<typeof sentRow> | null) =>
    row ? { message: presentMessage(row), team_visibility: row.team_visibility, audience: row.audience, next: nextReplyOf(row) } : null;
  try {
    return sent(await mark(externalId));
  } catch (error) {
    if (externalId === null || !(error instanceof UniqueIntegrityConstraintViolationError)) throw error;
    deps.logger.warn(
      { message_id: reply.id, external_id: externalId },
      'the platform id of a sent message is already taken on its channel: recorded as sent without it',
    );
    return sent(await mark(null));
  }
}

async function threadReferences(q: Queryable, conversationId: string, messageId: string): Promise<string[]> {
  const rows = await q.any(
    prepared(sql.type(z.object({ external_id: z.string() }))`
    select external_id from messages
    where conversation_id = ${conversationId} and external_id is not null and id <> ${messageId} and not private
    order by created_at, id`),
  );
  return rows.map((r) => r.external_id);
}

/** The reply as the connector sends it; e-mail-like (threaded) connectors get the conversation's thread. */
async function outboundOf(deps: Deps, q: Queryable, reply: Reply, connector: AnyConnector, channel: RuntimeChannel): Promise<OutboundMessage> {
  return {
    to: {
      platformUserId: reply.customer_platform_user_id ?? '',
      name: reply.customer_name ?? undefined,
      email: reply.customer_email ?? undefined,
      phone: reply.customer_phone ?? undefined,
    },
    // A CSAT question carries its link only here, on its way out: the stored message (what members read) has no token.
    text: reply.csat_token && !connector.internal ? `${reply.content}\n${csatPageUrl(deps.config.publicUrl, reply.csat_token)}` : reply.content,
    attachments: reply.attachments,
    messageId: reply.id,
    thread: connector.threaded ? { references: await threadReferences(q, reply.conversation_id, reply.id), subject: reply.subject ?? undefined } : undefined,
    statusCallbackUrl: webhookUrl(deps.config.publicUrl, channel.type, channel.id) ?? undefined,
    ...(reply.template ? { template: reply.template } : {}),
    ...(reply.email ? { email: await outboundEmail(q, reply, reply.email) } : {}),
  };
}

const addressesIn = (value: unknown): EmailAddress[] => (Array.isArray(value) ? (value as EmailAddress[]).filter((a) => typeof a?.address === 'string') : []);

const quotedRow = z.object({
  sender_type: z.string(),
  content: z.string(),
  html: z.string().nullable(),
  created_at: z.string(),
  customer_name: z.string().nullable(),
  customer_email: z.string().nullable(),
  agent_name: z.string().nullable(),
});

/** At most this many messages quoted in one forward (the latest ones of the conversation). */
const MAX_FORWARDED = 200;

/**
 * The e-mail fields of the reply (core/domain/email-replies.ts stored them); a forward quotes
 * its messages as they are now, oldest first: the given ones, or every one the customer saw.
 */
async function outboundEmail(q: Queryable, reply: Reply, email: Record<string, unknown>): Promise<NonNullable<OutboundMessage['email']>> {
  const signature = typeof email.signature === 'string' && email.signature !== '' ? email.signature : undefined;
  const base = { cc: addressesIn(email.cc), bcc: addressesIn(email.bcc), ...(signature ? { signature } : {}) };
  const forward = email.forward as { to?: unknown; message_ids?: unknown } | undefined;
  if (!forward) return base;
  const ids = Array.isArray(forward.message_ids) ? (forward.message_ids as string[]) : null;
  const rows = await q.any(
    prepared(sql.type(quotedRow)`
    select * from (
      select m.sender_type, m.content, m.html, to_char(m.created_at at time zone 'UTC', 'Dy, DD Mon YYYY HH24:MI "UTC"') as created_at,
             cu.name as customer_name, cu.email as customer_email, u.full_name as agent_name, m.created_at as at, m.id
      from messages m
      join conversations c on c.id = m.conversation_id
      left join customers cu on cu.id = c.customer_id
      left join users u on u.id = m.sender_id
      where m.conversation_id = ${reply.conversation_id} and not m.private and m.id <> ${reply.id}
        ${ids ? sql.fragment`and m.id = any(${sql.array(ids, 'uuid')})` : sql.fragment``}
      order by m.created_at desc, m.id desc
      limit ${MAX_FORWARDED}
    ) latest order by at, id`),
  );
  const messages: ForwardedMessage[] = rows.map((row) => ({
    from:
      row.sender_type === 'customer'
        ? row.customer_email
          ? `${row.customer_name ? `${row.customer_name} ` : ''}<${row.customer_email}>`
          : (row.customer_name ?? 'Customer')
        : row.sender_type === 'agent'
          ? (row.agent_name ?? 'Support')
          : row.sender_type === 'ai'
            ? 'AI agent'
            : 'Support',
    date: row.created_at,
    text: row.content,
    // The customer's own HTML, images armed (the recipient's mail client decides about loading them).
    ...(row.html ? { html: showRemoteImages(row.html) } : {}),
  }));
  return { ...base, forward: { to: addressesIn(forward.to), messages } };
}

/**
 * `parley jobs retry` of a reply that failed for good (deliver_message {message_id}), and a
 * reply's job from before the drains: the reply is queued again (a fresh count of attempts) and
 * its conversation's drain armed. A reply already sent is left alone.
 */
export async function requeueReply(deps: Deps, messageId: string): Promise<void> {
  const requeued = await deps.db.transaction(async (tx) => {
    const row = await tx.maybeOne(
      prepared(sql.type(z.object({ conversation_id: z.string(), business_id: z.string() }))`
      update messages set delivery_status = 'queued', delivery_attempts = 0, next_delivery_at = null, error = null, updated_at = now()
      where id = ${messageId} and external_id is null and delivery_status in ('queued', 'failed')
      returning conversation_id, business_id`),
    );
    if (row) await tx.query(sql.unsafe`select delivery_arm_drain(${row.conversation_id}::uuid)`);
    if (row) await recordEvents(tx, impliedBy([messageUpdated(row.business_id, messageId, row.conversation_id)]));
    return row;
  });
  if (requeued) await publishEvents(deps, [messageUpdated(requeued.business_id, messageId)]);
}
