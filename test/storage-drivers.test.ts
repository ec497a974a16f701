/**
 * The storage drivers side by side (issue 19 item 1): the same checks run against `postgres`
 * (file_chunks), `disk` (DATA_DIR/uploads) and `s3` (a real S3-protocol server on 127.0.0.1):
 * an agent's upload stored where STORAGE_DRIVER says and served with its type, ETag, Cache-Control,
 * nosniff and the sandbox CSP; ranges (across the postgres driver's chunk boundaries, and S3's
 * own Range); a file over the limit leaves nothing behind; a customer's media downloaded by
 * fetch_attachment; the customer export linking files that are served; erasure and the
 * unattached-upload sweep removing the bytes; a row whose bytes are gone is a 404.
 *
 * One app; each test sets STORAGE_DRIVER for itself (a row names its driver, so files written
 * under one setting are read under another: the tests run one after the other).
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { query, startTestWorker, waitFor } from './helpers/worker.ts';
import { makePng } from './helpers/png.ts';
import { startFakeMeta, type FakeMeta } from './fakes/meta.ts';
import { startFakeS3, type FakeS3 } from './fakes/s3.ts';
import { diskPath, FileTooLargeError, type StorageDriver } from '../core/adapters/storage.ts';
import { storageFor } from '../core/adapters/storage-for.ts';
import { storeFile } from '../core/domain/uploads.ts';
import { eraseCustomer } from '../core/commands/customers.ts';
import { removeUnattachedUploads } from '../core/commands/uploads-housekeeping.ts';

const WA = { phoneNumberId: '106540352200077', token: 'EAAG-storage-token' };
const drivers: StorageDriver[] = ['postgres', 'disk', 's3'];
const MiB = 1024 * 1024;

let app: TestApp;
let s3: FakeS3;
let meta: FakeMeta;
let owner: Workspace;

test.before(async () => {
  s3 = await startFakeS3();
  s3.useCredentials();
  meta = await startFakeMeta();
  meta.addWhatsAppNumber(WA.phoneNumberId, WA.token);
  app = await startTestApp({ env: { ...s3.config, META_GRAPH_URL: meta.graphUrl } });
  owner = await createWorkspace(app, { plan: 'Pro' });
  const channel = await app.request('POST', '/api/v1/channels/', {
    token: owner.token,
    body: { type: 'whatsapp', config: { phone_number_id: WA.phoneNumberId, access_token: WA.token } },
  });
  if (channel.status !== 200) throw new Error(channel.text);
});

test.after.always(async () => {
  await app?.close();
  await Promise.all([s3?.close(), meta?.close()]);
});

const useDriver = (driver: StorageDriver) => {
  (app.deps.config as { STORAGE_DRIVER: StorageDriver }).STORAGE_DRIVER = driver;
};

/** The bytes where the driver keeps them, or null: file_chunks rows, the file on disk, the object in the bucket. */
async function storedBytes(driver: StorageDriver, key: string): Promise<Buffer | null> {
  if (driver === 'postgres') {
    const chunks = await app.sql(`select data from file_chunks where storage_key = $1 order by seq`, [key]);
    return chunks.length ? Buffer.concat(chunks.map((c) => c.data)) : null;
  }
  if (driver === 'disk') {
    const at = diskPath(app.deps.config.dataDir, key);
    return existsSync(at) ? readFileSync(at) : null;
  }
  return s3.object(key);
}

/** Where no driver but `driver` has the bytes. */
async function onlyIn(driver: StorageDriver, key: string): Promise<boolean> {
  for (const other of drivers) if (other !== driver && (await storedBytes(other, key)) !== null) return false;
  return true;
}

async function newConversation(): Promise<string> {
  const res = await app.request('POST', '/api/v1/conversations/', { token: owner.token, body: { business_id: owner.businessId } });
  if (res.status !== 200) throw new Error(res.text);
  return res.body.id;
}

