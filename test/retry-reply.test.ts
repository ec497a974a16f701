/**
 * "Send again" (POST …/messages/{id}/retry, core/commands/retry-reply.ts) through a WhatsApp
 * channel on the fake Graph API: a reply the platform refused goes back into the conversation's
 * delivery as if stored now, reaches the customer after the replies sent meanwhile, once, and is
 * not counted again, and the operator's failed job of it is settled; everything else is refused
 * with nothing changed; a scheduled reply that failed at its release (never counted) is counted
 * when sent again.
 */
import test from 'ava';
import { createWorkspace } from './helpers/fixtures.ts';
import { whatsappConversation, type WhatsAppConversation } from './helpers/whatsapp-conversation.ts';
import { query, startTestWorker, waitFor } from './helpers/worker.ts';

let setup: WhatsAppConversation;
test.before(async () => {
  setup = await whatsappConversation();
});
test.after.always(() => setup?.close());

const textsTo = (phone: string) => setup.fake.whatsappSent.filter((m) => m.to === phone).map((m) => m.body.text?.body as string);
const counted = async (businessId: string) =>
  (await query(setup.app, `select coalesce(sum(count), 0)::int as n from message_counters where business_id = $1`, [businessId]))[0].n as number;
const reply = (content: string) =>
  setup.app.request('POST', `/api/v1/conversations/${setup.conversationId}/messages`, { token: setup.owner.token, body: { content } });
const retry = (messageId: string, token = setup.owner.token, conversationId = setup.conversationId) =>
  setup.app.request('POST', `/api/v1/conversations/${conversationId}/messages/${messageId}/retry`, { token });
const messageRow = async (id: string) =>
  (await query(setup.app, 'select delivery_status, error, external_id, created_at, delivery_attempts from messages where id = $1', [id]))[0];

/** Runs the delivery worker until `check` holds. */
async function delivered<T>(check: () => Promise<T | null | undefined | false>, what: string): Promise<T> {
  const worker = await startTestWorker(setup.app, { only: ['deliver_message'] });
  try {
    return await waitFor(check, 15_000, what);
  } finally {
    await worker.stop();
  }
}

test.serial('a refused reply sent again reaches the customer once, after the reply sent meanwhile, and is not counted again', async (t) => {
  const { app, fake, customerPhone, conversationId, owner } = setup;
  const before = textsTo(customerPhone).length;
  fake.failNext(1, { status: 400, code: 131026, message: 'Message Undeliverable' }, (r) => r.method === 'POST' && r.path.endsWith('/messages'));
  const refused = await reply('Your parcel left today.');
  t.is(refused.status, 200, refused.text);
  const failed = await delivered(async () => {
    const row = await messageRow(refused.body.id);
    return row.delivery_status === 'failed' ? row : null;
  }, 'the refused reply failed');
  t.regex(failed.error, /Undeliverable/);
  const later = await reply('Tracking number: 123.');
  await delivered(async () => textsTo(customerPhone).length > before || null, 'the later reply sent');
  const countedBefore = await counted(owner.businessId);
  const [{ last_message_at: lastBefore }] = await query(app, 'select last_message_at from conversations where id = $1', [conversationId]);

  const mark = app.events.length;
  const again = await retry(refused.body.id);
  t.is(again.status, 200, again.text);
  t.like(again.body, { id: refused.body.id, delivery_status: 'queued', error: null, content: 'Your parcel left today.' });
  t.true(new Date(again.body.created_at) > new Date(later.body.created_at), 'stored as if now: after the reply sent meanwhile');
  const [{ last_message_at: lastAfter }] = await query(app, 'select last_message_at from conversations where id = $1', [conversationId]);
  t.true(new Date(lastAfter) > new Date(lastBefore));
  const events = app.events.slice(mark).map((e) => e.name);
  t.true(events.includes('message_updated') && events.includes('conversation_updated'), events.join());

  const sent = await delivered(async () => {
    const row = await messageRow(refused.body.id);
    return row.delivery_status === 'sent' ? row : null;
  }, 'sent again');
  t.truthy(sent.external_id);
  t.is(sent.delivery_attempts, 0);
  t.deepEqual(textsTo(customerPhone).slice(before), ['Tracking number: 123.', 'Your parcel left today.'], 'once, in the order stored');
  t.is(await counted(owner.businessId), countedBefore, 'counted when first stored, not again');

  // Sent now: a second retry is refused, nothing sent.
  const twice = await retry(refused.body.id);
  t.is(twice.status, 409, twice.text);
  t.is(twice.body.detail, 'Only a reply that failed can be sent again');
});

