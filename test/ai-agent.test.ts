/**
 * The AI support agent against a fake Ollama: inbound customer messages enqueue `ai_reply` (its subscriber)
 * (Mini/Pro with auto-reply on, no human on the conversation), the agent answers from the
 * knowledge base (an `ai` message, counted, with its delivery job) or hands over to a human
 * (pending-handoffs, `handoff_requested`), and stays silent whenever a human or a newer message
 * has the floor.
 *
 * Most tests take the queued `ai_reply` job and run the task themselves, so nothing races; the
 * serial test runs the real worker end to end (serial tests run before the others, so no other
 * `ai_reply` job exists then).
 */
import { handleEvents } from '../core/events/pipeline.ts';
import test from 'ava';
import { randomBytes } from 'node:crypto';
import type { JobHelpers } from 'graphile-worker';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { query, startTestWorker, waitFor } from './helpers/worker.ts';
import { startFakeOllama, type FakeOllama } from './fakes/ollama.ts';
import { storeInboundEvents, processInboundEvent } from '../core/commands/inbound.ts';
import { publishEvents } from '../core/events/live.ts';
import { AI_REPLY_MAX_ATTEMPTS } from '../core/jobs.ts';
import { buildPrompt, decisionJsonSchema, handoffReasons, MIN_CONFIDENCE, parseDecision, pendingQuestion } from '../core/domain/ai-agent.ts';
import { OllamaError } from '../core/adapters/ollama.ts';
import aiReply from '../workers/tasks/ai_reply.ts';
import type { SupervisedRunner as Runner } from '../workers/supervisor.ts';

let app: TestApp;
let ollama: FakeOllama;
let indexer: Runner;

test.before(async () => {
  ollama = await startFakeOllama();
  // The fake's bag-of-words vectors score lower than a real model's: a related question scores ~0.2–0.5.
  app = await startTestApp({ env: { OLLAMA_URL: ollama.url, AI_MIN_RELEVANCE: '0.15' } });
  indexer = await startTestWorker(app, { only: ['index_article'] });
});

test.after.always(async () => {
  await indexer?.stop();
  await app?.close();
  await ollama?.close();
});

const REFUND =
  'Refunds: we refund any order within 30 days of delivery. Start the refund from the order page; the money returns to the original card within five business days.';

/** A Mini (or given plan) workspace with auto-reply on and an indexed refund article. */
async function aiWorkspace(options: { plan?: 'Mini' | 'Pro'; article?: boolean } = {}): Promise<Workspace & { channelId: string }> {
  const ws = await createWorkspace(app, { plan: options.plan ?? 'Mini' });
  const on = await app.request('PUT', '/api/v1/ai/settings', { token: ws.token, body: { auto_reply_enabled: true } });
  if (on.status !== 200) throw new Error(`enable auto-reply: ${on.status} ${on.text}`);
  if (options.article !== false) {
    const res = await app.request('POST', '/api/v1/kb/articles', { token: ws.token, body: { title: 'Refund policy', content: REFUND } });
    await waitFor(
      async () => (await query(app, 'select index_status from kb_articles where id = $1', [res.body.id]))[0].index_status === 'indexed',
      20_000,
      'indexed',
    );
  }
  const [channel] = await query(app, 'select id from channels where business_id = $1 and is_builtin', [ws.businessId]);
  return { ...ws, channelId: channel.id };
}

/** A customer message on the business's webchat channel, through the inbound pipeline. */
async function customerSays(ws: { businessId: string; channelId: string }, text: string, visitor = 'visitor-1') {
  const externalId = `wc-${randomBytes(6).toString('hex')}`;
  const [eventId] = await app.deps.db.transaction((tx) =>
    storeInboundEvents(
      tx,
      { id: ws.channelId, business_id: ws.businessId, type: 'webchat' },
      [{ kind: 'message', externalId, from: { platformUserId: visitor, name: 'Visitor' }, text, attachments: [], sentAt: new Date().toISOString() }],
      null,
    ),
  );
  await publishEvents(app.deps, await processInboundEvent(app.deps.db, eventId!));
  const [row] = await query(app, 'select id, conversation_id from messages where external_id = $1', [externalId]);
  // Its subscribers (the AI agent's among them: core/subscribers/ai-agent.ts), as the worker's handle_events runs them.
  const pending = await query(app, 'select id from domain_events where conversation_id = $1 and handled_at is null order by seq', [row.conversation_id]);
  if (pending.length)
    await handleEvents(
      app.deps,
      pending.map((e) => e.id as string),
    );
  return { messageId: row.id as string, conversationId: row.conversation_id as string };
}

