/**
 * A website visitor's files (issue #19 item 3): POST /visitor/uploads takes an image or a PDF
 * with the agent upload's limits, rate-limited per visitor; the message carrying it shows the
 * file to the agents with its stored name, type and size; refusals change nothing.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { VISITOR_UPLOAD_RATE } from '../core/commands/visitors.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwAFCwJ/lxjv3QAAAABJRU5ErkJggg==', 'base64');

async function visitorOf(): Promise<{ ws: Workspace; token: string }> {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const widget = await app.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: `${randomBytes(4).toString('hex')}.example.com` } });
  const session = await app.request('POST', '/api/v1/visitor/sessions', {
    body: { widget_id: widget.body.id },
    headers: { 'x-forwarded-for': `10.1.${randomBytes(2).join('.')}` },
  });
  if (session.status !== 200) throw new Error(session.text);
  return { ws, token: session.body.visitor_token };
}

async function upload(token: string | null, name: string, type: string, bytes: Uint8Array = PNG) {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), name);
  const res = await fetch(`${app.url}/api/v1/visitor/uploads`, { method: 'POST', headers: token ? { authorization: `Bearer ${token}` } : {}, body: form });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

test('a visitor uploads a screenshot and sends it: the agents see the file with its stored name, type and size', async (t) => {
  const { ws, token } = await visitorOf();
  const up = await upload(token, 'screenshot.png', 'image/png');
  t.is(up.status, 200, JSON.stringify(up.body));
  t.like(up.body, { filename: 'screenshot.png', content_type: 'image/png', size: PNG.length });
  t.is(Buffer.from(await (await fetch(up.body.url)).arrayBuffer()).compare(PNG), 0, 'the same bytes back');
  // The widget's claims about the file are replaced by what was stored.
  const sent = await app.request('POST', '/api/v1/visitor/messages', {
    body: { content: 'Here is the error', attachments: [{ url: up.body.url, filename: 'evil.html', content_type: 'text/html', size: 1 }] },
    headers: { authorization: `Bearer ${token}` },
  });
  t.is(sent.status, 200, sent.text);
  const list = await app.request('GET', '/api/v1/conversations', { token: ws.token });
  const thread = await app.request('GET', `/api/v1/conversations/${list.body[0].id}/messages`, { token: ws.token });
  t.like(thread.body.at(-1).attachments[0], { url: up.body.url, filename: 'screenshot.png', content_type: 'image/png', size: PNG.length });
  const [row] = await app.sql(`select conversation_id, source from uploads where business_id = $1`, [ws.businessId]);
  t.is(row.source, 'upload');
});

test("refusals: another type 415, no file 422, no token 401, another business's upload URL 422; nothing stored", async (t) => {
  const { ws, token } = await visitorOf();
  t.is((await upload(token, 'page.html', 'text/html', Buffer.from('<script>1</script>'))).status, 415);
  t.is((await upload(token, 'notes.txt', 'text/plain', Buffer.from('hello'))).status, 415, 'images and PDFs only');
  t.is((await upload(null, 'a.png', 'image/png')).status, 401);
  const empty = await fetch(`${app.url}/api/v1/visitor/uploads`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: new FormData() });
  t.is(empty.status, 422);
  t.is((await app.sql(`select count(*)::int as n from uploads where business_id = $1`, [ws.businessId]))[0].n, 0);
  const other = await visitorOf();
  const theirs = await upload(other.token, 'theirs.pdf', 'application/pdf', Buffer.from('%PDF-1.4\n'));
  t.is(theirs.status, 200, JSON.stringify(theirs.body));
  const stolen = await app.request('POST', '/api/v1/visitor/messages', {
    body: { content: 'look', attachments: [{ url: theirs.body.url }] },
    headers: { authorization: `Bearer ${token}` },
  });
  t.is(stolen.status, 422);
  t.deepEqual(stolen.body.detail[0].loc, ['body', 'attachments', 0, 'url']);
});

test(`at most ${VISITOR_UPLOAD_RATE.limit} files per visitor an hour (429 with Retry-After), another visitor unaffected`, async (t) => {
  const { token } = await visitorOf();
  for (let i = 0; i < VISITOR_UPLOAD_RATE.limit; i++) t.is((await upload(token, `s${i}.png`, 'image/png')).status, 200, `upload ${i + 1}`);
  const refused = await upload(token, 'one-more.png', 'image/png');
  t.is(refused.status, 429);
  t.true(Number(refused.headers.get('retry-after')) >= 1);
  t.is((await upload((await visitorOf()).token, 'fine.png', 'image/png')).status, 200);
});
