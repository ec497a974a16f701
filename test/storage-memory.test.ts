/**
 * Memory stays flat for a 25 MB file, streamed both ways (issue 19 items 1 and 7), and a file
 * one process wrote is read by another (the postgres and s3 drivers: nodes share files).
 *
 * Real `parley worker` and `parley web` child processes on the test database: the worker
 * downloads a customer's 25 MB video from the fake Graph API into storage (fetch_attachment),
 * the web process serves it back to this test and takes an agent's upload at the 10 MiB limit
 * (koa-body's multipart goes to a temp file through formidable, then is streamed into storage).
 * Each child's peak RSS is read from /proc (VmHWM, reset through clear_refs before each
 * transfer): see MAX_GROWTH for what "flat" can mean under V8's external-memory GC.
 */
import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { query, waitFor } from './helpers/worker.ts';
import { closedPort } from './helpers/ports.ts';
import { spawnParley, stopProcess } from './helpers/processes.ts';
import { procfileFlags } from './helpers/procfile.ts';
import { startFakeMeta, type FakeMeta } from './fakes/meta.ts';
import { startFakeS3, type FakeS3 } from './fakes/s3.ts';

const MB = 1024 * 1024;
const FILE_BYTES = 25 * MB;
/**
 * Growth of a process's peak RSS allowed while it moves one 25 MB file. Not the 15 MB the issue's
 * brief hoped for: measured, a child's peak grows by 40-90 MB on the first 25 MB it moves and by
 * little on the next ones (three more downloads of it: +19-37 MB together), because the garbage
 * of streaming (pg's hex text of each bytea chunk, socket buffers) is external memory that V8
 * collects only once 64 MB of it have piled up. A process holding the file whole (or several
 * copies, as pg's text protocol would for a non-streamed read) goes past this bound.
 */
const MAX_GROWTH = 100 * MB;
/**
 * The proof of "flat": the same processes then move a file eight times as large (200 MB; the
 * children's MAX_ATTACHMENT_BYTES is raised for it), and their peak growth must stay under
 * LARGE_MAX_GROWTH, the 25 MB file's bound plus 25 MB: well under the file itself. A process
 * that held the file whole would grow by 200 MB or more (measured with the postgres read made
 * to buffer the file: 88 MB for 25 MB, which the 25 MB bound alone lets through, 397 MB for
 * 200 MB). Comparing with the 25 MB file's own growth instead would be noise: the growth of a
 * streaming process is wherever V8's external-memory GC happened to run, anywhere from 0 to
 * 80 MB for either size (measured over 16 runs).
 */
const LARGE_FILE_BYTES = 200 * MB;
const LARGE_MAX_GROWTH = MAX_GROWTH + 25 * MB;
const WA = { phoneNumberId: '106540352209999', token: 'EAAG-rss-token' };
const jwtSecret = randomBytes(32).toString('hex');

let app: TestApp;
let meta: FakeMeta;
let s3: FakeS3;
let owner: Workspace;

test.before(async () => {
  meta = await startFakeMeta();
  meta.addWhatsAppNumber(WA.phoneNumberId, WA.token);
  s3 = await startFakeS3();
  app = await startTestApp({ env: { META_GRAPH_URL: meta.graphUrl, JWT_SECRET: jwtSecret } });
  owner = await createWorkspace(app, { plan: 'Pro' });
  const channel = await app.request('POST', '/api/v1/channels/', {
    token: owner.token,
    body: { type: 'whatsapp', config: { phone_number_id: WA.phoneNumberId, access_token: WA.token } },
  });
  if (channel.status !== 200) throw new Error(channel.text);
});

test.after.always(async () => {
  await app?.close();
  await Promise.all([meta?.close(), s3?.close()]);
});

function procStatus(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no ${field} for ${pid}`);
  return Number(match[1]) * 1024;
}

/** Peak RSS growth of `pid` while `work` runs: the peak is reset first (clear_refs 5). */
async function peakGrowth(pid: number, work: () => Promise<void>): Promise<number> {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const before = procStatus(pid, 'VmRSS');
  await work();
  return procStatus(pid, 'VmHWM') - before;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A file of `size` bytes that sniffs as MP4. */
function video(size: number): Buffer {
  const bytes = randomBytes(size);
  Buffer.from([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d]).copy(bytes);
  return bytes;
}

/** A customer's video through the webhook; resolves with the stored attachment once the worker child has settled it. */
async function inboundVideo(id: string, bytes: Buffer): Promise<{ url: string; size: number; status: string }> {
  meta.addMedia(id, WA.token, { mimeType: 'video/mp4', bytes });
  const phone = '15550109999';
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
                contacts: [{ profile: { name: 'Big File' }, wa_id: phone }],
                messages: [{ from: phone, id: `wamid.${id}`, timestamp: String(Math.floor(Date.now() / 1000)), type: 'video', video: { id } }],
              },
            },
          ],
        },
      ],
    }),
  });
  if (posted.status !== 200) throw new Error(await posted.text());
  return waitFor(
    async () => {
      const [row] = await query(app, `select attachments from messages where external_id = $1`, [`wamid.${id}`]);
      return row && row.attachments[0].status !== 'pending' ? row.attachments[0] : null;
    },
    60_000,
    `attachment ${id} settled`,
  );
}

/** Streams a download, hashing it, never holding it whole. */
async function download(url: string): Promise<{ size: number; hash: string }> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    size += chunk.byteLength;
  }
  return { size, hash: hash.digest('hex') };
}

async function uploadTo(webUrl: string, conversationId: string, bytes: Buffer): Promise<any> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: 'video/mp4' }), 'upload.mp4');
  const res = await fetch(`${webUrl}/api/v1/conversations/${conversationId}/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}` },
    body: form,
  });
  if (res.status !== 200) throw new Error(`upload: ${res.status} ${await res.text()}`);
  return res.json();
}

async function startChildren(env: Record<string, string>): Promise<{ web: ChildProcess; worker: ChildProcess; webUrl: string }> {
  const port = await closedPort();
  const webUrl = `http://127.0.0.1:${port}`;
  const shared = {
    // The image's allocator setting; each child gets its process type's V8 flags from the Procfile (heap caps included).
    MALLOC_ARENA_MAX: '2',
    JWT_SECRET: jwtSecret,
    PUBLIC_URL: webUrl,
    META_GRAPH_URL: meta.graphUrl,
    ALLOW_PRIVATE_HOSTS: 'true',
    MAX_ATTACHMENT_BYTES: String(LARGE_FILE_BYTES),
    ...env,
  };
  const web = spawnParley(app, ['web'], { ...shared, NODE_OPTIONS: procfileFlags('web').join(' '), PORT: String(port) });
  const worker = spawnParley(app, ['worker'], {
    ...shared,
    NODE_OPTIONS: procfileFlags('worker').join(' '),
    WORKER_TASKS: 'process_inbound,fetch_attachment',
  });
  await waitFor(async () => (await fetch(`${webUrl}/readyz`).catch(() => null))?.ok, 30_000, 'parley web ready');
  return { web, worker, webUrl };
}