/** The queued ai_reply job of a conversation (removed from the queue, so the test runs it), or null. */
async function takeAiJob(conversationId: string): Promise<{ message_id: string; max_attempts: number } | null> {
  const [job] = await query(app, `select payload, max_attempts from graphile_worker._private_jobs where key = $1`, [`ai:${conversationId}`]);
  if (!job) return null;
  await query(app, `select graphile_worker.remove_job($1)`, [`ai:${conversationId}`]);
  return { message_id: job.payload.message_id, max_attempts: job.max_attempts };
}

const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** Runs the ai_reply task as the worker would on attempt `attempt` of `max`. */
function runAiReply(messageId: string, attempt = 1, max = AI_REPLY_MAX_ATTEMPTS) {
  const helpers = { job: { id: '0', attempts: attempt, max_attempts: max }, logger: quietLogger } as unknown as JobHelpers;
  return aiReply.run({ message_id: messageId }, app.deps, helpers);
}

const messagesOf = (conversationId: string) =>
  query(app, 'select id, sender_type, sender_id, content, delivery_status, channel_id from messages where conversation_id = $1 order by created_at, id', [
    conversationId,
  ]);
const conversation = async (id: string) =>
  (await query(app, 'select status, handoff_requested_at, handoff_reason, first_response_at from conversations where id = $1', [id]))[0];
const counter = async (businessId: string) =>
  (await query(app, 'select coalesce(sum(count), 0)::int as n from message_counters where business_id = $1', [businessId]))[0].n as number;
const chatsMentioning = (text: string) => ollama.chatRequests.filter((r) => r.messages.some((m) => m.content.includes(text)));
const unique = (label: string) => `${label}-${randomBytes(4).toString('hex')}`;

const reply = (text: string, confidence = 0.9) => ({ json: { action: 'reply', reply: text, confidence } });

// ---------------------------------------------------------------- pure parts

test('parseDecision: a confident reply; everything else is a handoff with a reason', (t) => {
  t.deepEqual(parseDecision(JSON.stringify({ action: 'reply', reply: '  Within 30 days.  ', confidence: 0.8 })), {
    action: 'reply',
    reply: 'Within 30 days.',
    confidence: 0.8,
  });
  t.deepEqual(parseDecision(JSON.stringify({ action: 'handoff', reason: 'Wants a manager', confidence: 0.9 })), {
    action: 'handoff',
    reason: 'Wants a manager',
    confidence: 0.9,
  });
  t.is((parseDecision(JSON.stringify({ action: 'handoff', confidence: 0.9 })) as { reason: string }).reason, handoffReasons.modelAsked);
  const unusable = [
    'not json',
    '{}',
    JSON.stringify({ action: 'reply', confidence: 0.9 }),
    JSON.stringify({ action: 'reply', reply: '   ', confidence: 0.9 }),
    JSON.stringify({ action: 'dance', reply: 'x', confidence: 0.9 }),
    JSON.stringify({ action: 'reply', reply: 'x', confidence: 7 }),
    JSON.stringify({ action: 'reply', reply: 'x'.repeat(10_001), confidence: 0.9 }),
    '[1,2]',
  ];
  for (const content of unusable) t.deepEqual((parseDecision(content) as { reason: string }).reason, handoffReasons.unusable, content.slice(0, 40));
  t.deepEqual(parseDecision(JSON.stringify({ action: 'reply', reply: 'Maybe?', confidence: MIN_CONFIDENCE - 0.01 })), {
    action: 'handoff',
    reason: handoffReasons.notConfident,
    confidence: MIN_CONFIDENCE - 0.01,
  });
});

