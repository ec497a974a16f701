/**
 * ai_reply: the AI agent answers a customer message from the business's knowledge base, or
 * hands the conversation to a human.
 *
 * It stays silent when auto-reply was turned off (or the plan lost it), a human has the
 * conversation (assigned, or a handoff already asked for), it is resolved or closed, an agent or
 * the AI already answered, or a newer customer message came in (that message's job answers).
 * These checks run again, under the conversation's row lock, in the transaction that writes.
 *
 * A reply is counted against the month, inserted as an `ai` message (queued on the
 * conversation's channel) and its `deliver_message` job enqueued, in one transaction. A handoff
 * sets `handoff_requested_at`/`handoff_reason`, moves an open conversation to `pending` and
 * publishes `handoff_requested`. Handoffs happen when no chunk is relevant enough
 * (AI_MIN_RELEVANCE), when the model says so or is unsure, when its answer is unusable, at
 * the monthly message limit, and when Ollama fails for good (a refusal, or the last attempt).
 */
import { z } from 'zod';
import type { JobHelpers } from 'graphile-worker';
import { sql, type Queryable } from '../../core/db.ts';
import type { Deps } from '../../core/deps.ts';
import { HttpError } from '../../core/errors.ts';
import { liveEvent } from '../../core/event-catalogue.ts';
import { conversationUpdated, messageCreated, publishEvents, type PendingEvent } from '../../core/live-events.ts';
import { enqueue } from '../../core/jobs.ts';
import { reserveMonthlyMessage } from '../../core/plans.ts';
import { searchKnowledgeBase } from '../../core/kb-index.ts';
import { chatJson, OllamaError } from '../../core/ollama.ts';
import { buildPrompt, CONTEXT_CHUNKS, decisionJsonSchema, handoffReasons, HISTORY_MESSAGES, parseDecision, pendingQuestion } from '../../core/ai-agent.ts';
import { catalogueTask } from '../task.ts';

const stateRow = z.object({
  id: z.string(),
  business_id: z.string(),
  conversation_id: z.string(),
  sender_type: z.string(),
  channel_id: z.string().nullable(),
  status: z.string(),
  assignee_id: z.string().nullable(),
  handoff_requested_at: z.string().nullable(),
  business_name: z.string(),
  auto_reply: z.boolean(),
  answered: z.boolean(),
  superseded: z.boolean(),
});
type State = z.infer<typeof stateRow>;

/** The message, its conversation and business, and whether anything happened since; `lock` locks the conversation row. */
async function loadState(q: Queryable, messageId: string, lock: boolean): Promise<State | null> {
  return q.maybeOne(sql.type(stateRow)`
    select m.id, m.business_id, m.conversation_id, m.sender_type,
           c.channel_id, c.status, c.assignee_id, c.handoff_requested_at,
           b.name as business_name, (b.ai_auto_reply_enabled and p.ai_auto_reply) as auto_reply,
           exists (select 1 from messages x where x.conversation_id = m.conversation_id and x.sender_type in ('agent', 'ai')
                   and x.created_at >= m.created_at and x.id <> m.id) as answered,
           exists (select 1 from messages x where x.conversation_id = m.conversation_id and x.sender_type = 'customer'
                   and x.created_at > m.created_at) as superseded
    from messages m
    join conversations c on c.id = m.conversation_id
    join businesses b on b.id = m.business_id
    join plans p on p.name = b.plan
    where m.id = ${messageId}
    ${lock ? sql.fragment`for update of c` : sql.fragment``}`);
}

/** Why the agent must stay silent, or null when it may act. */
function skipReason(s: State): string | null {
  if (s.sender_type !== 'customer') return 'not a customer message';
  if (!s.auto_reply) return 'auto-reply is off';
  if (s.assignee_id) return 'a human has the conversation';
  if (s.status === 'resolved' || s.status === 'closed') return `the conversation is ${s.status}`;
  if (s.handoff_requested_at) return 'a human was already asked for';
  if (s.answered) return 'already answered';
  if (s.superseded) return 'a newer customer message will be answered';
  if (!s.channel_id) return 'the conversation has no channel to answer on';
  return null;
}

const historyRow = z.object({ sender_type: z.string(), content: z.string() });

/** The conversation's last messages up to the one being answered, oldest first. */
async function historyUntil(q: Queryable, s: State) {
  const rows = await q.any(sql.type(historyRow)`
    select sender_type, content from messages
    where conversation_id = ${s.conversation_id}
      -- compared in SQL: the ISO string has milliseconds, the column microseconds
      and created_at <= (select created_at from messages where id = ${s.id})
    order by created_at desc, id desc limit ${HISTORY_MESSAGES}`);
  return [...rows].reverse();
}

/** Thrown inside a transaction to roll it back when a re-check says stay silent. */
class Silent extends Error {}

const touchedRow = z.object({
  id: z.string(),
  business_id: z.string(),
  status: z.string(),
  assignee_id: z.string().nullable(),
  assigned_at: z.string().nullable(),
  updated_at: z.string(),
});

