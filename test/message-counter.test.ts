/**
 * The monthly message count kept in slot rows (migration 0022): a business's concurrent replies
 * count on different rows, and the limit stays exact — under a burst from a fresh month, across
 * a plan change in either direction.
 */
import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';

let app: TestApp;

test.before(async () => {
  app = await startTestApp();
});

test.after.always(async () => {
  await app?.close();
});

async function conversations(ws: Workspace, n: number): Promise<string[]> {
  const ids = [];
  for (let i = 0; i < n; i += 1) {
    const res = await app.request('POST', '/api/v1/conversations/', { token: ws.token, body: { business_id: ws.businessId } });
    if (res.status !== 200) throw new Error(`conversation: ${res.status} ${res.text}`);
    ids.push(res.body.id);
  }
  return ids;
}

/** `n` replies at once, spread over the conversations; answers their statuses. */
async function burst(ws: Workspace, ids: string[], n: number): Promise<number[]> {
  return Promise.all(
    Array.from(
      { length: n },
      async (_, i) =>
        (await app.request('POST', `/api/v1/conversations/${ids[i % ids.length]}/messages`, { token: ws.token, body: { content: `reply ${i}` } })).status,
    ),
  );
}

const counted = async (businessId: string) =>
  (await app.sql(`select coalesce(sum(count), 0)::int as n, count(*)::int as slots from message_counters where business_id = $1`, [businessId]))[0];
const stored = async (businessId: string) =>
  (await app.sql(`select count(*)::int as n from messages where business_id = $1 and sender_type = 'agent'`, [businessId]))[0].n as number;

test.serial('a burst of 300 replies on a fresh Free month: exactly 250 sent and counted (over several slot rows), 50 refused', async (t) => {
  const ws = await createWorkspace(app);
  const ids = await conversations(ws, 6);
  const statuses = await burst(ws, ids, 300);
  t.is(statuses.filter((s) => s === 200).length, 250);
  t.is(statuses.filter((s) => s === 403).length, 50);
  t.is(await stored(ws.businessId), 250);
  const { n, slots } = await counted(ws.businessId);
  t.is(n, 250);
  t.true(slots > 1, 'the count is spread over slots');
  const plan = await app.request('GET', '/api/v1/business/plan', { token: ws.token });
  t.is(plan.body.usage.messages_this_month, 250);
});

test.serial('a plan change voids the split: an upgrade sends past the old limit, a downgrade stops at the new one exactly', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const ids = await conversations(ws, 4);
  t.deepEqual(new Set(await burst(ws, ids, 40)), new Set([200]), 'quotas split from 5,000');
  // Down to Free (250) with 40 counted: the Mini quotas must not let more than 210 through.
  await app.sql(`update businesses set plan = 'Free' where id = $1`, [ws.businessId]);
  const down = await burst(ws, ids, 260);
  t.is(down.filter((s) => s === 200).length, 210);
  t.is((await counted(ws.businessId)).n, 250);
  // Up to Mini again: sending goes on past 250.
  await app.sql(`update businesses set plan = 'Mini' where id = $1`, [ws.businessId]);
  t.deepEqual(new Set(await burst(ws, ids, 30)), new Set([200]));
  t.is((await counted(ws.businessId)).n, 280);
  t.is(await stored(ws.businessId), 280);
});