test('buildPrompt and pendingQuestion: excerpts in the system message, the conversation as user/assistant turns', (t) => {
  const history = [
    { sender_type: 'customer', content: 'Hi' },
    { sender_type: 'ai', content: 'Hello! How can I help?' },
    { sender_type: 'system', content: 'assigned' },
    { sender_type: 'customer', content: 'Refund?' },
    { sender_type: 'customer', content: 'For order 12' },
  ];
  t.is(pendingQuestion(history), 'Refund?\nFor order 12');
  const messages = buildPrompt({
    businessName: 'Acme',
    history,
    knowledge: [{ articleId: 1, title: 'Refunds', ordinal: 0, content: 'Within 30 days.', score: 0.7 }],
  });
  t.is(messages[0]!.role, 'system');
  t.regex(messages[0]!.content, /Acme/);
  t.regex(messages[0]!.content, /Article: Refunds\nWithin 30 days\./);
  t.deepEqual(
    messages.slice(1).map((m) => m.role),
    ['user', 'assistant', 'user', 'user'],
  );
});

// ---------------------------------------------------------------- end to end (serial: the only time a worker runs ai_reply)

test.serial('end to end: an inbound message is answered by the worker with an ai message and its delivery job', async (t) => {
  const ws = await aiWorkspace();
  const marker = unique('e2e');
  ollama.scriptChat(marker, reply('You can get a refund within 30 days of delivery, from the order page.'));
  const worker = await startTestWorker(app, { only: ['ai_reply'] });
  try {
    const { conversationId } = await customerSays(ws, `${marker} How do I get a refund for my order?`);
    const ai = await waitFor(async () => (await messagesOf(conversationId)).find((m) => m.sender_type === 'ai'), 20_000, 'ai message');
    t.is(ai.content, 'You can get a refund within 30 days of delivery, from the order page.');
    const [job] = await query(app, `select task_identifier from graphile_worker.jobs where key = $1`, [`deliver:${conversationId}`]);
    t.is(job?.task_identifier, 'deliver_message', "the conversation's delivery drain is armed");
  } finally {
    await worker.stop();
  }
});

// ---------------------------------------------------------------- replies

test("a grounded answer: an ai message (queued on the conversation's channel), counted, its delivery job, message_created; the prompt holds the article and the question", async (t) => {
  const ws = await aiWorkspace();
  const marker = unique('refund');
  ollama.scriptChat(marker, reply('Refunds are possible within 30 days of delivery.'));
  const { conversationId, messageId } = await customerSays(ws, `${marker} How do I get a refund for my order?`);
  const job = await takeAiJob(conversationId);
  t.is(job?.message_id, messageId);
  t.is(job?.max_attempts, AI_REPLY_MAX_ATTEMPTS);
  await runAiReply(messageId);

  const messages = await messagesOf(conversationId);
  t.deepEqual(
    messages.map((m) => m.sender_type),
    ['customer', 'ai'],
  );
  const ai = messages[1]!;
  t.is(ai.content, 'Refunds are possible within 30 days of delivery.');
  t.is(ai.delivery_status, 'queued');
  t.is(ai.sender_id, null);
  t.is(ai.channel_id, ws.channelId);
  const jobs = await query(app, `select task_identifier from graphile_worker.jobs where key = $1`, [`deliver:${conversationId}`]);
  t.deepEqual(
    jobs.map((j) => j.task_identifier),
    ['deliver_message'],
    "the conversation's delivery drain is armed",
  );
  t.is(await counter(ws.businessId), 1, 'an AI message counts against the month');
  const conv = await conversation(conversationId);
  t.is(conv.status, 'open');
  t.is(conv.handoff_requested_at, null);
  t.is(conv.first_response_at, null, 'first response time measures humans');
  const created = app.events.find((e) => e.name === 'message_created' && e.payload.message_id === ai.id);
  t.truthy(created);
  t.is(created!.payload.sender_type, 'ai');
  t.deepEqual(created!.rooms.sort(), [`business:${ws.businessId}`, `conversation:${conversationId}`].sort());

  const [chat] = chatsMentioning(marker);
  t.truthy(chat);
  t.is(chat!.model, 'llama3.1');
  t.is(chat!.stream, false);
  t.deepEqual(chat!.format, decisionJsonSchema);
  t.is(chat!.messages[0]!.role, 'system');
  t.true(chat!.messages[0]!.content.includes(REFUND), 'the knowledge base chunk is in the prompt');
  t.true(
    chat!.messages.some((m) => m.role === 'user' && m.content === `${marker} How do I get a refund for my order?`),
    'the customer message is in the prompt',
  );
  const usage = await app.request('GET', '/api/v1/business/plan', { token: ws.token });
  t.is(usage.body.usage.messages_this_month, 1);
});

