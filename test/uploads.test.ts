import test from 'ava';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

const MiB = 1024 * 1024;

async function startConversation(ws: Workspace): Promise<string> {
  const res = await app.request('POST', '/api/v1/conversations/', { token: ws.token, body: { business_id: ws.businessId } });
  if (res.status !== 200) throw new Error(`create conversation failed: ${res.status} ${res.text}`);
  return res.body.id;
}

async function upload(
  conversationId: string,
  options: { token?: string; field?: string; name?: string; type?: string; bytes?: Uint8Array; body?: FormData | string; headers?: Record<string, string> },
) {
  let body = options.body;
  if (!body) {
    const form = new FormData();
    form.append(
      options.field ?? 'file',
      new Blob([options.bytes ?? new Uint8Array([1, 2, 3])], { type: options.type ?? 'image/png' }),
      options.name ?? 'image.png',
    );
    form.append('note', 'ignored');
    body = form;
  }
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const res = await fetch(`${app.url}/api/v1/conversations/${conversationId}/upload`, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json()) as any };
}

const uploadCount = async (businessId: string) => Number((await app.sql(`select count(*) from uploads where business_id = $1`, [businessId]))[0].count);

test('upload: stored through the storage driver (postgres chunks here, DATABASE_URL being set) with a row, served at an absolute public URL with its type', async (t) => {
  const ws = await createWorkspace(app);
  const conv = await startConversation(ws);
  const bytes = new Uint8Array(5000).map((_, i) => i % 251);
  const res = await upload(conv, { token: ws.token, name: 'screenshot.png', type: 'image/png', bytes });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.deepEqual(Object.keys(res.body).sort(), ['content_type', 'filename', 'size', 'url']);
  t.like(res.body, { filename: 'screenshot.png', content_type: 'image/png', size: 5000 });
  t.true(res.body.url.startsWith(`${app.deps.config.publicUrl}/api/v1/uploads/`), res.body.url);
  const key = res.body.url.split('/').pop();
  t.regex(key, /^[A-Za-z0-9_-]{43}$/, '256 random bits');

  const row = (await app.sql(`select * from uploads where storage_key = $1`, [key]))[0];
  t.like(row, { business_id: ws.businessId, conversation_id: conv, uploaded_by: ws.userId, filename: 'screenshot.png', content_type: 'image/png', size: 5000 });
  t.like(row, { driver: 'postgres', source: 'upload', chunk_size: 256 * 1024 });
  const chunks = await app.sql(`select data from file_chunks where storage_key = $1 order by seq`, [key]);
  t.deepEqual(new Uint8Array(Buffer.concat(chunks.map((c) => c.data))), bytes);
  t.false(existsSync(path.join(app.deps.config.dataDir, 'uploads', key)), "nothing on this machine's disk");

  const served = await fetch(res.body.url);
  t.is(served.status, 200);
  t.deepEqual(new Uint8Array(await served.arrayBuffer()), bytes);
  t.is(served.headers.get('content-type'), 'image/png');
  t.is(served.headers.get('content-length'), '5000');
  t.is(served.headers.get('x-content-type-options'), 'nosniff');
  t.regex(served.headers.get('content-disposition')!, /^inline; filename="screenshot.png"/);
  t.regex(served.headers.get('content-security-policy')!, /sandbox/);
});

test('upload: non-images are served as downloads under their own name', async (t) => {
  const ws = await createWorkspace(app);
  const conv = await startConversation(ws);
  const pdf = new TextEncoder().encode('%PDF-1.4 fake');
  const res = await upload(conv, { token: ws.token, name: 'Rechnung März "final".pdf', type: 'application/pdf', bytes: pdf });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.is(res.body.filename, 'Rechnung März final.pdf');
  const served = await fetch(res.body.url);
  t.is(served.headers.get('content-type'), 'application/pdf');
  t.is(
    served.headers.get('content-disposition'),
    `attachment; filename="Rechnung M_rz final.pdf"; filename*=UTF-8''${encodeURIComponent('Rechnung März final.pdf')}`,
  );
  t.deepEqual(new Uint8Array(await served.arrayBuffer()), pdf);

  const text = await upload(conv, { token: ws.token, name: 'notes.txt', type: 'text/plain', bytes: new TextEncoder().encode('<script>alert(1)</script>') });
  t.is(text.status, 200);
  const servedText = await fetch(text.body.url);
  t.is(servedText.headers.get('content-type'), 'text/plain; charset=utf-8');
  t.regex(servedText.headers.get('content-disposition')!, /^attachment;/);
  t.is(servedText.headers.get('x-content-type-options'), 'nosniff');
});