test.serial('only a failed reply of the conversation can be sent again; nothing changes otherwise', async (t) => {
  const { app, conversationId, owner } = setup;
  const [customerMessage] = await query(app, `select id from messages where conversation_id = $1 and sender_type = 'customer' limit 1`, [conversationId]);
  const note = await app.request('POST', `/api/v1/conversations/${conversationId}/messages`, {
    token: owner.token,
    body: { content: 'Checked with the courier', private: true },
  });
  await query(app, `update messages set delivery_status = 'failed', error = 'x' where id = $1`, [note.body.id]);
  for (const id of [customerMessage.id, note.body.id]) {
    const res = await retry(id);
    t.is(res.status, 409, res.text);
  }
  t.is((await messageRow(note.body.id)).delivery_status, 'failed', 'a note is never delivered');

  // Another business, another conversation, an unknown id: 404.
  const refused = await reply('Refused again');
  await query(app, `update messages set delivery_status = 'failed', error = 'Refused' where id = $1`, [refused.body.id]);
  // As the drain leaves a reply whose attempts ran out: a failed job for the operator.
  const [job] = await query(app, `select id from graphile_worker.add_job('deliver_message', json_build_object('message_id', $1::text), max_attempts => 1)`, [
    refused.body.id,
  ]);
  await query(app, `select graphile_worker.permanently_fail_jobs(array[$1::bigint], 'Delivery failed after 25 attempts: Refused')`, [job.id]);
  const other = await createWorkspace(app, { plan: 'Pro' });
  t.is((await retry(refused.body.id, other.token)).status, 404);
  t.is((await retry(refused.body.id, owner.token, '00000000-0000-4000-8000-000000000000')).status, 404);
  t.is((await retry('00000000-0000-4000-8000-000000000001')).status, 404);
  t.like(await messageRow(refused.body.id), { delivery_status: 'failed', error: 'Refused' });

  // WhatsApp's window closed: a free-form reply cannot go, 422 as for a new reply.
  await query(app, `update conversations set reply_window_expires_at = now() - interval '1 minute' where id = $1`, [conversationId]);
  const closed = await retry(refused.body.id);
  t.is(closed.status, 422, closed.text);
  t.is(closed.body.detail[0].type, 'reply_window_closed');
  t.like(await messageRow(refused.body.id), { delivery_status: 'failed', error: 'Refused' });
  await query(app, `update conversations set reply_window_expires_at = now() + interval '1 day' where id = $1`, [conversationId]);
  t.deepEqual(
    await query(app, 'select id from graphile_worker.jobs where id = $1', [job.id]),
    [job].map((j) => ({ id: j.id })),
    'kept while refused',
  );
  t.is((await retry(refused.body.id)).status, 200);
  t.deepEqual(await query(app, 'select id from graphile_worker.jobs where id = $1', [job.id]), [], "the operator's failed job is settled");
  await delivered(async () => (await messageRow(refused.body.id)).delivery_status === 'sent' || null, 'sent');
});

test.serial('a scheduled reply that failed at its release, never counted, is counted when sent again', async (t) => {
  const { app, conversationId, owner } = setup;
  const scheduled = await app.request('POST', `/api/v1/conversations/${conversationId}/messages`, {
    token: owner.token,
    body: { content: 'Reminder: your return label', send_at: new Date(Date.now() + 3_600_000).toISOString() },
  });
  t.is(scheduled.status, 200, scheduled.text);
  // As releaseScheduledReply leaves one at the monthly limit: failed, never counted, created before its time.
  await query(
    app,
    `update messages set delivery_status = 'failed', error = 'The plan''s monthly message limit was reached at the scheduled time', send_at = now() where id = $1`,
    [scheduled.body.id],
  );
  const countedBefore = await counted(owner.businessId);
  const again = await retry(scheduled.body.id);
  t.is(again.status, 200, again.text);
  t.is(await counted(owner.businessId), countedBefore + 1);
  await delivered(async () => (await messageRow(scheduled.body.id)).delivery_status === 'sent' || null, 'sent');
});