test('running the job twice sends one reply', async (t) => {
  const ws = await aiWorkspace();
  const marker = unique('twice');
  ollama.scriptChat(marker, reply('Within 30 days.'));
  const { conversationId, messageId } = await customerSays(ws, `${marker} refund order?`);
  await takeAiJob(conversationId);
  await runAiReply(messageId);
  await runAiReply(messageId);
  t.deepEqual(
    (await messagesOf(conversationId)).map((m) => m.sender_type),
    ['customer', 'ai'],
  );
  t.is(chatsMentioning(marker).length, 1, 'the second run does not even ask the model');
  t.is(await counter(ws.businessId), 1);
});

test('a burst of customer messages gets one job and one reply, from the newest message, with both in the prompt', async (t) => {
  const ws = await aiWorkspace();
  const marker = unique('burst');
  ollama.scriptChat(marker, reply('Within 30 days.'));
  const first = await customerSays(ws, `${marker} hello`);
  const second = await customerSays(ws, 'how do I get a refund for my order?');
  t.is(second.conversationId, first.conversationId);
  const jobs = await query(app, `select count(*)::int as n from graphile_worker.jobs where key = $1`, [`ai:${first.conversationId}`]);
  t.is(jobs[0].n, 1);
  const job = await takeAiJob(first.conversationId);
  t.is(job?.message_id, second.messageId);
  // An older message's job (one that had already started) stays silent: the newest one answers.
  await runAiReply(first.messageId);
  t.is(chatsMentioning(marker).length, 0);
  await runAiReply(second.messageId);
  t.deepEqual(
    (await messagesOf(first.conversationId)).map((m) => m.sender_type),
    ['customer', 'customer', 'ai'],
  );
  const [chat] = chatsMentioning(marker);
  const userTurns = chat!.messages.filter((m) => m.role === 'user').map((m) => m.content);
  t.deepEqual(userTurns, [`${marker} hello`, 'how do I get a refund for my order?']);
});

// ---------------------------------------------------------------- handoffs

test('a handoff answer: the conversation goes pending, is listed in pending-handoffs with the reason, handoff_requested is published, no message', async (t) => {
  const ws = await aiWorkspace();
  const marker = unique('handoff');
  ollama.scriptChat(marker, { json: { action: 'handoff', reason: 'The customer wants to change the delivery address of a refund order', confidence: 0.9 } });
  const { conversationId, messageId } = await customerSays(ws, `${marker} please change the address on my refund order`);
  await takeAiJob(conversationId);
  await runAiReply(messageId);
  const conv = await conversation(conversationId);
  t.is(conv.status, 'pending');
  t.is(conv.handoff_reason, 'The customer wants to change the delivery address of a refund order');
  t.truthy(conv.handoff_requested_at);
  t.deepEqual(
    (await messagesOf(conversationId)).map((m) => m.sender_type),
    ['customer'],
  );
  t.is(await counter(ws.businessId), 0);
  const pending = await app.request('GET', '/api/v1/team/pending-handoffs', { token: ws.token });
  t.is(pending.status, 200);
  const item = pending.body.find((c: { id: string }) => c.id === conversationId);
  t.truthy(item);
  t.is(item.handoff_reason, 'The customer wants to change the delivery address of a refund order');
  t.is(item.status, 'pending');
  const event = app.events.find((e) => e.name === 'handoff_requested' && e.payload.conversation_id === conversationId);
  t.truthy(event);
  t.deepEqual(event!.rooms, [`business:${ws.businessId}`]);
  t.deepEqual(Object.keys(event!.payload).sort(), ['at', 'business_id', 'conversation_id', 'reason']);
  t.is(event!.payload.business_id, ws.businessId);
  t.is(event!.payload.reason, 'The customer wants to change the delivery address of a refund order');
  t.is(new Date(event!.payload.at as string).toISOString(), event!.payload.at as string);

  // From now on a human has it: the customer's next message enqueues nothing.
  const next = await customerSays(ws, `${marker} hello?`);
  t.is(next.conversationId, conversationId);
  t.is(await takeAiJob(conversationId), null);
});

