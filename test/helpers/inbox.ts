/**
 * The inbox as a signed-in member reads it through the REST API, for the end-to-end tests that
 * drive a channel from the platform's webhook to the agent's reply:
 *
 *   const inbox = inboxOf(app, owner.token);
 *   const customer = await inbox.customerBy('phone', '+15550001111');
 *   const [conversation] = await inbox.conversationsOf('sms', customer.uuid);
 *   const sent = await inbox.reply(conversation.id, 'Hello');
 *   await inbox.messageSettled(conversation.id, sent.id, ['sent']);
 */
import type { TestApp } from './app.ts';
import { query, waitFor } from './worker.ts';

export type Inbox = ReturnType<typeof inboxOf>;

export function inboxOf(app: TestApp, token: string) {
  const channelOf = async (id: string) => ((await app.request('GET', '/api/v1/channels', { token })).body as any[]).find((c) => c.id === id);

  const conversations = async (channelType: string, options: { limit?: number } = {}): Promise<any[]> => {
    const res = await app.request('GET', '/api/v1/conversations/', { token, query: { channel_type: channelType, limit: options.limit } });
    if (res.status !== 200) throw new Error(`conversations: ${res.status} ${res.text}`);
    return res.body;
  };

  const messagesOf = async (conversationId: string): Promise<any[]> => {
    const res = await app.request('GET', `/api/v1/conversations/${conversationId}/messages`, { token });
    if (res.status !== 200) throw new Error(`messages: ${res.status} ${res.text}`);
    return res.body;
  };

  const messageById = async (conversationId: string, id: string) => (await messagesOf(conversationId)).find((m) => m.id === id);

  /**
   * What is left of an agent's reply's delivery: undefined once it is settled (sent or failed)
   * and no delivery drain of its conversation is left; else its failed attempts, the last one's
   * error, when it is tried again, and whether a worker holds a drain of its conversation now.
   */
  const deliveryJob = async (messageId: string) =>
    (
      await query(
        app,
        `with drains as (
           select p.locked_at from graphile_worker._private_jobs p
           where p.task_id = (select id from graphile_worker._private_tasks where identifier = 'deliver_message')
             and (p.payload->>'conversation_id' = (select conversation_id::text from messages where id = $1)
                  or p.payload->>'message_id' = $1::text)
         )
         select m.delivery_attempts as attempts, m.error as last_error, m.next_delivery_at,
                (select max(locked_at) from drains) as locked_at
         from messages m
         where m.id = $1 and (m.delivery_status = 'queued' or exists (select 1 from drains))`,
        [messageId],
      )
    )[0];

  /** Brings a reply's retry forward: graphile-worker's backoff would wait e^attempts seconds. */
  const retryNow = async (messageId: string) => {
    await query(app, `update messages set next_delivery_at = now() where id = $1 and delivery_status = 'queued'`, [messageId]);
    await query(
      app,
      `update graphile_worker._private_jobs set run_at = now()
       where key = (select 'deliver:' || conversation_id from messages where id = $1) and locked_at is null`,
      [messageId],
    );
  };

  return {
    channelOf,

    /** The channel once the worker has finished registering it, whatever the outcome. */
    registered: (id: string) =>
      waitFor(
        async () => {
          const c = await channelOf(id);
          return c.status !== 'pending' ? c : null;
        },
        20_000,
        'registration',
      ),

    /** inbound_events rows: of one channel, or of every channel when none is given. */
    countEvents: async (channelId?: string) =>
      (channelId === undefined
        ? await query(app, 'select count(*)::int as n from inbound_events')
        : await query(app, 'select count(*)::int as n from inbound_events where channel_id = $1', [channelId]))[0].n as number,

    countInboundJobs: async () =>
      (await query(app, `select count(*)::int as n from graphile_worker.jobs where task_identifier = 'process_inbound'`))[0].n as number,

    /** The process_inbound jobs still queued that will process these inbound events: their channels' drains. */
    inboundJobs: (eventIds: string[]) =>
      query(
        app,
        `select j.id, j.key, j.task_identifier from graphile_worker.jobs j
                  where j.task_identifier = 'process_inbound'
                    and j.key in (select 'inbound:' || e.channel_id from inbound_events e where e.id = any($1))`,
        [eventIds],
      ),

    /** The customer the API's search finds with this value in `field`, once the worker has created it. */
    customerBy: (field: 'phone' | 'email' | 'name', value: string) =>
      waitFor(
        async () => {
          const res = await app.request('GET', '/api/v1/customers', { token, query: { q: value } });
          return (res.body as any[]).find((c) => c[field] === value);
        },
        20_000,
        `customer ${value}`,
      ),

    /** The conversations on this channel type, newest first, as the inbox lists them. */
    conversations,

    conversationsOf: async (channelType: string, customerUuid: string) => (await conversations(channelType)).filter((c) => c.customer_id === customerUuid),

    messagesOf,
    messageById,

    /** An agent's reply, as the API accepted it (delivery_status queued). */
    reply: async (conversationId: string, content: string): Promise<{ id: string; delivery_status: string; [field: string]: any }> => {
      const res = await app.request('POST', `/api/v1/conversations/${conversationId}/messages`, { token, body: { content } });
      if (res.status !== 200) throw new Error(`reply: ${res.status} ${res.text}`);
      return res.body;
    },

    /** The message once its delivery status is one of `statuses` (a running worker moves it there). */
    messageSettled: (conversationId: string, messageId: string, statuses: string[] = ['sent', 'failed']) =>
      waitFor(
        async () => {
          const message = await messageById(conversationId, messageId);
          return message && statuses.includes(message.delivery_status) ? message : null;
        },
        30_000,
        `message ${statuses.join('/')}`,
      ),

    deliveryJob,
    retryNow,

    /**
     * The reply's delivery once the worker has let go of it: undefined when it is settled and
     * its drain completed, else the reply waiting for its retry. The reply is settled inside
     * the drain, a moment before graphile-worker deletes or unlocks the job.
     */
    releasedDeliveryJob: (messageId: string) =>
      waitFor(
        async () => {
          const job = await deliveryJob(messageId);
          return !job ? { job: undefined } : job.locked_at === null ? { job } : null;
        },
        20_000,
        'delivery job released',
      ).then((found) => found.job),
  };
}