async function upload(conversationId: string, bytes: Uint8Array, name: string, type: string) {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), name);
  const res = await fetch(`${app.url}/api/v1/conversations/${conversationId}/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}

const keyOf = (url: string) => url.split('/').pop()!;

for (const driver of drivers) {
  test.serial(`${driver}: an upload is stored by the driver and served with its headers, ETag and ranges (across chunk boundaries)`, async (t) => {
    useDriver(driver);
    const conversation = await newConversation();
    const bytes = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), randomBytes(256 * 1024 * 2 + 1000)]);
    const res = await upload(conversation, bytes, 'clip.mp4', 'video/mp4');
    t.is(res.status, 200, JSON.stringify(res.body));
    const key = keyOf(res.body.url);
    const [row] = await app.sql(`select driver, size, chunk_size from uploads where storage_key = $1`, [key]);
    t.like(row, { driver, size: bytes.length, chunk_size: driver === 'postgres' ? 256 * 1024 : null });
    t.true((await storedBytes(driver, key))?.equals(bytes), 'the bytes are where the driver keeps them');
    t.true(await onlyIn(driver, key), 'and nowhere else');

    const whole = await fetch(res.body.url);
    t.is(whole.status, 200);
    t.true(Buffer.from(await whole.arrayBuffer()).equals(bytes));
    t.is(whole.headers.get('content-type'), 'video/mp4');
    t.is(whole.headers.get('content-length'), String(bytes.length));
    t.is(whole.headers.get('x-content-type-options'), 'nosniff');
    t.is(whole.headers.get('content-security-policy'), "default-src 'none'; sandbox");
    t.is(whole.headers.get('cache-control'), 'private, max-age=31536000, immutable');
    t.is(whole.headers.get('accept-ranges'), 'bytes');
    t.regex(whole.headers.get('content-disposition')!, /^attachment; filename="clip.mp4"/);
    const etag = whole.headers.get('etag')!;
    t.is(etag, `"${key}"`);
    t.is((await fetch(res.body.url, { headers: { 'if-none-match': etag } })).status, 304);

    const start = 256 * 1024 - 10;
    const end = 2 * 256 * 1024 + 20;
    const ranged = await fetch(res.body.url, { headers: { range: `bytes=${start}-${end}` } });
    t.is(ranged.status, 206);
    t.is(ranged.headers.get('content-range'), `bytes ${start}-${end}/${bytes.length}`);
    t.is(ranged.headers.get('content-length'), String(end - start + 1));
    t.true(Buffer.from(await ranged.arrayBuffer()).equals(bytes.subarray(start, end + 1)));
    const tail = await fetch(res.body.url, { headers: { range: 'bytes=-7' } });
    t.true(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(bytes.length - 7)));
    const outside = await fetch(res.body.url, { headers: { range: `bytes=${bytes.length}-` } });
    t.is(outside.status, 416);
    t.is(outside.headers.get('content-range'), `bytes */${bytes.length}`);
  });

  test.serial(`${driver}: a file over 10 MiB is 413 and leaves no bytes and no row`, async (t) => {
    useDriver(driver);
    const conversation = await newConversation();
    const rowsBefore = (await app.sql(`select storage_key from uploads`)).map((r) => r.storage_key).sort();
    const objectsBefore = await s3.keys();
    const chunksBefore = (await app.sql(`select count(*)::int as n from file_chunks`))[0].n;
    const over = await upload(conversation, new Uint8Array(10 * MiB + 1), 'big.pdf', 'application/pdf');
    t.is(over.status, 413);
    t.deepEqual((await app.sql(`select storage_key from uploads`)).map((r) => r.storage_key).sort(), rowsBefore);
    t.deepEqual(await s3.keys(), objectsBefore);
    t.is((await app.sql(`select count(*)::int as n from file_chunks`))[0].n, chunksBefore);
  });

  test.serial(`${driver}: bytes past the limit while streaming (after a 5 MiB part went out to S3) throw FileTooLargeError and leave nothing`, async (t) => {
    const storage = storageFor(driver, app.deps.config);
    const objectsBefore = await s3.keys();
    const rowsBefore = (await app.sql(`select count(*)::int as n from uploads`))[0].n;
    async function* sevenMiB() {
      for (let i = 0; i < 7; i++) yield new Uint8Array(MiB).fill(i);
    }
    const failed = app.deps.db.transaction((tx) =>
      storeFile(tx, storage, {
        businessId: owner.businessId,
        conversationId: null,
        uploadedBy: null,
        source: 'inbound',
        filename: 'big.bin',
        contentType: 'application/octet-stream',
        bytes: sevenMiB(),
        limit: 6 * MiB,
      }),
    );
    await t.throwsAsync(failed, { instanceOf: FileTooLargeError });
    t.deepEqual(await s3.keys(), objectsBefore);
    t.is((await app.sql(`select count(*)::int as n from uploads`))[0].n, rowsBefore);
  });

  test.serial(`${driver}: a customer's photo is downloaded by fetch_attachment into the driver, served, exported, and erased with the customer`, async (t) => {
    useDriver(driver);
    const photo = makePng(90, 60, [30, 120, 200]);
    const mediaId = `media-${driver}`;
    const externalId = `wamid.STORAGE-${driver}`;
    const phone = `1555010${drivers.indexOf(driver)}777`;
    meta.addMedia(mediaId, WA.token, { mimeType: 'image/png', bytes: photo });
    const posted = await fetch(`${app.url}/api/v1/webhooks/whatsapp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        object: 'whatsapp_business_account',
        entry: [
          {
            id: '102290129340398',
            changes: [
              {
                field: 'messages',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: { display_phone_number: '15550783881', phone_number_id: WA.phoneNumberId },
                  contacts: [{ profile: { name: `Rosa ${driver}` }, wa_id: phone }],
                  messages: [{ from: phone, id: externalId, timestamp: String(Math.floor(Date.now() / 1000)), type: 'image', image: { id: mediaId } }],
                },
              },
            ],
          },
        ],
      }),
    });
    t.is(posted.status, 200);
    const worker = await startTestWorker(app, { only: ['process_inbound', 'fetch_attachment', 'register_channel'] });
    let message: any;
    try {
      message = await waitFor(
        async () => {
          const [row] = await query(
            app,
            `select attachments, customer_id from messages m join conversations c on c.id = m.conversation_id where external_id = $1`,
            [externalId],
          );
          return row && row.attachments[0].status !== 'pending' ? row : null;
        },
        20_000,
        'the attachment settled',
      );
    } finally {
      await worker.stop();
    }
    t.is(message.attachments[0].status, 'stored', JSON.stringify(message.attachments[0]));
    const key = keyOf(message.attachments[0].url);
    t.like((await app.sql(`select driver, source from uploads where storage_key = $1`, [key]))[0], { driver, source: 'inbound' });
    t.true((await storedBytes(driver, key))?.equals(photo));
    const served = await fetch(message.attachments[0].url);
    t.true(Buffer.from(await served.arrayBuffer()).equals(photo));
    t.regex(served.headers.get('content-disposition')!, /^inline;/);

    const [{ number }] = await app.sql(`select number from customers where id = $1`, [message.customer_id]);
    const exported = await app.request('GET', `/api/v1/customers/${number}/export`, { token: owner.token });
    t.is(exported.status, 200, exported.text);
    const document = typeof exported.body === 'string' ? JSON.parse(exported.body) : exported.body;
    t.true(JSON.stringify(document).includes(message.attachments[0].url), 'the export links the file');

    t.is((await app.request('DELETE', `/api/v1/customers/${number}`, { token: owner.token })).status, 200);
    // Under another setting: the row's driver decides where the bytes are removed from.
    useDriver(driver === 'postgres' ? 'disk' : 'postgres');
    const erased = await eraseCustomer(app.deps.db, app.deps.config, { businessId: owner.businessId, customerId: message.customer_id });
    t.like(erased, { files: 1 });
    t.is(await storedBytes(driver, key), null, 'the bytes are gone');
    t.is((await fetch(message.attachments[0].url)).status, 404);
  });

  test.serial(`${driver}: the sweep of unused uploads removes their bytes; a row whose bytes are gone is a 404`, async (t) => {
    useDriver(driver);
    const conversation = await newConversation();
    const res = await upload(conversation, new TextEncoder().encode('never sent'), 'draft.txt', 'text/plain');
    t.is(res.status, 200);
    const key = keyOf(res.body.url);
    t.not(await storedBytes(driver, key), null);
    await app.sql(`update uploads set created_at = now() - interval '2 days' where storage_key = $1`, [key]);
    t.true((await removeUnattachedUploads(app.deps.db, app.deps.config)) >= 1);
    t.is(await storedBytes(driver, key), null);
    t.is((await app.sql(`select 1 from uploads where storage_key = $1`, [key])).length, 0);

    // Bytes lost behind Parley's back: 404, not a broken 200.
    const kept = await upload(conversation, new TextEncoder().encode('soon gone'), 'gone.txt', 'text/plain');
    const goneKey = keyOf(kept.body.url);
    if (driver === 'postgres') await app.sql(`delete from file_chunks where storage_key = $1`, [goneKey]);
    else await storageFor(driver, app.deps.config).remove(app.deps.db, { businessId: owner.businessId, key: goneKey });
    const missing = await fetch(kept.body.url);
    t.is(missing.status, 404);
    t.deepEqual(await missing.json(), { detail: 'File not found' });
    t.is((await fetch(kept.body.url, { headers: { range: 'bytes=0-2' } })).status, 404);
  });
}

test.serial('s3: STORAGE_DRIVER=s3 without S3_BUCKET stops the start naming the variable', async (t) => {
  const { loadConfig, ConfigError } = await import('../core/config.ts');
  const error = t.throws(() => loadConfig({ STORAGE_DRIVER: 's3', DATA_DIR: app.deps.config.dataDir, JWT_SECRET: 'x'.repeat(32) }));
  t.true(error instanceof ConfigError);
  t.regex(error!.message, /S3_BUCKET: required with STORAGE_DRIVER=s3/);
});