test('no relevant article: handed over without asking the model, even when another business has the answer', async (t) => {
  const ws = await aiWorkspace({ article: false });
  await aiWorkspace(); // another business, with the refund article
  const marker = unique('nokb');
  ollama.scriptChat(marker, reply('should never be used'));
  const { conversationId, messageId } = await customerSays(ws, `${marker} how do I get a refund for my order?`);
  await takeAiJob(conversationId);
  await runAiReply(messageId);
  t.is((await conversation(conversationId)).handoff_reason, handoffReasons.noKnowledge);
  t.is(chatsMentioning(marker).length, 0);

  // Fixed words (no random marker), so the fake's hashed vectors cannot collide by chance.
  const other = await aiWorkspace();
  const unrelated = await customerSays(other, 'zeppelin xylophone');
  await takeAiJob(unrelated.conversationId);
  await runAiReply(unrelated.messageId);
  t.is((await conversation(unrelated.conversationId)).handoff_reason, handoffReasons.noKnowledge, 'an article that does not match is no knowledge');
});

test('an unusable or unsure answer is a handoff', async (t) => {
  const ws = await aiWorkspace();
  const cases: [string, unknown, string][] = [
    [unique('garbage'), { raw: 'Sure! Refunds take 30 days.' }, handoffReasons.unusable],
    [unique('noreply'), { json: { action: 'reply', confidence: 0.95 } }, handoffReasons.unusable],
    [unique('unsure'), reply('Probably 30 days?', 0.3), handoffReasons.notConfident],
  ];
  for (const [marker, answer, reason] of cases) {
    ollama.scriptChat(marker, answer as never);
    const { conversationId, messageId } = await customerSays(ws, `${marker} refund for my order?`, `visitor-${marker}`);
    await takeAiJob(conversationId);
    await runAiReply(messageId);
    const conv = await conversation(conversationId);
    t.is(conv.handoff_reason, reason, marker);
    t.deepEqual(
      (await messagesOf(conversationId)).map((m) => m.sender_type),
      ['customer'],
      marker,
    );
  }
});

test('at the monthly message limit the agent hands over instead of replying; nothing is counted', async (t) => {
  const ws = await aiWorkspace();
  await query(app, `insert into message_counters (business_id, month, count) values ($1, date_trunc('month', now() at time zone 'utc')::date, 5000)`, [
    ws.businessId,
  ]);
  const marker = unique('limit');
  ollama.scriptChat(marker, reply('Within 30 days.'));
  const { conversationId, messageId } = await customerSays(ws, `${marker} refund for my order?`);
  await takeAiJob(conversationId);
  await runAiReply(messageId);
  const conv = await conversation(conversationId);
  t.is(conv.handoff_reason, handoffReasons.messageLimit);
  t.is(conv.status, 'pending');
  t.deepEqual(
    (await messagesOf(conversationId)).map((m) => m.sender_type),
    ['customer'],
  );
  t.is(await counter(ws.businessId), 5000);
  t.is(
    (
      await query(app, `select count(*)::int as n from graphile_worker.jobs j where task_identifier = 'deliver_message' and j.key = 'deliver:' || $1`, [
        conversationId,
      ])
    )[0].n,
    0,
    'no delivery drain armed',
  );
});