for (const driver of ['postgres', 's3'] as const) {
  test.serial(
    `${driver}: 25 MB and 200 MB files in through the worker and out through web, and a 10 MiB upload: the bytes cross processes intact, peak RSS growth does not follow the file's size`,
    async (t) => {
      t.timeout(300_000);
      const env = driver === 's3' ? { STORAGE_DRIVER: 's3', ...s3.config, ...s3.env } : { STORAGE_DRIVER: 'postgres' };
      const { web, worker, webUrl } = await startChildren(env);
      try {
        // Warm-up: every code path (the SDK, pg's parsers, formidable) loaded before measuring.
        const small = await inboundVideo(`warm-${driver}`, video(2 * MB));
        t.is(small.status, 'stored');
        await download(small.url);
        const conversation = await app.request('POST', '/api/v1/conversations/', { token: owner.token, body: { business_id: owner.businessId } });
        await uploadTo(webUrl, conversation.body.id, video(MB));

        /** A customer's file in through the worker, then out through web: each child's peak RSS growth while it moves it. */
        const move = async (name: string, bytes: Buffer) => {
          let stored: { url: string; size: number; status: string } | undefined;
          const worker_ = await peakGrowth(worker.pid!, async () => {
            stored = await inboundVideo(`${name}-${driver}`, bytes);
          });
          t.is(stored!.status, 'stored', JSON.stringify(stored));
          t.is(stored!.size, bytes.length);
          t.true(stored!.url.startsWith(`${webUrl}/api/v1/uploads/`));
          const [row] = await app.sql(`select driver from uploads where storage_key = $1`, [stored!.url.split('/').pop()]);
          t.is(row.driver, driver);
          // The web process reads what the worker process wrote.
          let served: { size: number; hash: string } | undefined;
          const web_ = await peakGrowth(web.pid!, async () => {
            served = await download(stored!.url);
          });
          t.deepEqual(served, { size: bytes.length, hash: sha256(bytes) });
          return { worker: worker_, web: web_ };
        };

        const at25 = await move('big', video(FILE_BYTES));

        const tenMiB = video(10 * MB);
        let uploaded: any;
        const uploadGrowth = await peakGrowth(web.pid!, async () => {
          uploaded = await uploadTo(webUrl, conversation.body.id, tenMiB);
        });
        t.is(uploaded.size, 10 * MB);
        t.deepEqual(await download(uploaded.url), { size: 10 * MB, hash: sha256(tenMiB) });

        // Eight times the file in the same processes: flat means the growth does not follow the size.
        const large = await move('huge', video(LARGE_FILE_BYTES));

        const mb = (bytes: number) => (bytes / MB).toFixed(1);
        t.log(
          `peak RSS growth, 25 MB → 200 MB: worker ${mb(at25.worker)} → ${mb(large.worker)} MB, web download ${mb(at25.web)} → ${mb(large.web)} MB; web upload of 10 MiB ${mb(uploadGrowth)} MB`,
        );
        t.true(at25.worker < MAX_GROWTH, `worker grew ${mb(at25.worker)} MB storing 25 MB`);
        t.true(at25.web < MAX_GROWTH, `web grew ${mb(at25.web)} MB serving 25 MB`);
        t.true(uploadGrowth < MAX_GROWTH, `web grew ${mb(uploadGrowth)} MB taking a 10 MiB upload`);
        t.true(large.worker < LARGE_MAX_GROWTH, `worker grew ${mb(large.worker)} MB storing 200 MB (${mb(at25.worker)} MB for 25 MB)`);
        t.true(large.web < LARGE_MAX_GROWTH, `web grew ${mb(large.web)} MB serving 200 MB (${mb(at25.web)} MB for 25 MB)`);
      } finally {
        await Promise.all([stopProcess(web, 'SIGTERM'), stopProcess(worker, 'SIGTERM')]);
      }
    },
  );
}
