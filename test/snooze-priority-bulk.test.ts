/**
 * Snooze, priority and bulk actions (issue #22 item 5): snooze and wake (by time through the
 * crontab job, by a member, by resolving), the open and Snoozed views, priority filter with
 * paging, bulk with mixed ids (own, foreign, unknown) and roles, events, isolation, bad input.
 * Waking by a customer message: test/scheduled-send.test.ts (it has a channel with customers).
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, registerUser, type Workspace } from './helpers/fixtures.ts';
import { waitFor } from './helpers/worker.ts';
import { wakeDueSnoozes } from '../core/commands/snooze.ts';
import wakeTask from '../workers/tasks/wake_snoozed_conversations.ts';
import { crontab } from '../workers/crontab.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

async function conversation(ws: Workspace): Promise<string> {
  const res = await app.request('POST', '/api/v1/conversations', { token: ws.token, body: { business_id: ws.businessId } });
  if (res.status !== 200) throw new Error(`create conversation failed: ${res.status} ${res.text}`);
  return res.body.id;
}

const list = (token: string, query: Record<string, string>) => app.request('GET', '/api/v1/conversations', { token, query });
const ids = (res: { body: any[] }) => res.body.map((c) => c.id);
const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();
const snooze = (token: string, id: string, body: unknown) => app.request('PUT', `/api/v1/conversations/${id}/snooze`, { token, body });
const updatedEvents = (mark: number, id: string): { rooms: string[]; payload: any }[] =>
  app.events.slice(mark).filter((e) => e.name === 'conversation_updated' && e.payload.conversation_id === id);

test('snooze until a time: leaves the open view, is in the Snoozed view, and the crontab job wakes it when due with conversation_updated', async (t) => {
  const ws = await createWorkspace(app);
  const a = await conversation(ws);
  const b = await conversation(ws);
  const mark = app.events.length;
  const until = inSeconds(1.5);
  const res = await snooze(ws.token, a, { until });
  t.is(res.status, 200, res.text);
  t.like(res.body, { id: a, status: 'open', snoozed: true });
  t.is(new Date(res.body.snoozed_until).getTime(), new Date(until).getTime());
  const snoozedEvent = updatedEvents(mark, a);
  t.is(snoozedEvent.length, 1);
  t.like(snoozedEvent[0]!.payload.conversation, { snoozed: true, snoozed_until: res.body.snoozed_until });

  t.deepEqual(ids(await list(ws.token, { status: 'open', snoozed: 'false' })), [b]);
  t.deepEqual(ids(await list(ws.token, { snoozed: 'true' })), [a]);
  t.deepEqual(ids(await list(ws.token, {})).sort(), [a, b].sort(), 'without the filter both are listed');

  // Not yet due: the job leaves it.
  await wakeDueSnoozes(app.deps);
  t.deepEqual(ids(await list(ws.token, { snoozed: 'true' })), [a]);

  // The crontab entry runs the task every minute; the task itself wakes it once due.
  t.true(crontab.some((c) => c.task === 'wake_snoozed_conversations' && c.match === '* * * * *'));
  const beforeWake = app.events.length;
  await waitFor(
    async () => {
      await wakeTask.run({}, app.deps, { logger: app.deps.logger } as any);
      return (await app.sql('select snoozed_at from conversations where id = $1', [a]))[0].snoozed_at === null;
    },
    10_000,
    'woken by the crontab job',
  );
  t.true(Date.now() >= new Date(until).getTime(), 'not before its time');
  const woke = updatedEvents(beforeWake, a);
  t.is(woke.length, 1);
  t.like(woke[0]!.payload.conversation, { snoozed: false, snoozed_until: null });
  t.deepEqual(ids(await list(ws.token, { status: 'open', snoozed: 'false' })), [a, b], 'back in the open view, moved up');
  t.deepEqual(ids(await list(ws.token, { snoozed: 'true' })), []);
});

test('snooze until the customer replies; DELETE wakes now; resolving wakes; resolved ones cannot be snoozed; bad input 422', async (t) => {
  const ws = await createWorkspace(app);
  const a = await conversation(ws);
  const res = await snooze(ws.token, a, { until_customer_replies: true });
  t.is(res.status, 200, res.text);
  t.like(res.body, { snoozed: true, snoozed_until: null });
  // The time-based job never wakes one that waits for the customer.
  await app.sql(`update conversations set snoozed_at = now() - interval '10 days' where id = $1`, [a]);
  await wakeDueSnoozes(app.deps);
  t.true((await app.request('GET', `/api/v1/conversations/${a}`, { token: ws.token })).body.snoozed);

  const mark = app.events.length;
  const woke = await app.request('DELETE', `/api/v1/conversations/${a}/snooze`, { token: ws.token });
  t.is(woke.status, 200, woke.text);
  t.like(woke.body, { snoozed: false, snoozed_until: null });
  t.is(updatedEvents(mark, a).length, 1);
  // Waking an awake one: unchanged, no event.
  const again = app.events.length;
  t.is((await app.request('DELETE', `/api/v1/conversations/${a}/snooze`, { token: ws.token })).status, 200);
  t.is(updatedEvents(again, a).length, 0);

  t.is((await snooze(ws.token, a, { until: inSeconds(3600) })).status, 200);
  t.is((await app.request('PUT', `/api/v1/conversations/${a}/resolve`, { token: ws.token })).status, 200);
  const row = (await app.sql('select status, snoozed_at, snoozed_until from conversations where id = $1', [a]))[0];
  t.deepEqual(row, { status: 'resolved', snoozed_at: null, snoozed_until: null });
  const refused = await snooze(ws.token, a, { until: inSeconds(3600) });
  t.deepEqual([refused.status, refused.body], [400, { detail: 'Only an open or pending conversation can be snoozed' }]);

  const b = await conversation(ws);
  for (const body of [
    {},
    { until: inSeconds(-60) },
    { until: 'tomorrow' },
    { until: inSeconds(3600), until_customer_replies: true },
    { until_customer_replies: false },
    { until: inSeconds(400 * 86400) },
  ]) {
    const bad = await snooze(ws.token, b, body);
    t.is(bad.status, 422, JSON.stringify(body));
  }
  t.is((await list(ws.token, { snoozed: 'maybe' })).status, 422);
  t.is((await snooze(ws.token, randomUUID(), { until_customer_replies: true })).status, 404);
});

test('priority: set, shown in lists and events, filtered with keyset paging; bad values 422', async (t) => {
  const ws = await createWorkspace(app);
  const made: string[] = [];
  for (let i = 0; i < 7; i++) made.push(await conversation(ws));
  const urgent = [made[0]!, made[2]!, made[4]!, made[6]!];
  const mark = app.events.length;
  for (const id of urgent) {
    const res = await app.request('PUT', `/api/v1/conversations/${id}/priority`, { token: ws.token, body: { priority: 'urgent' } });
    t.is(res.status, 200, res.text);
    t.is(res.body.priority, 'urgent');
  }
  const high = made[1]!;
  t.is((await app.request('PUT', `/api/v1/conversations/${high}/priority`, { token: ws.token, body: { priority: 'high' } })).status, 200);
  const event = updatedEvents(mark, made[0]!);
  t.is(event.length, 1);
  t.is(event[0]!.payload.conversation.priority, 'urgent');
  // Setting the same priority again: no event.
  const again = app.events.length;
  t.is((await app.request('PUT', `/api/v1/conversations/${made[0]}/priority`, { token: ws.token, body: { priority: 'urgent' } })).status, 200);
  t.is(updatedEvents(again, made[0]!).length, 0);

  const seen: string[] = [];
  let before: string | undefined;
  do {
    const res = await list(ws.token, before ? { priority: 'urgent', limit: '2', before } : { priority: 'urgent', limit: '2' });
    t.is(res.status, 200, res.text);
    t.true(res.body.length <= 2);
    t.true(res.body.every((c: any) => c.priority === 'urgent'));
    seen.push(...ids(res));
    before = res.headers.get('x-next-cursor') ?? undefined;
  } while (before);
  t.deepEqual(seen, [...urgent].reverse(), 'newest first, each once');
  t.deepEqual(ids(await list(ws.token, { priority: 'high,urgent' })).sort(), [...urgent, high].sort());
  t.is((await list(ws.token, { priority: 'none' })).body.length, 2);
  t.is((await list(ws.token, {})).body.find((c: any) => c.id === high).priority, 'high');

  t.is((await list(ws.token, { priority: 'critical' })).status, 422);
  t.is((await app.request('PUT', `/api/v1/conversations/${high}/priority`, { token: ws.token, body: { priority: 'critical' } })).status, 422);
  t.is((await app.request('PUT', `/api/v1/conversations/${randomUUID()}/priority`, { token: ws.token, body: { priority: 'low' } })).status, 404);
});

const bulk = (token: string, body: unknown) => app.request('POST', '/api/v1/conversations/bulk', { token, body });

test("bulk with mixed ids: own ones done, another business's and unknown ones not_found and untouched, in one answer per id", async (t) => {
  const ws = await createWorkspace(app);
  const other = await createWorkspace(app);
  const mine = [await conversation(ws), await conversation(ws), await conversation(ws)];
  const foreign = await conversation(other);
  const unknown = randomUUID();
  const given = [mine[0]!, foreign, mine[1]!, unknown, mine[2]!];

  const mark = app.events.length;
  const resolved = await bulk(ws.token, { ids: given, action: 'resolve' });
  t.is(resolved.status, 200, resolved.text);
  t.deepEqual(resolved.body.results, [
    { id: mine[0], ok: true, changed: true },
    { id: foreign, ok: false, error: 'not_found', detail: 'Conversation not found' },
    { id: mine[1], ok: true, changed: true },
    { id: unknown, ok: false, error: 'not_found', detail: 'Conversation not found' },
    { id: mine[2], ok: true, changed: true },
  ]);
  t.is((await app.sql('select status from conversations where id = $1', [foreign]))[0].status, 'open', "the other business's conversation is untouched");
  t.deepEqual((await app.sql(`select count(*)::int as n from conversations where id = any($1) and status = 'resolved'`, [mine]))[0].n, 3);
  const involved = new Set([...given]);
  const events = app.events.slice(mark).filter((e) => e.name === 'conversation_updated' && involved.has(e.payload.conversation_id as string));
  t.deepEqual(events.map((e) => e.payload.conversation_id).sort(), [...mine].sort(), 'one event per changed conversation, none for the foreign one');
  t.true(
    events.every((e) => e.rooms.every((r) => r === `business:${ws.businessId}`)),
    "events only to the caller's business",
  );

  // Resolving again: ok, nothing changed; a resolved one cannot be snoozed (invalid), an open one can.
  const open = await conversation(ws);
  const snoozed = await bulk(ws.token, { ids: [mine[0], open], action: 'snooze', until: inSeconds(3600) });
  t.deepEqual(snoozed.body.results, [
    { id: mine[0], ok: false, error: 'invalid', detail: 'Only an open or pending conversation can be snoozed' },
    { id: open, ok: true, changed: true },
  ]);
  const again = await bulk(ws.token, { ids: [mine[0]], action: 'resolve' });
  t.deepEqual(again.body.results, [{ id: mine[0], ok: true, changed: false }]);

  // Priority, labels (added, the others kept), close, snooze until the customer writes.
  t.deepEqual(
    (await bulk(ws.token, { ids: [open, foreign], action: 'priority', priority: 'high' })).body.results.map((r: any) => r.ok),
    [true, false],
  );
  t.is((await app.sql('select priority from conversations where id = $1', [foreign]))[0].priority, 'none');
  for (const name of ['VIP', 'Billing']) t.is((await app.request('POST', '/api/v1/labels', { token: ws.token, body: { name } })).status, 200);
  t.is((await app.request('PUT', `/api/v1/conversations/${open}/labels`, { token: ws.token, body: { labels: ['Billing'] } })).status, 200);
  const labelled = await bulk(ws.token, { ids: [open, mine[1]], action: 'label', labels: ['vip'] });
  t.deepEqual(labelled.body.results, [
    { id: open, ok: true, changed: true },
    { id: mine[1], ok: true, changed: true },
  ]);
  t.deepEqual((await app.request('GET', `/api/v1/conversations/${open}`, { token: ws.token })).body.labels, ['Billing', 'VIP']);
  const unknownLabel = await bulk(ws.token, { ids: [open], action: 'label', labels: ['Nope'] });
  t.deepEqual([unknownLabel.status, unknownLabel.body], [400, { detail: 'Unknown label: Nope' }]);
  const closed = await bulk(ws.token, { ids: [open], action: 'close' });
  t.deepEqual(closed.body.results, [{ id: open, ok: true, changed: true }]);
  t.like((await app.sql('select status, snoozed_at from conversations where id = $1', [open]))[0], { status: 'closed', snoozed_at: null });
});

test('bulk assign follows the policy table: anyone takes, only the owner or an admin assigns to others; roles are checked once for all ids', async (t) => {
  const ws = await createWorkspace(app);
  const agent = await addMember(app, ws.businessId, 'agent');
  const admin = await addMember(app, ws.businessId, 'admin');
  const a = await conversation(ws);
  const b = await conversation(ws);

  const taken = await bulk(agent.token, { ids: [a, b], action: 'assign', assignee_id: agent.userId });
  t.is(taken.status, 200, taken.text);
  t.deepEqual(
    taken.body.results.map((r: any) => r.ok),
    [true, true],
  );
  t.is((await app.sql('select count(*)::int as n from conversations where assignee_id = $1', [agent.userId]))[0].n, 2);

  const refused = await bulk(agent.token, { ids: [a, b], action: 'assign', assignee_id: admin.userId });
  t.deepEqual([refused.status, refused.body], [403, { detail: 'Only the owner or an admin can assign conversations to others' }]);
  t.is((await app.sql('select count(*)::int as n from conversations where assignee_id = $1', [agent.userId]))[0].n, 2, 'nothing changed');

  const byAdmin = await bulk(admin.token, { ids: [a, b], action: 'assign', assignee_id: ws.userId });
  t.deepEqual(
    byAdmin.body.results.map((r: any) => r.ok),
    [true, true],
  );
  const stranger = await createWorkspace(app);
  const notMember = await bulk(admin.token, { ids: [a], action: 'assign', assignee_id: stranger.userId });
  t.deepEqual([notMember.status, notMember.body], [400, { detail: 'Agent is not an active member of this business' }]);

  // Agents may do the rest (every member's policy lines).
  t.is((await bulk(agent.token, { ids: [a], action: 'priority', priority: 'low' })).status, 200);
  t.is((await bulk(agent.token, { ids: [a], action: 'snooze' })).status, 200);
  t.like((await app.sql('select snoozed_at is not null as snoozed, snoozed_until from conversations where id = $1', [a]))[0], {
    snoozed: true,
    snoozed_until: null,
  });
});

test('bulk: bad input is 422 (no ids, over 100, duplicates, unknown action, missing parameters), a caller without a business 404', async (t) => {
  const ws = await createWorkspace(app);
  const a = await conversation(ws);
  const many = Array.from({ length: 101 }, () => randomUUID());
  for (const body of [
    { ids: [], action: 'resolve' },
    { ids: many, action: 'resolve' },
    { ids: [a, a], action: 'resolve' },
    { ids: [a], action: 'explode' },
    { ids: [a], action: 'assign' },
    { ids: [a], action: 'priority', priority: 'asap' },
    { ids: [a], action: 'label', labels: [] },
    { ids: ['x'], action: 'resolve' },
    { ids: [a], action: 'snooze', until: inSeconds(-10) },
  ]) {
    const res = await bulk(ws.token, body);
    t.is(res.status, 422, JSON.stringify(body).slice(0, 80));
  }
  const hundred = Array.from({ length: 99 }, () => randomUUID());
  const ok = await bulk(ws.token, { ids: [a, ...hundred], action: 'close' });
  t.is(ok.status, 200);
  t.is(ok.body.results.length, 100);
  t.is(ok.body.results.filter((r: any) => r.ok).length, 1);

  const loner = await registerUser(app);
  t.is((await bulk(loner.token, { ids: [a], action: 'resolve' })).status, 404);
});

test('isolation: another business gets 404 on snooze, wake and priority of a conversation, and changes nothing', async (t) => {
  const ws = await createWorkspace(app);
  const other = await createWorkspace(app);
  const mine = await conversation(ws);
  const attempts = [
    await snooze(other.token, mine, { until_customer_replies: true }),
    await app.request('DELETE', `/api/v1/conversations/${mine}/snooze`, { token: other.token }),
    await app.request('PUT', `/api/v1/conversations/${mine}/priority`, { token: other.token, body: { priority: 'urgent' } }),
  ];
  for (const res of attempts) t.deepEqual([res.status, res.body], [404, { detail: 'Conversation not found' }]);
  t.deepEqual((await app.sql('select priority, snoozed_at from conversations where id = $1', [mine]))[0], { priority: 'none', snoozed_at: null });
  // Their lists never show it, snoozed or not.
  t.is((await snooze(ws.token, mine, { until_customer_replies: true })).status, 200);
  t.deepEqual(ids(await list(other.token, { snoozed: 'true' })), []);
});