test('Ollama failing: a transient error is retried (thrown) until the last attempt, then a handoff; a refusal hands over at once', async (t) => {
  const ws = await aiWorkspace();
  const flaky = unique('flaky');
  ollama.scriptChat(flaky, { status: 503, error: 'server busy' });
  const a = await customerSays(ws, `${flaky} refund for my order?`, 'visitor-flaky');
  await takeAiJob(a.conversationId);
  const error = await t.throwsAsync(runAiReply(a.messageId, 1, 3));
  t.true(error instanceof OllamaError);
  t.is((await conversation(a.conversationId)).handoff_requested_at, null, 'not yet handed over');
  await t.throwsAsync(runAiReply(a.messageId, 2, 3));
  await runAiReply(a.messageId, 3, 3);
  t.is((await conversation(a.conversationId)).handoff_reason, handoffReasons.unavailable);

  const refused = unique('refused');
  ollama.scriptChat(refused, { status: 404, error: 'model "llama3.1" not found, try pulling it first' });
  const b = await customerSays(ws, `${refused} refund for my order?`, 'visitor-refused');
  await takeAiJob(b.conversationId);
  await runAiReply(b.messageId, 1, 3);
  t.is((await conversation(b.conversationId)).handoff_reason, handoffReasons.unavailable);
});

test.serial("no embedding model: the agent grounds on the article found by the customer's words (full text) and answers", async (t) => {
  const ws = await aiWorkspace();
  ollama.models.delete('nomic-embed-text');
  try {
    // The script matches the business's name (in the system prompt): the customer's words stay the article's words.
    const marker = unique('fulltext');
    await query(app, 'update businesses set name = $1 where id = $2', [marker, ws.businessId]);
    ollama.scriptChat(marker, reply('Refunds reach your card within five business days.'));
    const { conversationId, messageId } = await customerSays(ws, 'refund order card', `visitor-${marker}`);
    await takeAiJob(conversationId);
    await runAiReply(messageId, 1, 3);
    const [chat] = chatsMentioning(marker);
    t.truthy(chat, 'the chat model was asked');
    t.regex(chat!.messages[0]!.content, /Article: Refund policy/, 'grounded on the refund article, found by its words');
    t.deepEqual(
      (await messagesOf(conversationId)).map((m) => m.sender_type),
      ['customer', 'ai'],
    );
    t.is((await conversation(conversationId)).handoff_requested_at, null);
  } finally {
    ollama.models.add('nomic-embed-text');
  }
});

test.serial(
  'Ollama stopped: an article found by its words is not "no knowledge"; without a chat model the agent is retried, then hands over as unavailable',
  async (t) => {
    // Saved while Ollama is down: never embedded, still found by its words.
    const ws = await aiWorkspace({ article: false });
    ollama.setDown(true);
    try {
      const created = await app.request('POST', '/api/v1/kb/articles', { token: ws.token, body: { title: 'Refund policy', content: REFUND } });
      t.is(created.status, 200);
      const search = await app.request('GET', '/api/v1/kb/search', { token: ws.token, query: { q: 'refund order' } });
      t.is(search.status, 200, 'knowledge-base search answers for agents with Ollama stopped');
      t.deepEqual(
        search.body.map((r: { article_id: number }) => r.article_id),
        [created.body.id],
      );
      const { conversationId, messageId } = await customerSays(ws, 'refund order', 'visitor-down');
      await takeAiJob(conversationId);
      await t.throwsAsync(runAiReply(messageId, 1, 3), { instanceOf: OllamaError }, 'the chat request failed: retried');
      t.is((await conversation(conversationId)).handoff_requested_at, null, 'not handed over as "no knowledge"');
      await runAiReply(messageId, 3, 3);
      const conv = await conversation(conversationId);
      t.is(conv.handoff_reason, handoffReasons.unavailable);
      t.is(conv.status, 'pending');
      t.deepEqual(
        (await messagesOf(conversationId)).map((m) => m.sender_type),
        ['customer'],
      );
    } finally {
      ollama.setDown(false);
    }
  },
);