test('upload: a generic type is judged by the extension; other types are 415 and store nothing', async (t) => {
  const ws = await createWorkspace(app);
  const conv = await startConversation(ws);
  const docx = await upload(conv, { token: ws.token, name: 'contract.docx', type: 'application/octet-stream' });
  t.is(docx.status, 200, JSON.stringify(docx.body));
  t.is(docx.body.content_type, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document');
  const jpg = await upload(conv, { token: ws.token, name: 'a.jpg', type: 'image/jpg' });
  t.is(jpg.body.content_type, 'image/jpeg');
  for (const audioVideo of [
    ['voice.ogg', 'audio/ogg'],
    ['clip.mp4', 'video/mp4'],
    ['sheet.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  ]) {
    t.is((await upload(conv, { token: ws.token, name: audioVideo[0], type: audioVideo[1] })).status, 200, audioVideo[1]);
  }
  const before = await uploadCount(ws.businessId);
  for (const [name, type] of [
    ['page.html', 'text/html'],
    ['logo.svg', 'image/svg+xml'],
    ['archive.zip', 'application/zip'],
    ['run.exe', 'application/octet-stream'],
    ['page.html', 'application/octet-stream'],
  ]) {
    const res = await upload(conv, { token: ws.token, name, type });
    t.is(res.status, 415, `${name} ${type}`);
    t.is(typeof res.body.detail, 'string');
  }
  t.is(await uploadCount(ws.businessId), before);
});

test('upload: 10 MiB is accepted, one byte more is 413, and a huge declared length is refused before reading', async (t) => {
  const ws = await createWorkspace(app);
  const conv = await startConversation(ws);
  const exact = await upload(conv, { token: ws.token, name: 'big.pdf', type: 'application/pdf', bytes: new Uint8Array(10 * MiB) });
  t.is(exact.status, 200, JSON.stringify(exact.body));
  t.is(exact.body.size, 10 * MiB);
  const before = await uploadCount(ws.businessId);
  const over = await upload(conv, { token: ws.token, name: 'big.pdf', type: 'application/pdf', bytes: new Uint8Array(10 * MiB + 1) });
  t.is(over.status, 413);
  t.regex(over.body.detail, /10 MiB/);
  const huge = await upload(conv, { token: ws.token, name: 'huge.pdf', type: 'application/pdf', bytes: new Uint8Array(12 * MiB) });
  t.is(huge.status, 413);
  t.is(await uploadCount(ws.businessId), before);
});

test('upload: 422 without a file, with an empty file, or without a multipart body', async (t) => {
  const ws = await createWorkspace(app);
  const conv = await startConversation(ws);
  const wrongField = await upload(conv, { token: ws.token, field: 'attachment' });
  t.is(wrongField.status, 422);
  t.deepEqual(wrongField.body.detail, [{ loc: ['body', 'file'], msg: 'Field required', type: 'missing' }]);
  const empty = await upload(conv, { token: ws.token, bytes: new Uint8Array(0) });
  t.is(empty.status, 422);
  t.deepEqual(empty.body.detail[0].loc, ['body', 'file']);
  const json = await upload(conv, { token: ws.token, body: JSON.stringify({ file: 'x' }), headers: { 'content-type': 'application/json' } });
  t.is(json.status, 422);
  t.deepEqual(json.body.detail[0].loc, ['body', 'file']);
  const broken = await upload(conv, { token: ws.token, body: '--x\r\nnonsense', headers: { 'content-type': 'multipart/form-data; boundary=x' } });
  t.is(broken.status, 422);
  t.is(await uploadCount(ws.businessId), 0);
});

test("upload: another business's conversation is 404, no token is 401; nothing is stored", async (t) => {
  const ws = await createWorkspace(app);
  const other = await createWorkspace(app);
  const theirs = await startConversation(other);
  const res = await upload(theirs, { token: ws.token });
  t.is(res.status, 404);
  t.deepEqual(res.body, { detail: 'Conversation not found' });
  t.is((await upload('00000000-0000-4000-8000-000000000000', { token: ws.token })).status, 404);
  const anon = await upload(theirs, {});
  t.is(anon.status, 401);
  t.is(await uploadCount(ws.businessId), 0);
  t.is(await uploadCount(other.businessId), 0);
  t.false(existsSync(path.join(app.deps.config.dataDir, 'uploads', 'x')));
});

test('serving: unknown and malformed keys are 404; byte ranges are honoured', async (t) => {
  const ws = await createWorkspace(app);
  const conv = await startConversation(ws);
  const unknown = await fetch(`${app.url}/api/v1/uploads/${'A'.repeat(43)}`);
  t.is(unknown.status, 404);
  t.deepEqual(await unknown.json(), { detail: 'File not found' });
  t.is((await fetch(`${app.url}/api/v1/uploads/..%2F..%2Fsecrets%2Fjwt_secret`)).status, 404);
  t.is((await fetch(`${app.url}/api/v1/uploads/short`)).status, 404);

  const bytes = new TextEncoder().encode('0123456789');
  const res = await upload(conv, { token: ws.token, name: 'clip.mp4', type: 'video/mp4', bytes });
  const part = await fetch(res.body.url, { headers: { range: 'bytes=2-5' } });
  t.is(part.status, 206);
  t.is(part.headers.get('content-range'), 'bytes 2-5/10');
  t.is(await part.text(), '2345');
  const tail = await fetch(res.body.url, { headers: { range: 'bytes=-3' } });
  t.is(await tail.text(), '789');
  const outside = await fetch(res.body.url, { headers: { range: 'bytes=20-' } });
  t.is(outside.status, 416);
  t.is(outside.headers.get('content-range'), 'bytes */10');
  const cors = await fetch(res.body.url, { headers: { origin: 'https://customer-site.example' } });
  t.is(cors.headers.get('access-control-allow-origin'), '*');
});