/** Writes the AI's reply and its delivery job; returns the events to publish, or null when it must stay silent. */
async function postReply(deps: Deps, messageId: string, reply: string): Promise<PendingEvent[] | null> {
  try {
    return await deps.db.transaction(async (tx) => {
      // Lock order of core/commands/messages.ts: the conversation, then (last) the month's counter row.
      const s = await loadState(tx, messageId, true);
      if (!s || skipReason(s)) throw new Silent();
      const message = await tx.one(sql.type(z.object({ id: z.string(), created_at: z.string() }))`
        insert into messages (business_id, conversation_id, sender_type, sender_id, content, attachments, delivery_status, channel_id)
        values (${s.business_id}, ${s.conversation_id}, 'ai', null, ${reply}, '[]'::jsonb, 'queued', ${s.channel_id})
        returning id, created_at`);
      // first_response_at stays: it measures the first human agent's reply.
      const touched = await tx.one(sql.type(touchedRow)`
        update conversations set last_message_at = ${message.created_at}::timestamptz, updated_at = now()
        where id = ${s.conversation_id}
        returning id, business_id, status, assignee_id, assigned_at, updated_at`);
      await enqueue(tx, 'deliver_message', { message_id: message.id });
      // Last, so the business's counter row is locked only until the commit; at the limit it
      // throws, and the transaction leaves no message, job or count behind.
      await reserveMonthlyMessage(tx, s.business_id);
      return [messageCreated(s.business_id, message.id), conversationUpdated(touched)];
    });
  } catch (error) {
    if (error instanceof Silent) return null;
    throw error;
  }
}

/** Flags the conversation for a human; returns the events to publish, or null when it must stay silent. */
async function requestHandoff(deps: Deps, messageId: string, reason: string): Promise<PendingEvent[] | null> {
  return deps.db.transaction(async (tx) => {
    const s = await loadState(tx, messageId, true);
    if (!s || skipReason(s)) return null;
    const row = await tx.one(sql.type(touchedRow.extend({ handoff_requested_at: z.string() }))`
      update conversations set
        handoff_requested_at = now(), handoff_reason = ${reason},
        status = case when status = 'open' then 'pending' else status end,
        updated_at = now()
      where id = ${s.conversation_id}
      returning id, business_id, status, assignee_id, assigned_at, updated_at, handoff_requested_at`);
    return [
      liveEvent('handoff_requested', { conversation_id: s.conversation_id, business_id: s.business_id, reason, at: row.handoff_requested_at }),
      conversationUpdated(row),
    ];
  });
}

async function handOver(deps: Deps, messageId: string, reason: string): Promise<void> {
  const events = await requestHandoff(deps, messageId, reason);
  if (!events) return;
  deps.logger.info({ message_id: messageId, reason }, 'AI agent handed the conversation to a human');
  await publishEvents(deps, events);
}

/**
 * Runs an Ollama step. A transient failure before the last attempt is thrown (retried);
 * otherwise the failure becomes a handoff and `null` is returned.
 */
async function viaOllama<T>(deps: Deps, helpers: JobHelpers, messageId: string, step: () => Promise<T>): Promise<T | null> {
  try {
    return await step();
  } catch (error) {
    if (!(error instanceof OllamaError)) throw error;
    const lastAttempt = helpers.job.attempts >= helpers.job.max_attempts;
    if (error.kind === 'transient' && !lastAttempt) throw error;
    deps.logger.warn({ message_id: messageId, error: error.message }, 'AI agent: Ollama failed');
    await handOver(deps, messageId, handoffReasons.unavailable);
    return null;
  }
}

async function answer(deps: Deps, helpers: JobHelpers, messageId: string): Promise<void> {
  const state = await loadState(deps.db, messageId, false);
  if (!state) return;
  const skip = skipReason(state);
  if (skip) {
    helpers.logger.debug(`AI agent stays silent: ${skip}`);
    return;
  }
  const history = await historyUntil(deps.db, state);
  const question = pendingQuestion(history);
  if (question === '') return handOver(deps, messageId, handoffReasons.noText);
  const knowledge = await viaOllama(deps, helpers, messageId, () =>
    searchKnowledgeBase(deps.db, deps.config, state.business_id, question, { limit: CONTEXT_CHUNKS, perArticle: false, minScore: deps.config.AI_MIN_RELEVANCE }),
  );
  if (!knowledge) return;
  if (knowledge.length === 0) return handOver(deps, messageId, handoffReasons.noKnowledge);
  const content = await viaOllama(deps, helpers, messageId, () =>
    chatJson(deps.config, buildPrompt({ businessName: state.business_name, history, knowledge }), decisionJsonSchema),
  );
  if (content === null) return;
  const decision = parseDecision(content);
  if (decision.action === 'handoff') return handOver(deps, messageId, decision.reason);
  let events: PendingEvent[] | null;
  try {
    events = await postReply(deps, messageId, decision.reply);
  } catch (error) {
    const limitReached = error instanceof HttpError && error.body.feature === 'messages';
    if (!limitReached) throw error;
    return handOver(deps, messageId, handoffReasons.messageLimit);
  }
  if (!events) return;
  deps.logger.info({ message_id: messageId, confidence: decision.confidence }, 'AI agent replied');
  await publishEvents(deps, events);
}

export default catalogueTask({
  name: 'ai_reply',
  run: async ({ message_id }, deps, helpers) => answer(deps, helpers, message_id),
});
