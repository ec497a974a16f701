/**
 * Scheduled send (issue #22 item 5) through a WhatsApp channel on the fake Graph API: a reply
 * with `send_at` is stored `scheduled` (not delivered, not counted, not the conversation's last
 * message), goes out at its time through the conversation's delivery drain in order, can be
 * edited or cancelled until then and is refused (409) after; the crontab net releases a due
 * reply whose job is gone. And a customer message wakes a snoozed conversation.
 */
import test from 'ava';
import { whatsappTextPayload } from './fakes/meta.ts';
import { whatsappConversation, type WhatsAppConversation } from './helpers/whatsapp-conversation.ts';
import { createWorkspace } from './helpers/fixtures.ts';
import { query, startTestWorker, waitFor } from './helpers/worker.ts';
import { releaseDueReplies } from '../core/commands/scheduled-replies.ts';
import { crontab } from '../workers/crontab.ts';

let setup: WhatsAppConversation;
test.before(async () => {
  setup = await whatsappConversation();
});
test.after.always(() => setup?.close());

const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();
const textsTo = (phone: string) => setup.fake.whatsappSent.filter((m) => m.to === phone).map((m) => m.body.text?.body as string);
const counted = async (businessId: string) =>
  (await query(setup.app, `select coalesce(sum(count), 0)::int as n from message_counters where business_id = $1`, [businessId]))[0].n as number;
const schedule = (conversationId: string, body: Record<string, unknown>) =>
  setup.app.request('POST', `/api/v1/conversations/${conversationId}/messages`, { token: setup.owner.token, body });
const jobOf = async (messageId: string) =>
  (await query(setup.app, `select run_at from graphile_worker._private_jobs where key = $1`, [`scheduled:${messageId}`]))[0] as { run_at: Date } | undefined;

