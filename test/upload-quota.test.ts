/**
 * Files against the plan (issue #21 item 9): a business stores at most its plan's bytes of
 * files (402 limit_exceeded/storage, nothing kept), and uploads no message used are removed
 * after a day while those a message carries stay.
 */
import test from 'ava';
import { removeUnattachedUploads } from '../core/commands/uploads-housekeeping.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
  // This file's database only: a Mini plan that stores 100 bytes of files.
  await app.sql(`update plans set max_storage_bytes = 100 where name = 'Mini'`);
});
test.after.always(() => app?.close());

async function conversation(ws: Workspace): Promise<string> {
  const res = await app.request('POST', '/api/v1/conversations/', { token: ws.token, body: { business_id: ws.businessId } });
  if (res.status !== 200) throw new Error(`create conversation failed: ${res.status} ${res.text}`);
  return res.body.id;
}

async function upload(ws: Workspace, conversationId: string, bytes: number, name = 'photo.png') {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes).fill(7)], { type: 'image/png' }), name);
  const res = await fetch(`${app.url}/api/v1/conversations/${conversationId}/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ws.token}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}

const stored = async (businessId: string) =>
  Number((await app.sql(`select coalesce(sum(size), 0) as s from uploads where business_id = $1`, [businessId]))[0].s);

test("the plan's storage: files up to the limit are kept, the one past it is 402 limit_exceeded/storage and leaves nothing", async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const id = await conversation(ws);
  t.is((await upload(ws, id, 60)).status, 200);
  t.is((await upload(ws, id, 40)).status, 200, 'exactly at the limit');
  const refused = await upload(ws, id, 1, 'one-more.png');
  t.is(refused.status, 402);
  t.like(refused.body, { error: 'limit_exceeded', plan: 'Mini', feature: 'storage', current: 101, limit: 100 });
  t.is(typeof refused.body.message, 'string');
  t.is(await stored(ws.businessId), 100);
  t.is((await app.sql(`select count(*)::int as n from uploads where business_id = $1 and filename = 'one-more.png'`, [ws.businessId]))[0].n, 0);
  // Another business has its own room.
  const other = await createWorkspace(app, { plan: 'Mini' });
  t.is((await upload(other, await conversation(other), 100)).status, 200);
});

test('an upload no message used is removed after a day; one a message carries, or a newer one, stays', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const id = await conversation(ws);
  const used = (await upload(ws, id, 10, 'sent.png')).body;
  const abandoned = (await upload(ws, id, 10, 'draft.png')).body;
  const fresh = (await upload(ws, id, 10, 'fresh.png')).body;
  const sent = await app.request('POST', `/api/v1/conversations/${id}/messages`, {
    token: ws.token,
    body: { content: 'Here it is', attachments: [{ url: used.url }] },
  });
  t.is(sent.status, 200, sent.text);
  await app.sql(`update uploads set created_at = now() - interval '2 days' where business_id = $1 and filename in ('sent.png', 'draft.png')`, [ws.businessId]);
  const removed = await removeUnattachedUploads(app.deps.db, app.deps.config);
  t.true(removed >= 1);
  const left = (await app.sql(`select filename from uploads where business_id = $1 order by filename`, [ws.businessId])).map((r: any) => r.filename);
  t.deepEqual(left, ['fresh.png', 'sent.png']);
  t.is((await fetch(abandoned.url)).status, 404);
  t.is((await fetch(used.url)).status, 200);
  t.is((await fetch(fresh.url)).status, 200);
});
