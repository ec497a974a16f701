/**
 * A website visitor's files (issue #19 item 3): POST /visitor/uploads takes an image or a PDF
 * with the agent upload's limits, rate-limited per visitor; the message carrying it shows the
 * file to the agents with its stored name, type and size; refusals change nothing.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import {
  VISITOR_UPLOAD_BYTES_PER_BUSINESS,
  VISITOR_UPLOAD_RATE,
  VISITOR_UPLOAD_RATE_PER_ADDRESS,
  VISITOR_UPLOAD_RATE_PER_WIDGET,
} from '../core/commands/visitors.ts';
import { removeUnattachedUploads } from '../core/commands/uploads-housekeeping.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';

let app: TestApp;
test.before(async () => {
  // Uploads count per client address too: each visitor here sends its own X-Forwarded-For.
  app = await startTestApp({ env: { TRUST_PROXY_HOPS: '1' } });
});
/** Each visitor's client address (X-Forwarded-For), by visitor token. */
const addressOf = new Map<string, string>();
test.after.always(() => app?.close());

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwAFCwJ/lxjv3QAAAABJRU5ErkJggg==', 'base64');

async function visitorOf(options: { ws?: Workspace; widgetId?: string; address?: string } = {}): Promise<{ ws: Workspace; token: string; widgetId: string }> {
  const ws = options.ws ?? (await createWorkspace(app, { plan: 'Pro' }));
  const widgetId =
    options.widgetId ??
    (await app.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: `${randomBytes(4).toString('hex')}.example.com` } })).body.id;
  const address = options.address ?? `10.1.${randomBytes(2).join('.')}`;
  const session = await app.request('POST', '/api/v1/visitor/sessions', { body: { widget_id: widgetId }, headers: { 'x-forwarded-for': address } });
  if (session.status !== 200) throw new Error(session.text);
  addressOf.set(session.body.visitor_token, address);
  return { ws, token: session.body.visitor_token, widgetId };
}

async function upload(token: string | null, name: string, type: string, bytes: Uint8Array = PNG) {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), name);
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}`, 'x-forwarded-for': addressOf.get(token) ?? '10.9.9.9' } : {};
  const res = await fetch(`${app.url}/api/v1/visitor/uploads`, { method: 'POST', headers, body: form });
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

test('issue #36 item 4: a new session does not reset the count: uploads are counted per client address and per widget too', async (t) => {
  const address = `10.2.${randomBytes(2).join('.')}`;
  const first = await visitorOf({ address });
  for (let i = 0; i < VISITOR_UPLOAD_RATE.limit; i++) t.is((await upload(first.token, `a${i}.png`, 'image/png')).status, 200, `upload ${i + 1}`);
  // A second session from the same address (the probe): only the address's remaining allowance.
  const second = await visitorOf({ ws: first.ws, widgetId: first.widgetId, address });
  for (let i = VISITOR_UPLOAD_RATE.limit; i < VISITOR_UPLOAD_RATE_PER_ADDRESS.limit; i++)
    t.is((await upload(second.token, `b${i}.png`, 'image/png')).status, 200);
  const refused = await upload(second.token, 'over.png', 'image/png');
  t.is(refused.status, 429);
  t.true(Number(refused.headers.get('retry-after')) >= 1);
  // Another address may, until the widget's own budget is spent.
  const elsewhere = await visitorOf({ ws: first.ws, widgetId: first.widgetId });
  t.is((await upload(elsewhere.token, 'fine.png', 'image/png')).status, 200);
  await app.sql(`update rate_windows set count = $2 where key = $1`, [`upload:widget:${first.widgetId}`, VISITOR_UPLOAD_RATE_PER_WIDGET.limit]);
  t.is((await upload((await visitorOf({ ws: first.ws, widgetId: first.widgetId })).token, 'w.png', 'image/png')).status, 429);
  t.is((await upload((await visitorOf()).token, 'other-business.png', 'image/png')).status, 200, 'another widget is unaffected');
});

test('issue #36 item 4: visitors of one business may hold at most 50 MiB of recent uploads; unused ones go after an hour', async (t) => {
  const { ws, token } = await visitorOf();
  // Earlier visitor uploads of this business filling the window (rows, as the probe's sessions left them).
  await app.sql(
    `insert into uploads (business_id, storage_key, filename, content_type, size, source, driver)
     values ($1, $2, 'big.png', 'image/png', $3, 'upload', 'postgres')`,
    [ws.businessId, `flood-${randomBytes(6).toString('hex')}`, VISITOR_UPLOAD_BYTES_PER_BUSINESS - 10],
  );
  const refused = await upload(token, 'one-more.png', 'image/png');
  t.is(refused.status, 429);
  t.regex(refused.body.detail, /visitors/);
  // An agent's upload is not the visitors' budget.
  const conv = (await app.request('POST', '/api/v1/conversations', { token: ws.token, body: { business_id: ws.businessId } })).body.id;
  const form = new FormData();
  form.append('file', new Blob([PNG], { type: 'image/png' }), 'agent.png');
  t.is(
    (await fetch(`${app.url}/api/v1/conversations/${conv}/upload`, { method: 'POST', headers: { authorization: `Bearer ${ws.token}` }, body: form })).status,
    200,
  );
  // Unused visitor files are swept after an hour; an agent's unused one stays for its day.
  await app.sql(`update uploads set created_at = now() - interval '61 minutes' where business_id = $1`, [ws.businessId]);
  await removeUnattachedUploads(app.deps.db, app.deps.config);
  const left = await app.sql(`select filename from uploads where business_id = $1 order by filename`, [ws.businessId]);
  t.deepEqual(
    left.map((r: any) => r.filename),
    ['agent.png'],
  );
  t.is((await upload(token, 'now-fine.png', 'image/png')).status, 200);
});