/** The customer writes again; the inbound drain stores it. */
async function customerWrites(id: string, text: string): Promise<void> {
  const { app, customerPhone } = setup;
  const res = await fetch(`${app.url}/api/v1/webhooks/whatsapp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(whatsappTextPayload({ phoneNumberId: '1066', from: customerPhone, id, text })),
  });
  if (res.status !== 200) throw new Error(await res.text());
  const worker = await startTestWorker(app, { only: ['process_inbound'] });
  try {
    await waitFor(async () => (await query(app, 'select 1 from messages where external_id = $1', [id])).length > 0 || null);
  } finally {
    await worker.stop();
  }
}

test.serial('a customer message wakes a conversation snoozed until they reply, and one snoozed until a time', async (t) => {
  const { app, owner, conversationId } = setup;
  for (const body of [{ until_customer_replies: true }, { until: inSeconds(3600) }]) {
    const snoozed = await app.request('PUT', `/api/v1/conversations/${conversationId}/snooze`, { token: owner.token, body });
    t.is(snoozed.status, 200, snoozed.text);
    t.true(snoozed.body.snoozed);
    const mark = app.events.length;
    await customerWrites(`wamid.wake-${Object.keys(body)[0]}`, 'Any news?');
    const row = (await query(app, 'select snoozed_at, snoozed_until, status from conversations where id = $1', [conversationId]))[0];
    t.deepEqual(row, { snoozed_at: null, snoozed_until: null, status: 'open' });
    const events = app.events.slice(mark).filter((e) => e.name === 'conversation_updated' && e.payload.conversation_id === conversationId);
    t.true(events.length >= 1);
    t.like((events.at(-1)!.payload as any).conversation, { snoozed: false, snoozed_until: null });
    const listed = await app.request('GET', '/api/v1/conversations', { token: owner.token, query: { snoozed: 'false', status: 'open' } });
    t.true(
      listed.body.some((c: any) => c.id === conversationId),
      'back in the open view',
    );
  }
});

test.serial('a scheduled reply is stored scheduled, goes out at its time after a reply sent meanwhile, and is counted then', async (t) => {
  const { app, owner, conversationId, customerPhone } = setup;
  const before = textsTo(customerPhone).length;
  const countedBefore = await counted(owner.businessId);
  const sendAt = inSeconds(2);
  const scheduled = await schedule(conversationId, { content: 'Following up as promised', send_at: sendAt });
  t.is(scheduled.status, 200, scheduled.text);
  t.like(scheduled.body, { delivery_status: 'scheduled', sender_type: 'agent', private: false });
  t.is(new Date(scheduled.body.send_at).getTime(), new Date(sendAt).getTime());
  t.truthy(await jobOf(scheduled.body.id), 'its job waits for send_at');
  t.is(await counted(owner.businessId), countedBefore, 'not counted while scheduled');
  const listed = await app.request('GET', '/api/v1/conversations', { token: owner.token });
  t.not(listed.body.find((c: any) => c.id === conversationId).last_message?.id, scheduled.body.id, 'not the last message the customer can see');

  // A reply sent now goes out first.
  const now = await schedule(conversationId, { content: 'Quick answer now' });
  t.is(now.status, 200);
  const worker = await startTestWorker(app, { only: ['deliver_message', 'send_scheduled_reply'] });
  try {
    await waitFor(async () => textsTo(customerPhone).length - before >= 1 || null, 10_000, 'the immediate reply');
    t.deepEqual(textsTo(customerPhone).slice(before), ['Quick answer now'], 'the scheduled one waits');
    t.is((await query(app, 'select delivery_status from messages where id = $1', [scheduled.body.id]))[0].delivery_status, 'scheduled');
    await waitFor(async () => textsTo(customerPhone).length - before >= 2 || null, 20_000, 'the scheduled reply at its time');
  } finally {
    await worker.stop();
  }
  t.deepEqual(textsTo(customerPhone).slice(before), ['Quick answer now', 'Following up as promised']);
  const row = (await query(app, 'select delivery_status, created_at, send_at, external_id from messages where id = $1', [scheduled.body.id]))[0];
  t.is(row.delivery_status, 'sent');
  t.truthy(row.external_id);
  t.true(row.created_at.getTime() >= new Date(sendAt).getTime(), 'its place in the thread is when it went out');
  t.is(await counted(owner.businessId), countedBefore + 2, 'counted when it went out');
  const thread = await app.request('GET', `/api/v1/conversations/${conversationId}/messages`, { token: owner.token });
  t.deepEqual(
    thread.body.slice(-2).map((m: any) => m.content),
    ['Quick answer now', 'Following up as promised'],
  );

  // Gone out: no edit, no cancel.
  const edit = await app.request('PATCH', `/api/v1/conversations/${conversationId}/messages/${scheduled.body.id}`, {
    token: owner.token,
    body: { content: 'Too late' },
  });
  t.is(edit.status, 409);
  t.regex(edit.body.detail, /no longer scheduled/);
  t.is((await app.request('DELETE', `/api/v1/conversations/${conversationId}/messages/${scheduled.body.id}`, { token: owner.token })).status, 409);
});

test.serial('edit and cancel before it goes out; another business gets 404; notes and past times are refused', async (t) => {
  const { app, owner, conversationId, customerPhone } = setup;
  const sent = textsTo(customerPhone).length;
  const first = await schedule(conversationId, { content: 'Draft', send_at: inSeconds(3600) });
  t.is(first.status, 200, first.text);
  const later = new Date(Date.now() + 7200_000);
  const mark = app.events.length;
  const edited = await app.request('PATCH', `/api/v1/conversations/${conversationId}/messages/${first.body.id}`, {
    token: owner.token,
    body: { content: 'Final text', send_at: later.toISOString() },
  });
  t.is(edited.status, 200, edited.text);
  t.like(edited.body, { id: first.body.id, content: 'Final text', delivery_status: 'scheduled' });
  t.is(new Date(edited.body.send_at).getTime(), later.getTime());
  t.is((await jobOf(first.body.id))!.run_at.getTime(), later.getTime(), 'its job moved');
  t.true(app.events.slice(mark).some((e) => e.name === 'message_updated' && e.payload.message_id === first.body.id));

  const other = await createWorkspace(app);
  const path = `/api/v1/conversations/${conversationId}/messages/${first.body.id}`;
  t.is((await app.request('PATCH', path, { token: other.token, body: { content: 'x' } })).status, 404);
  t.is((await app.request('DELETE', path, { token: other.token })).status, 404);

  const cancelMark = app.events.length;
  const cancelled = await app.request('DELETE', path, { token: owner.token });
  t.deepEqual([cancelled.status, cancelled.body], [200, { deleted: true }]);
  t.is((await query(app, 'select 1 from messages where id = $1', [first.body.id])).length, 0);
  t.is(await jobOf(first.body.id), undefined, 'its job is gone');
  const deleted = app.events.slice(cancelMark).filter((e) => e.name === 'message_deleted');
  t.is(deleted.length, 1);
  t.deepEqual(deleted[0]!.rooms, [`business:${owner.businessId}`, `conversation:${conversationId}`]);
  t.is((await app.request('DELETE', path, { token: owner.token })).status, 404);

  // A plain reply or a note is not a scheduled reply: 409.
  const note = await schedule(conversationId, { content: 'Internal', private: true });
  t.is(
    (await app.request('PATCH', `/api/v1/conversations/${conversationId}/messages/${note.body.id}`, { token: owner.token, body: { content: 'x' } })).status,
    409,
  );
  const scheduledNote = await schedule(conversationId, { content: 'Internal', private: true, send_at: inSeconds(60) });
  t.deepEqual([scheduledNote.status, scheduledNote.body], [400, { detail: 'A private note cannot be scheduled' }]);
  for (const send_at of [inSeconds(-5), 'soon', inSeconds(400 * 86400)]) t.is((await schedule(conversationId, { content: 'x', send_at })).status, 422, send_at);
  const emptyEdit = await schedule(conversationId, { content: 'Another', send_at: inSeconds(3600) });
  t.is((await app.request('PATCH', `/api/v1/conversations/${conversationId}/messages/${emptyEdit.body.id}`, { token: owner.token, body: {} })).status, 422);
  t.is(
    (
      await app.request('PATCH', `/api/v1/conversations/${conversationId}/messages/${emptyEdit.body.id}`, {
        token: owner.token,
        body: { send_at: inSeconds(-1) },
      })
    ).status,
    422,
  );
  await app.request('DELETE', `/api/v1/conversations/${conversationId}/messages/${emptyEdit.body.id}`, { token: owner.token });
  t.is(textsTo(customerPhone).length, sent, 'nothing reached the customer');
});

test.serial('the crontab net releases a due reply whose job is gone; a reply whose channel was deleted fails with the reason', async (t) => {
  const { app, conversationId, customerPhone } = setup;
  t.true(crontab.some((c) => c.task === 'release_scheduled_replies' && c.match === '* * * * *'));
  const before = textsTo(customerPhone).length;
  const missed = await schedule(conversationId, { content: 'Released by the minute job', send_at: inSeconds(3600) });
  t.is(missed.status, 200);
  // Its time came while its job was lost.
  await query(app, `select graphile_worker.remove_job($1)`, [`scheduled:${missed.body.id}`]);
  await query(app, `update messages set send_at = now() - interval '1 second' where id = $1`, [missed.body.id]);
  const released = await releaseDueReplies(app.deps);
  t.true(released >= 1);
  t.is((await query(app, 'select delivery_status from messages where id = $1', [missed.body.id]))[0].delivery_status, 'queued');
  const worker = await startTestWorker(app, { only: ['deliver_message'] });
  try {
    await waitFor(async () => textsTo(customerPhone).length > before || null, 10_000, 'delivered');
  } finally {
    await worker.stop();
  }
  t.deepEqual(textsTo(customerPhone).slice(before), ['Released by the minute job']);
  t.is(await releaseDueReplies(app.deps), 0, 'nothing twice');

  // The channel goes before the time comes: the reply fails with the reason, nothing is counted.
  const orphan = await schedule(conversationId, { content: 'Nowhere to go', send_at: inSeconds(3600) });
  const channelId = (await query(app, 'select channel_id from conversations where id = $1', [conversationId]))[0].channel_id;
  const removed = await app.request('DELETE', `/api/v1/channels/${channelId}`, { token: setup.owner.token });
  t.is(removed.status, 200, removed.text);
  await query(app, `update messages set send_at = now() - interval '1 second' where id = $1`, [orphan.body.id]);
  const countedBefore = await counted(setup.owner.businessId);
  const mark = app.events.length;
  await releaseDueReplies(app.deps);
  const row = (await query(app, 'select delivery_status, error from messages where id = $1', [orphan.body.id]))[0];
  t.deepEqual(row, { delivery_status: 'failed', error: "The conversation's channel was deleted before the scheduled time" });
  t.is(await counted(setup.owner.businessId), countedBefore);
  t.true(app.events.slice(mark).some((e) => e.name === 'message_updated' && e.payload.message_id === orphan.body.id));
});
