/**
 * deliver_message: sends one agent or AI reply through its conversation's channel.
 * Safe to run twice: a message that already has an external id was sent and is never sent
 * again. Transient failures throw (graphile-worker retries with backoff; a platform's
 * Retry-After reschedules the job); permanent ones mark the message `failed` with the
 * platform's reason. When the last attempt fails the message is marked `failed` too, and the
 * job stays in the failed list for `parley jobs retry`.
 */
import { z } from 'zod';
import { UniqueIntegrityConstraintViolationError } from 'slonik';
import { sql, type Queryable } from '../../core/adapters/postgres/db.ts';
import type { Deps } from '../../core/deps.ts';
import { enqueue } from '../../core/jobs.ts';
import { messageUpdated, publishEvents } from '../../core/events/live.ts';
import { loadChannel, type RuntimeChannel } from '../../core/commands/channel-runtime.ts';
import { webhookUrl } from '../../core/domain/channels/webhook-urls.ts';
import { loadVisitorMessageEvent } from '../../core/domain/visitors/visitor-messages.ts';
import { connectorFor } from '../../connectors/index.ts';
import { connectorContext } from '../../connectors/context.ts';
import { ConnectorError, type AnyConnector, type InternalSendResult, type OutboundMessage, type SendResult } from '../../connectors/types.ts';
import { catalogueTask } from '../task.ts';

const messageRow = z.object({
  id: z.string(),
  business_id: z.string(),
  conversation_id: z.string(),
  content: z.string(),
  attachments: z.array(z.object({ url: z.string(), filename: z.string(), content_type: z.string(), size: z.number() })),
  delivery_status: z.string().nullable(),
  external_id: z.string().nullable(),
  channel_id: z.string().nullable(),
  subject: z.string().nullable(),
  customer_platform_user_id: z.string().nullable(),
  customer_name: z.string().nullable(),
  customer_email: z.string().nullable(),
  customer_phone: z.string().nullable(),
});

async function threadReferences(q: Queryable, conversationId: string, messageId: string): Promise<string[]> {
  const rows = await q.any(sql.type(z.object({ external_id: z.string() }))`
    select external_id from messages
    where conversation_id = ${conversationId} and external_id is not null and id <> ${messageId}
    order by created_at, id`);
  return rows.map((r) => r.external_id);
}

/** `message_updated` with the message as it now is (its new delivery status). */
const publishUpdated = (deps: Deps, row: { id: string; business_id: string }) => publishEvents(deps, [messageUpdated(row.business_id, row.id)]);

async function markFailed(q: Queryable, messageId: string, reason: string): Promise<void> {
  await q.query(sql.unsafe`
    update messages set delivery_status = 'failed', error = ${reason.slice(0, 1000)}, updated_at = now()
    where id = ${messageId} and external_id is null`);
}

const markSentWithoutId = (q: Queryable, messageId: string) =>
  q.query(sql.unsafe`
    update messages set delivery_status = 'sent', error = null, updated_at = now()
    where id = ${messageId} and external_id is null`);

/**
 * Marks a delivered message sent with the platform's id (none from the internal connectors,
 * where Parley is the platform). The id is unique per channel (inbound messages are deduplicated
 * by it); if another message already holds it, the reply still went out: it is `sent` without an
 * id, since throwing would retry the job and send it again, 25 times.
 */
async function recordSent(deps: Deps, messageId: string, externalId: string | null): Promise<void> {
  if (externalId === null) return void (await markSentWithoutId(deps.db, messageId));
  try {
    await deps.db.query(sql.unsafe`
      update messages set external_id = ${externalId}, delivery_status = 'sent', error = null, updated_at = now()
      where id = ${messageId} and external_id is null`);
  } catch (error) {
    if (!(error instanceof UniqueIntegrityConstraintViolationError)) throw error;
    deps.logger.warn({ message_id: messageId, external_id: externalId }, 'the platform id of a sent message is already taken on its channel: recorded as sent without it');
    await markSentWithoutId(deps.db, messageId);
  }
}

