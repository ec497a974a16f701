/**
 * Every background job, in one catalogue: its task name, the zod schema of its payload, its job
 * key, queue and attempts. `enqueue()` is the only way production code adds a job and
 * `catalogueTask()` (workers/task.ts) the only way a task reads one, so a payload that does not
 * fit its task fails type-checking at the call site (and, should a cast sneak through, the
 * schema refuses it before anything is stored).
 *
 * Jobs are added inside the caller's transaction (graphile_worker.add_job through the same
 * slonik connection), so a job exists exactly when the rows that asked for it do.
 */
import { z } from 'zod';
import { sql, type Queryable } from './adapters/postgres/db.ts';

/**
 * Attempts of an `ai_reply` job. Retries are for an unreachable Ollama only (e^1 + e^2 ≈ 10 s
 * of backoff); a customer should not wait longer before a human is asked instead.
 */
export const AI_REPLY_MAX_ATTEMPTS = 3;
/**
 * Attempts of an `index_article` job: with graphile-worker's backoff (e^attempt seconds) the
 * last one runs about half an hour after the first, then the article is marked `failed`.
 */
export const INDEX_MAX_ATTEMPTS = 8;
/** Attempts of a `fetch_attachment` job: e^1 … e^7 seconds of backoff, about 25 minutes in all. */
export const FETCH_ATTACHMENT_MAX_ATTEMPTS = 8;
/** Attempts of a `fetch_customer_name` job: e^1 … e^5 seconds of backoff, about four minutes. */
export const FETCH_CUSTOMER_NAME_MAX_ATTEMPTS = 6;

/**
 * Attempts of one webhook delivery: with graphile-worker's backoff (e^min(n,10) seconds) the
 * last is about three days after the first (docs/decisions.md#webhooks-out).
 */
export const WEBHOOK_MAX_ATTEMPTS = 22;

/** One event as a dispatch_webhooks job carries it: what happened, and the object to present (read when dispatched). */
export const webhookEventRef = z.object({
  id: z.uuid(),
  type: z.enum([
    'conversation.created',
    'conversation.updated',
    'conversation.assigned',
    'message.created',
    'message.updated',
    'handoff.requested',
    'customer.updated',
    'customer.merged',
    'customer.erased',
  ]),
  at: z.string(),
  customer_id: z.uuid().optional(),
  conversation_id: z.uuid().optional(),
  message_id: z.uuid().optional(),
});

/**
 * One task's entry. `C` is what the key or queue depends on beyond the payload (the
 * conversation of an AI reply, the channel of an inbound event); `undefined` when nothing.
 */
type JobSpec<S extends z.ZodType, C> = {
  payload: S;
  /** Deduplication: a second job with the same key replaces the pending one (see `jobKeyMode`). */
  jobKey?: (payload: z.output<S>, context: C) => string;
  /** Jobs of one queue run one at a time, in order; none: in parallel. */
  queueName?: (payload: z.output<S>, context: C) => string | undefined;
  /** Attempts before the job is left failed (graphile-worker's default: 25). */
  maxAttempts?: number;
  /** graphile-worker's job_key_mode (default `replace`). */
  jobKeyMode?: 'replace' | 'preserve_run_at' | 'unsafe_dedupe';
};

const job = <S extends z.ZodType, C = undefined>(spec: JobSpec<S, C>) => spec;

const messageId = z.object({ message_id: z.uuid() });
const channelId = z.object({ channel_id: z.uuid() });

