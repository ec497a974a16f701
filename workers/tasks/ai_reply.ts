/**
 * ai_reply: the AI agent answers a customer message from the business's knowledge base, or
 * hands the conversation to a human.
 *
 * It stays silent when auto-reply was turned off (or the plan lost it), a human has the
 * conversation (assigned, or a handoff already asked for), it is resolved or closed, an agent or
 * the AI already answered, or a newer customer message came in (that message's job answers).
 * These checks run again, under the conversation's row lock, in the transaction that writes.
 *
 * A reply is sent as the `ai` sender of core/commands/messages.ts sendMessage (counted against
 * the month, queued on the conversation's channel, delivered) in the re-check's transaction. A
 * handoff (core/commands/conversations.ts requestHandoff) sets `handoff_requested_at`/
 * `handoff_reason`, moves an open conversation to `pending` and publishes `handoff_requested`. The knowledge comes from the
 * fused full-text and semantic search (semantic passages below AI_MIN_RELEVANCE left out), so with Ollama's
 * embeddings down the articles that contain the customer's words still ground it; without the chat model it
 * cannot compose an answer and hands over. Handoffs happen when nothing relevant is found, when the model says so or is unsure, when its answer is unusable, at
 * the monthly message limit, and when Ollama fails for good (a refusal, or the last attempt).
 */
import { z } from 'zod';
import type { JobHelpers } from 'graphile-worker';
import { sql, type Queryable } from '../../core/adapters/postgres/db.ts';
import type { Deps } from '../../core/deps.ts';
import { HttpError } from '../../core/errors.ts';
import { publishEvents, type PendingEvent } from '../../core/events/live.ts';
import { impliedBy, recordEvents } from '../../core/events/domain.ts';
import { requestHandoff } from '../../core/commands/conversations.ts';
import { sendMessage } from '../../core/commands/messages.ts';
import { hybridSearch } from '../../core/domain/knowledge-base/hybrid-search.ts';
import { chatJson, OllamaError } from '../../core/adapters/ollama.ts';
import {
  buildPrompt,
  CONTEXT_CHUNKS,
  decisionJsonSchema,
  handoffReasons,
  HISTORY_MESSAGES,
  parseDecision,
  pendingQuestion,
} from '../../core/domain/ai-agent.ts';
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
           -- A private note answers nobody: the customer never sees it.
           exists (select 1 from messages x where x.conversation_id = m.conversation_id and x.sender_type in ('agent', 'ai') and not x.private
                   and x.delivery_status is distinct from 'scheduled'
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
    -- The team's private notes never reach the model: it could repeat them to the customer.
    -- Nor scheduled replies the customer has not received.
    where conversation_id = ${s.conversation_id} and not private and delivery_status is distinct from 'scheduled'
      -- compared in SQL: the ISO string has milliseconds, the column microseconds
      and created_at <= (select created_at from messages where id = ${s.id})
    order by created_at desc, id desc limit ${HISTORY_MESSAGES}`);
  return [...rows].reverse();
}

/** Writes the AI's reply and its delivery job (core/commands/messages.ts); returns the events to publish, or null when it must stay silent. */
async function postReply(deps: Deps, messageId: string, reply: string): Promise<PendingEvent[] | null> {
  return deps.db.transaction(async (tx) => {
    // The re-check locks the conversation first, as sendMessage would (its lock order); at the
    // monthly limit sendMessage throws, and the transaction leaves nothing behind.
    const s = await loadState(tx, messageId, true);
    if (!s || skipReason(s)) return null;
    const sent = await sendMessage(tx, {
      businessId: s.business_id,
      conversationId: s.conversation_id,
      sender: { type: 'ai' },
      content: reply,
      attachments: [],
    });
    await recordEvents(tx, impliedBy(sent.events, { type: 'ai' }));
    return sent.events;
  });
}

/** Flags the conversation for a human; returns the events to publish, or null when it must stay silent. */
async function handoffUnlessSilent(deps: Deps, messageId: string, reason: string): Promise<PendingEvent[] | null> {
  return deps.db.transaction(async (tx) => {
    const s = await loadState(tx, messageId, true);
    if (!s || skipReason(s)) return null;
    const events = await requestHandoff(tx, { businessId: s.business_id, conversationId: s.conversation_id, reason });
    await recordEvents(tx, impliedBy(events, { type: 'ai' }));
    return events;
  });
}

async function handOver(deps: Deps, messageId: string, reason: string): Promise<void> {
  const events = await handoffUnlessSilent(deps, messageId, reason);
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
  // Full text always answers; the semantic side joins when Ollama embeds (core/domain/knowledge-base/hybrid-search.ts).
  const { matches: knowledge, semanticError } = await hybridSearch(deps.db, deps.config, deps.logger, state.business_id, question, {
    limit: CONTEXT_CHUNKS,
    perArticle: false,
    minScore: deps.config.AI_MIN_RELEVANCE,
  });
  if (knowledge.length === 0) {
    // Nothing by words and no meaning to compare: that is Ollama's failure (retried, then
    // "AI agent unavailable"), not proof that the knowledge base has no answer.
    if (semanticError) return void (await viaOllama(deps, helpers, messageId, () => Promise.reject(semanticError)));
    return handOver(deps, messageId, handoffReasons.noKnowledge);
  }
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