/** The reply as the connector sends it; e-mail-like (threaded) connectors get the conversation's thread. */
async function outboundOf(deps: Deps, row: z.infer<typeof messageRow>, connector: AnyConnector, channel: RuntimeChannel): Promise<OutboundMessage> {
  return {
    to: {
      platformUserId: row.customer_platform_user_id ?? '',
      name: row.customer_name ?? undefined,
      email: row.customer_email ?? undefined,
      phone: row.customer_phone ?? undefined,
    },
    text: row.content,
    attachments: row.attachments,
    messageId: row.id,
    thread: connector.threaded ? { references: await threadReferences(deps.db, row.conversation_id, row.id), subject: row.subject ?? undefined } : undefined,
    statusCallbackUrl: webhookUrl(deps.config.publicUrl, channel.type, channel.id) ?? undefined,
  };
}

export default catalogueTask({
  name: 'deliver_message',
  run: async ({ message_id }, deps, helpers) => {
    const row = await deps.db.maybeOne(sql.type(messageRow)`
      select m.id, m.business_id, m.conversation_id, m.content, m.attachments, m.delivery_status, m.external_id,
             c.channel_id, c.subject,
             cu.platform_user_id as customer_platform_user_id, cu.name as customer_name,
             cu.email as customer_email, cu.phone as customer_phone
      from messages m
      join conversations c on c.id = m.conversation_id
      left join customers cu on cu.id = c.customer_id
      where m.id = ${message_id}`);
    if (!row || row.external_id || ['sent', 'delivered', 'read'].includes(row.delivery_status ?? '')) return;
    const channel = row.channel_id ? await loadChannel(deps.db, deps.config.encryptionKey, row.channel_id) : null;
    if (!channel) {
      await markFailed(deps.db, row.id, 'The conversation\'s channel was deleted');
      await publishUpdated(deps, row);
      return;
    }
    const connector = connectorFor(channel.type);
    // Internal connectors (webchat, widget) deliver to whoever has the conversation open.
    if (!connector.internal && !row.customer_platform_user_id) {
      await markFailed(deps.db, row.id, 'The conversation has no customer to deliver to');
      await publishUpdated(deps, row);
      return;
    }
    const message = await outboundOf(deps, row, connector, channel);
    let result: SendResult | InternalSendResult;
    try {
      result = await connector.send(channel.config, message, connectorContext(deps.config, connector));
    } catch (error) {
      const failure = error instanceof ConnectorError ? error : new ConnectorError('transient', (error as Error).message ?? String(error));
      if (failure.kind === 'permanent') {
        await markFailed(deps.db, row.id, failure.message);
        await publishUpdated(deps, row);
        return;
      }
      const lastAttempt = helpers.job.attempts >= helpers.job.max_attempts;
      if (lastAttempt) {
        await markFailed(deps.db, row.id, failure.message);
        await publishUpdated(deps, row);
        throw failure;
      }
      if (failure.retryAfterSeconds && failure.retryAfterSeconds > 0) {
        // Honour the platform's Retry-After: a fresh job at that time replaces this one.
        await enqueue(deps.db, 'deliver_message', { message_id }, { runAt: new Date(Date.now() + failure.retryAfterSeconds * 1000) });
        helpers.logger.info(`platform asked to retry after ${failure.retryAfterSeconds}s`);
        return;
      }
      throw failure;
    }
    // Outside the try: a database error here is not the platform's failure (it must not mark the message failed).
    await recordSent(deps, row.id, result.externalId);
    await publishUpdated(deps, row);
    // A widget visitor's open widgets show the reply (the /widget socket, core/domain/visitors/visitor-messages.ts).
    const visitorEvent = connector.liveToVisitor ? await loadVisitorMessageEvent(deps.db, row.id) : null;
    if (visitorEvent) deps.events.publish(visitorEvent);
  },
});