export const jobCatalogue = {
  /**
   * The subscribers on a batch of domain events (core/events/pipeline.ts). Added by the SQL
   * function domain_events_record (sql/functions/) with the events, which spells this entry:
   * queue `events:<0-63>` chosen by the conversation (in order per conversation), 10 attempts.
   */
  handle_events: job({
    payload: z.object({ event_ids: z.array(z.uuid()).min(1) }),
    maxAttempts: 10,
  }),
  /** One subscriber again on events whose batch it failed (core/events/pipeline.ts); its effects once. */
  retry_subscriber: job({
    payload: z.object({ subscriber: z.string().min(1), event_ids: z.array(z.uuid()).min(1) }),
    jobKey: (p) => `subscriber:${p.subscriber}:${p.event_ids[0]}`,
    maxAttempts: 12,
  }),
  /** System mail: invitations, verification links. */
  send_email: job({ payload: z.object({ to: z.email(), subject: z.string().min(1), text: z.string() }) }),
  /**
   * Replies out through their channel. `{conversation_id}`: the conversation's delivery drain,
   * its queued replies oldest first (core/commands/delivery-drain.ts); storing a reply arms it
   * through the SQL function delivery_arm_drain (migration 0085), which spells this key too.
   * `{message_id}`: a reply that failed for good, queued again (`parley jobs retry`).
   */
  deliver_message: job({
    payload: z.union([z.object({ conversation_id: z.uuid() }), messageId]),
    jobKey: (p) => ('conversation_id' in p ? `deliver:${p.conversation_id}` : `message:${p.message_id}`),
  }),
  /**
   * Inbound events into customer, conversation and message rows. `{channel_id}`: the drain of a
   * channel's pending events, in arrival order (core/commands/inbound-drain.ts); storing events
   * arms it through the SQL function inbound_arm_drain (migrations 0021, 0085), which spells this key
   * too. `{event_id}`: one event the drain failed on, retried alone.
   */
  process_inbound: job({
    payload: z.union([z.object({ channel_id: z.uuid() }), z.object({ event_id: z.uuid() })]),
    jobKey: (p) => ('channel_id' in p ? `inbound:${p.channel_id}` : `inbound-event:${p.event_id}`),
  }),
  /**
   * A scheduled reply goes out at its `send_at` (run_at; core/commands/scheduled-replies.ts).
   * Editing the time enqueues it again under the same key, which moves it.
   */
  send_scheduled_reply: job({ payload: messageId, jobKey: (p) => `scheduled:${p.message_id}` }),
  /** Crontab, every minute: any due scheduled reply its job did not release (a net). */
  release_scheduled_replies: job({ payload: z.unknown(), maxAttempts: 1 }),
  /** Crontab, every minute: snoozed conversations whose time has come wake (core/commands/snooze.ts). */
  wake_snoozed_conversations: job({ payload: z.unknown(), maxAttempts: 1 }),
  /** Tells the platform about a new or changed channel. */
  register_channel: job({ payload: channelId, jobKey: (p) => `register:${p.channel_id}` }),
  /** Crontab, hourly: businesses whose subscription stayed past due beyond the grace period go to Free. */
  end_billing_grace: job({ payload: z.unknown(), maxAttempts: 1 }),
  /** Crontab, hourly: uploads no message used within a day are removed (bytes and row). */
  remove_unattached_uploads: job({ payload: z.unknown(), maxAttempts: 1 }),
  /** A customer's erasure (core/commands/customers.ts eraseCustomer): everything of theirs, in one transaction; safe to run twice. */
  erase_customer: job({ payload: z.object({ business_id: z.uuid(), customer_id: z.uuid() }), jobKey: (p) => `erase:${p.customer_id}` }),
  /** Crontab, daily: resolved and closed conversations past their business's retention period are deleted, with their files. */
  apply_retention: job({ payload: z.unknown(), maxAttempts: 1 }),
  /** Crontab, every minute: one poll_channel per channel that cannot push (`_cron` added by graphile-worker). */
  poll_channels: job({ payload: z.unknown(), maxAttempts: 1 }),
  /** One poll of one channel; a channel's polls never overlap nor pile up (a waiting one keeps its time). */
  poll_channel: job({
    payload: channelId,
    jobKey: (p) => `poll:${p.channel_id}`,
    queueName: (p) => `poll:${p.channel_id}`,
    maxAttempts: 1,
    jobKeyMode: 'preserve_run_at',
  }),
  /**
   * Downloads one attachment a customer sent from its platform into storage
   * (core/commands/attachments.ts); enqueued with the message by the inbound drain.
   */
  fetch_attachment: job({
    payload: z.object({ message_id: z.uuid(), index: z.number().int().min(0).max(99) }),
    jobKey: (p) => `attachment:${p.message_id}:${p.index}`,
    maxAttempts: FETCH_ATTACHMENT_MAX_ATTEMPTS,
  }),
  /**
   * Asks the platform for the name of a customer whose messages carry none (Instagram), once a
   * conversation of theirs opens (core/commands/customer-names.ts); enqueued by the inbound drain.
   */
  fetch_customer_name: job({
    payload: z.object({ customer_id: z.uuid() }),
    jobKey: (p) => `customer-name:${p.customer_id}`,
    maxAttempts: FETCH_CUSTOMER_NAME_MAX_ATTEMPTS,
  }),
  /** Chunks and embeds one knowledge base article. */
  index_article: job({
    payload: z.object({ article_id: z.number().int().positive() }),
    jobKey: (p) => `article:${p.article_id}`,
    maxAttempts: INDEX_MAX_ATTEMPTS,
  }),
  /**
   * The AI agent answers a customer message. One job per conversation: a burst of messages that
   * arrives before the job starts is answered once, from the newest message.
   */
  ai_reply: job({ payload: messageId, jobKey: (_p, c: { conversationId: string }) => `ai:${c.conversationId}`, maxAttempts: AI_REPLY_MAX_ATTEMPTS }),
  /**
   * Events of one business for its webhook endpoints: enqueued in the transaction that made them
   * (core/commands/webhooks-out.ts); makes one delivery and one deliver_webhook job per subscribed endpoint.
   */
  dispatch_webhooks: job({ payload: z.object({ business_id: z.uuid(), events: z.array(webhookEventRef).min(1) }) }),
  /** One delivery to one endpoint, retried with backoff for about three days; an endpoint's deliveries run one at a time. */
  deliver_webhook: job({
    payload: z.object({ business_id: z.uuid(), delivery_id: z.uuid() }),
    jobKey: (p) => `webhook-delivery:${p.delivery_id}`,
    queueName: (_p, c: { webhookId: string }) => `webhook:${c.webhookId}`,
    maxAttempts: WEBHOOK_MAX_ATTEMPTS,
  }),
  /**
   * Auto-assignment of a business's waiting conversations (core/commands/auto-assign.ts). Armed
   * by its subscriber (core/subscribers/auto-assign.ts).
   */
  auto_assign: job({ payload: z.object({ business_id: z.uuid() }), jobKey: (p) => `assign:${p.business_id}` }),
  /**
   * The out-of-hours notice for a customer message (core/commands/business-hours.ts). Armed by
   * its subscriber (core/subscribers/out-of-hours.ts).
   */
  out_of_hours_reply: job({ payload: messageId, jobKey: (_p, c: { conversationId: string }) => `hours:${c.conversationId}` }),
  /**
   * A conversation's SLA policy and due times worked out again (core/commands/sla.ts). Armed by
   * its subscriber (core/subscribers/sla.ts), which spells this key too for a whole business.
   */
  sla_refresh: job({ payload: z.object({ conversation_id: z.uuid() }), jobKey: (p) => `sla:${p.conversation_id}` }),
  /** Crontab, every minute: conversations whose soonest unrecorded SLA due time passed; each breach recorded and `sla_breached` once. */
  sla_check: job({ payload: z.unknown(), maxAttempts: 1 }),
  /**
   * Asks a resolved conversation's customer for a rating, once (core/commands/csat.ts). Armed by
   * its subscriber (core/subscribers/csat.ts).
   */
  csat_request: job({ payload: z.object({ conversation_id: z.uuid() }), jobKey: (p) => `csat:${p.conversation_id}` }),
};