// ---------------------------------------------------------------- when the agent stays out

test('Free plan, or auto-reply off: no ai_reply job', async (t) => {
  const free = await createWorkspace(app);
  // The API refuses auto-reply on Free (402); a downgrade could leave the flag on.
  await query(app, 'update businesses set ai_auto_reply_enabled = true where id = $1', [free.businessId]);
  const [freeChannel] = await query(app, 'select id from channels where business_id = $1 and is_builtin', [free.businessId]);
  const a = await customerSays({ businessId: free.businessId, channelId: freeChannel.id }, 'refund please');
  t.is(await takeAiJob(a.conversationId), null);

  const mini = await createWorkspace(app, { plan: 'Mini' });
  const [miniChannel] = await query(app, 'select id from channels where business_id = $1 and is_builtin', [mini.businessId]);
  const b = await customerSays({ businessId: mini.businessId, channelId: miniChannel.id }, 'refund please');
  t.is(await takeAiJob(b.conversationId), null);
  t.deepEqual(
    (await messagesOf(b.conversationId)).map((m) => m.sender_type),
    ['customer'],
  );
});

test('auto-reply turned off after the job was queued: the job stays silent', async (t) => {
  const ws = await aiWorkspace();
  const marker = unique('off');
  ollama.scriptChat(marker, reply('Within 30 days.'));
  const { conversationId, messageId } = await customerSays(ws, `${marker} refund for my order?`);
  t.truthy(await takeAiJob(conversationId));
  await app.request('PUT', '/api/v1/ai/settings', { token: ws.token, body: { auto_reply_enabled: false } });
  await runAiReply(messageId);
  t.deepEqual(
    (await messagesOf(conversationId)).map((m) => m.sender_type),
    ['customer'],
  );
  t.is((await conversation(conversationId)).handoff_requested_at, null);
  t.is(chatsMentioning(marker).length, 0);
});

test('an agent who replied first, an assignment, or a resolved conversation keeps the agent silent', async (t) => {
  const ws = await aiWorkspace();
  const marker = unique('human');
  ollama.scriptChat(marker, reply('Within 30 days.'));

  const replied = await customerSays(ws, `${marker} refund for my order?`, 'visitor-replied');
  await takeAiJob(replied.conversationId);
  const send = await app.request('POST', `/api/v1/conversations/${replied.conversationId}/messages`, { token: ws.token, body: { content: 'Hi, I am on it.' } });
  t.is(send.status, 200);
  await runAiReply(replied.messageId);
  t.deepEqual(
    (await messagesOf(replied.conversationId)).map((m) => m.sender_type),
    ['customer', 'agent'],
  );

  const assigned = await customerSays(ws, `${marker} refund for my order?`, 'visitor-assigned');
  await takeAiJob(assigned.conversationId);
  const assign = await app.request('PUT', `/api/v1/conversations/${assigned.conversationId}/assign/1`, { token: ws.token });
  t.is(assign.status, 200);
  await runAiReply(assigned.messageId);
  t.deepEqual(
    (await messagesOf(assigned.conversationId)).map((m) => m.sender_type),
    ['customer'],
  );
  // Assigned: the customer's next message does not even enqueue the agent.
  await customerSays(ws, `${marker} anyone?`, 'visitor-assigned');
  t.is(await takeAiJob(assigned.conversationId), null);

  const resolved = await customerSays(ws, `${marker} refund for my order?`, 'visitor-resolved');
  await takeAiJob(resolved.conversationId);
  t.is((await app.request('PUT', `/api/v1/conversations/${resolved.conversationId}/resolve`, { token: ws.token })).status, 200);
  await runAiReply(resolved.messageId);
  t.deepEqual(
    (await messagesOf(resolved.conversationId)).map((m) => m.sender_type),
    ['customer'],
  );
  t.is((await conversation(resolved.conversationId)).handoff_requested_at, null);
  t.is(chatsMentioning(marker).length, 0);
});