export type JobName = keyof typeof jobCatalogue;
type Spec<N extends JobName> = (typeof jobCatalogue)[N];
/** What a task receives (after its schema's defaults and transforms). */
export type JobPayload<N extends JobName> = z.output<Spec<N>['payload']>;
type JobContext<N extends JobName> = Spec<N> extends JobSpec<z.ZodType, infer C> ? C : never;

export type EnqueueOptions = {
  /** Earliest run time (default now). */
  runAt?: Date;
};

/** The last argument of enqueue(): the entry's context (required when it has one) and options. */
type EnqueueArgs<N extends JobName> = undefined extends JobContext<N> ? [options?: EnqueueOptions] : [context: JobContext<N> & EnqueueOptions];

/** Adds the catalogue's job `name` in the caller's transaction; returns its id. */
export async function enqueue<N extends JobName>(q: Queryable, name: N, payload: z.input<Spec<N>['payload']>, ...[extra]: EnqueueArgs<N>): Promise<string> {
  // The signature checked the payload and the context against this entry; here it is any entry.
  const spec: JobSpec<z.ZodType, any> = jobCatalogue[name];
  const parsed = spec.payload.parse(payload);
  return addRawJob(q, name, parsed, {
    jobKey: spec.jobKey?.(parsed, extra),
    queueName: spec.queueName?.(parsed, extra),
    maxAttempts: spec.maxAttempts,
    jobKeyMode: spec.jobKeyMode,
    runAt: extra?.runAt,
  });
}

type RawJobOptions = EnqueueOptions & Omit<JobSpec<z.ZodType, unknown>, 'payload' | 'jobKey' | 'queueName'> & { jobKey?: string; queueName?: string };

/**
 * A job of a task outside the catalogue (tests' own tasks). A catalogue name does not
 * type-check here: those go through enqueue().
 */
export function addJob<T extends string>(
  q: Queryable,
  task: T & (T extends JobName ? never : T),
  payload: unknown,
  options: RawJobOptions = {},
): Promise<string> {
  return addRawJob(q, task, payload, options);
}

async function addRawJob(q: Queryable, task: string, payload: unknown, options: RawJobOptions): Promise<string> {
  const row = await q.one(sql.type(z.object({ id: z.coerce.string() }))`
    select id from graphile_worker.add_job(
      identifier => ${task}::text,
      payload => ${JSON.stringify(payload ?? {})}::json,
      queue_name => ${options.queueName ?? null}::text,
      run_at => ${options.runAt ? options.runAt.toISOString() : null}::timestamptz,
      max_attempts => ${options.maxAttempts ?? null}::int,
      job_key => ${options.jobKey ?? null}::text,
      job_key_mode => ${options.jobKeyMode ?? 'replace'}::text
    )`);
  return row.id;
}
