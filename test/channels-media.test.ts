/**
 * Inbound media end to end, per platform (issue 19 item 2): the fake platform serves a file the
 * way the platform does (and checks its credentials), a customer's message names it, the real
 * worker's fetch_attachment downloads it into storage, and the API serves the same bytes back.
 * Also: size limits, sniffed types, transient failures retried, permanent ones kept as metadata
 * with the reason.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { inboxOf, type Inbox } from './helpers/inbox.ts';
import { query, startTestWorker, waitFor } from './helpers/worker.ts';
import { makePng } from './helpers/png.ts';
import { instagramMessagePayload, postMetaWebhook, startFakeMeta, type FakeMeta } from './fakes/meta.ts';
import { startFakeTelegram, type FakeTelegram } from './fakes/telegram.ts';
import { signTwilioWebhook, startFakeTwilio, type FakeTwilio } from './fakes/twilio.ts';
import { startFakeSmtp, type FakeSmtp } from './fakes/smtp.ts';

const WA = { phoneNumberId: '106540352200001', token: 'EAAG-media-token' };
const IG = { accountId: '17841405800000001', token: 'IGAA-media-token' };
const TWILIO = { accountSid: 'AC' + 'abcd'.repeat(8), authToken: 'twilio-media-auth', from: '+15550009999' };
const SUPPORT = 'help@acme.test';
const LIMIT = 200 * 1024;

let meta: FakeMeta;
let telegram: FakeTelegram;
let twilio: FakeTwilio;
let smtp: FakeSmtp;
let app: TestApp;
let owner: Workspace;
let inbox: Inbox;
const channels: Record<string, string> = {};
let telegramToken = '';

const photo = makePng(160, 120, [220, 90, 40]);

async function createChannel(type: string, config: Record<string, string>): Promise<string> {
  const res = await app.request('POST', '/api/v1/channels/', { token: owner.token, body: { type, config } });
  if (res.status !== 200) throw new Error(`channel ${type}: ${res.status} ${res.text}`);
  return res.body.id;
}

test.before(async () => {
  meta = await startFakeMeta();
  meta.addWhatsAppNumber(WA.phoneNumberId, WA.token);
  meta.addInstagramAccount(IG.accountId, IG.token);
  telegram = await startFakeTelegram();
  telegramToken = telegram.addBot({ username: 'acme_media_bot' });
  twilio = await startFakeTwilio({ accountSid: TWILIO.accountSid, authToken: TWILIO.authToken, numbers: [TWILIO.from] });
  smtp = await startFakeSmtp({ user: SUPPORT, password: 'smtp-pass' });
  app = await startTestApp({
    env: {
      META_GRAPH_URL: meta.graphUrl,
      INSTAGRAM_GRAPH_URL: meta.instagramUrl,
      TELEGRAM_API_URL: telegram.url,
      TWILIO_API_URL: twilio.url,
      MAX_ATTACHMENT_BYTES: String(LIMIT),
    },
  });
  owner = await createWorkspace(app, { plan: 'Pro' });
  inbox = inboxOf(app, owner.token);
  channels.whatsapp = await createChannel('whatsapp', { phone_number_id: WA.phoneNumberId, access_token: WA.token });
  channels.instagram = await createChannel('instagram', { instagram_business_account_id: IG.accountId, access_token: IG.token });
  channels.telegram = await createChannel('telegram', { bot_token: telegramToken });
  channels.sms = await createChannel('sms', { account_sid: TWILIO.accountSid, auth_token: TWILIO.authToken, from_number: TWILIO.from });
  channels.email = await createChannel('email', {
    address: SUPPORT,
    smtp_host: '127.0.0.1',
    smtp_port: String(smtp.port),
    smtp_user: SUPPORT,
    smtp_password: 'smtp-pass',
  });
  const worker = await startTestWorker(app, { only: ['register_channel'] });
  try {
    for (const id of Object.values(channels)) await inbox.registered(id);
  } finally {
    await worker.stop();
  }
});

test.after.always(async () => {
  await app?.close();
  await Promise.all([meta?.close(), telegram?.close(), twilio?.close(), smtp?.close()]);
});

/** The customer message with this external id, once its attachment is no longer pending (the worker runs meanwhile). */
async function settledMessage(externalId: string, timeoutMs = 20_000): Promise<any> {
  const worker = await startTestWorker(app);
  try {
    const [{ id, conversation_id: conversationId }] = await waitFor(
      async () => {
        const rows = await query(app, `select id, conversation_id from messages where external_id = $1 and sender_type = 'customer'`, [externalId]);
        return rows.length ? rows : null;
      },
      timeoutMs,
      `message ${externalId}`,
    );
    return await waitFor(
      async () => {
        const message = await inbox.messageById(conversationId, id);
        return message?.attachments.every((a: any) => a.status !== 'pending') ? message : null;
      },
      timeoutMs,
      `attachment of ${externalId} settled`,
    );
  } finally {
    await worker.stop();
  }
}

/** The bytes the API serves at an attachment's URL (PUBLIC_URL is the test server). */
async function served(url: string): Promise<{ bytes: Buffer; type: string | null; disposition: string | null }> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
  return { bytes: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition') };
}

function whatsappMedia(id: string, from: string, type: string, media: Record<string, unknown>) {
  return {
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
              contacts: [{ profile: { name: 'Rosa Diaz' }, wa_id: from }],
              messages: [{ from, id, timestamp: String(Math.floor(Date.now() / 1000)), type, [type]: media }],
            },
          },
        ],
      },
    ],
  };
}

async function postWhatsApp(payload: unknown) {
  const res = await postMetaWebhook(`${app.url}/api/v1/webhooks/whatsapp`, payload, undefined);
  if (res.status !== 200) throw new Error(`webhook: ${res.status} ${await res.text()}`);
}

test.serial('WhatsApp: the photo is fetched through Graph with the channel token and served back byte for byte', async (t) => {
  // Meta labels it JPEG; the bytes are PNG: the sniffed type wins.
  meta.addMedia('wa-media-1', WA.token, { mimeType: 'image/jpeg', bytes: photo });
  await postWhatsApp(
    whatsappMedia('wamid.MEDIA1', '15550100001', 'image', { id: 'wa-media-1', mime_type: 'image/jpeg', sha256: 'x', caption: 'It arrived broken' }),
  );
  const message = await settledMessage('wamid.MEDIA1');
  t.is(message.content, 'It arrived broken');
  const [attachment] = message.attachments;
  t.like(attachment, { status: 'stored', platform_file_id: 'wa-media-1', content_type: 'image/png', size: photo.length, filename: 'photo.png' });
  t.true(attachment.url.startsWith(`${app.deps.config.publicUrl}/api/v1/uploads/`));
  const file = await served(attachment.url);
  t.true(file.bytes.equals(photo));
  t.is(file.type, 'image/png');
  // Both Graph calls carried the channel's token: the media object, then the download.
  const calls = meta.requests.filter((r) => r.path.includes('wa-media-1'));
  t.is(calls.length, 2);
  for (const call of calls) t.is(call.headers.authorization, `Bearer ${WA.token}`);
  const [row] = await query(app, `select driver, source, chunk_size from uploads where storage_key = $1`, [attachment.url.split('/').pop()]);
  t.like(row, { driver: 'postgres', source: 'inbound', chunk_size: 256 * 1024 });
  t.true(
    app.events.some(
      (e: any) => e.name === 'message_updated' && e.payload.message_id === message.id && (e.payload as any).message.attachments[0].status === 'stored',
    ),
  );
});

test.serial('Instagram: the signed CDN link is read without the token; the bytes are served back', async (t) => {
  const url = meta.addInstagramAsset({ mimeType: 'image/png', bytes: photo });
  const payload = instagramMessagePayload({ accountId: IG.accountId, senderId: '6600001', mid: 'aWdMEDIA1', attachments: [{ type: 'image', url }] });
  const res = await postMetaWebhook(`${app.url}/api/v1/webhooks/instagram`, payload, undefined);
  t.is(res.status, 200);
  const message = await settledMessage('aWdMEDIA1');
  const [attachment] = message.attachments;
  t.like(attachment, { status: 'stored', content_type: 'image/png', size: photo.length, source_url: url });
  t.true((await served(attachment.url)).bytes.equals(photo));
  const cdn = meta.requests.filter((r) => r.path === '/ig_messaging_cdn/');
  t.is(cdn.length, 1);
  t.is(cdn[0].headers.authorization, undefined, 'the token goes to Graph only');
});

test.serial('Telegram: getFile, then the file URL with the bot token; a voice note keeps its type', async (t) => {
  const voice = Buffer.concat([Buffer.from('OggS'), Buffer.alloc(24), Buffer.from('OpusHead'), randomBytes(3000)]);
  telegram.addFile(telegramToken, 'voice-file-1', { bytes: voice, path: 'voice/file_1.oga' });
  telegram.addFile(telegramToken, 'photo-file-1', { bytes: photo, path: 'photos/file_2.jpg' });
  const update = {
    update_id: 500001,
    message: {
      message_id: 71,
      from: { id: 4242001, is_bot: false, first_name: 'Jake' },
      chat: { id: 4242001, type: 'private', first_name: 'Jake' },
      date: Math.floor(Date.now() / 1000),
      caption: 'Listen and look',
      photo: [
        { file_id: 'photo-small', file_unique_id: 's', width: 90, height: 90 },
        { file_id: 'photo-file-1', file_unique_id: 'p', width: 160, height: 120, file_size: photo.length },
      ],
      voice: { file_id: 'voice-file-1', file_unique_id: 'v', duration: 2, mime_type: 'audio/ogg', file_size: voice.length },
    },
  };
  telegram.queueUpdate(telegramToken, update);
  await query(app, `select graphile_worker.add_job('poll_channel', json_build_object('channel_id', $1::text))`, [channels.telegram]);
  const message = await settledMessage('4242001:71');
  t.is(message.attachments.length, 2);
  const [image, audio] = message.attachments;
  t.like(image, { status: 'stored', content_type: 'image/png' });
  t.like(audio, { status: 'stored', content_type: 'audio/ogg', size: voice.length });
  t.true((await served(image.url)).bytes.equals(photo));
  t.true((await served(audio.url)).bytes.equals(voice));
  const downloads = telegram.requests.filter((r) => r.apiMethod === 'file');
  t.deepEqual(downloads.map((r) => r.path).sort(), [`/file/bot${telegramToken}/photos/file_2.jpg`, `/file/bot${telegramToken}/voice/file_1.oga`]);
  t.is(telegram.requests.filter((r) => r.apiMethod === 'getFile').length, 2);
});

test.serial("SMS (Twilio MMS): MediaUrl read with the account's Basic credentials, through the CDN redirect", async (t) => {
  const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(5000)]);
  const mediaUrl = twilio.addMedia({ bytes: pdf, contentType: 'application/pdf' });
  const form: Record<string, string> = {
    MessageSid: 'SM' + '7'.repeat(32),
    AccountSid: TWILIO.accountSid,
    From: '+15550107777',
    To: TWILIO.from,
    Body: 'My receipt',
    NumMedia: '1',
    MediaUrl0: mediaUrl,
    MediaContentType0: 'application/pdf',
  };
  const path = `/api/v1/webhooks/sms/${channels.sms}`;
  const res = await app.request('POST', path, {
    rawBody: new URLSearchParams(form).toString(),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': signTwilioWebhook(TWILIO.authToken, app.deps.config.publicUrl + path, form),
    },
  });
  t.is(res.status, 200);
  const message = await settledMessage(form.MessageSid);
  const [attachment] = message.attachments;
  t.like(attachment, { status: 'stored', content_type: 'application/pdf', size: pdf.length, filename: 'file.pdf' });
  const file = await served(attachment.url);
  t.true(file.bytes.equals(pdf));
  t.regex(file.disposition ?? '', /^attachment;/);
  const media = twilio.requests.filter((r) => r.path.includes('/Media/'));
  t.is(media.length, 1);
  t.true(media[0].authorized, 'Basic auth with the account SID and auth token');
  t.true(twilio.requests.some((r) => r.path.startsWith('/cdn/')));
});

test.serial('E-mail: the MIME part is stored as it came; no platform call', async (t) => {
  const [{ state }] = await query(app, 'select state from channels where id = $1', [channels.email]);
  const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(2000)]);
  const boundary = 'b0undary';
  const messageId = `<${randomBytes(6).toString('hex')}@customer.test>`;
  const raw = [
    'From: "Gina Linetti" <gina@customer.test>',
    `To: ${SUPPORT}`,
    'Subject: Invoice',
    `Date: ${new Date().toUTCString()}`,
    `Message-ID: ${messageId}`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Invoice attached.',
    '',
    `--${boundary}`,
    'Content-Type: application/pdf; name="invoice-17.pdf"',
    'Content-Disposition: attachment; filename="invoice-17.pdf"',
    'Content-Transfer-Encoding: base64',
    '',
    pdf.toString('base64').replace(/.{76}/g, '$&\r\n'),
    `--${boundary}--`,
    '',
  ].join('\r\n');
  const res = await app.request('POST', `/api/v1/webhooks/email/${channels.email}`, {
    rawBody: raw,
    headers: { 'content-type': 'message/rfc822', 'x-parley-webhook-secret': state.webhook_secret },
  });
  t.is(res.status, 200, res.text);
  const message = await settledMessage(messageId);
  const [attachment] = message.attachments;
  t.like(attachment, { status: 'stored', filename: 'invoice-17.pdf', content_type: 'application/pdf', size: pdf.length });
  t.is(attachment.content_base64, undefined, 'the bytes never sit in the message');
  t.true((await served(attachment.url)).bytes.equals(pdf));
  const [row] = await query(app, `select attachments::text as a from messages where id = $1`, [message.id]);
  t.false(row.a.includes('content_base64'));
});

test.serial('limits and types: too large fails at once with the reason; HTML labelled as an image is a download; a 5xx is retried', async (t) => {
  meta.addMedia('wa-big', WA.token, { mimeType: 'video/mp4', bytes: Buffer.alloc(LIMIT + 1, 1) });
  await postWhatsApp(whatsappMedia('wamid.BIG', '15550100002', 'video', { id: 'wa-big', mime_type: 'video/mp4' }));
  const big = await settledMessage('wamid.BIG');
  t.like(big.attachments[0], {
    status: 'failed',
    error: 'The file is larger than 0 MB'.replace('0 MB', `${Math.round(LIMIT / (1024 * 1024))} MB`),
    platform_file_id: 'wa-big',
  });
  t.is(big.attachments[0].url, undefined);
  t.is(Number((await query(app, `select count(*) from uploads where source = 'inbound' and size > $1`, [LIMIT]))[0].count), 0);

  const html = Buffer.from('<html><script>alert(document.cookie)</script></html>');
  meta.addMedia('wa-html', WA.token, { mimeType: 'image/png', bytes: html });
  await postWhatsApp(whatsappMedia('wamid.HTML', '15550100003', 'image', { id: 'wa-html', mime_type: 'image/png' }));
  const disguised = await settledMessage('wamid.HTML');
  t.like(disguised.attachments[0], { status: 'stored', content_type: 'application/octet-stream' });
  const file = await served(disguised.attachments[0].url);
  t.is(file.type, 'application/octet-stream');
  t.regex(file.disposition ?? '', /^attachment;/);

  // One 500 from Graph's media endpoint: the job retries (brought forward here) and stores it.
  meta.addMedia('wa-retry', WA.token, { mimeType: 'image/png', bytes: photo });
  meta.failNext(1, { status: 500 }, (r) => r.path.endsWith('/wa-retry'));
  await postWhatsApp(whatsappMedia('wamid.RETRY', '15550100004', 'image', { id: 'wa-retry', mime_type: 'image/png' }));
  const worker = await startTestWorker(app);
  try {
    await waitFor(
      async () => {
        const [job] = await query(app, `select attempts, last_error from graphile_worker.jobs where task_identifier = 'fetch_attachment' and attempts = 1`);
        return job ?? null;
      },
      20_000,
      'the first attempt failed',
    );
    const [pending] = await query(app, `select attachments from messages where external_id = 'wamid.RETRY'`);
    t.is(pending.attachments[0].status, 'pending', 'a transient failure keeps it pending');
    await query(app, `update graphile_worker._private_jobs set run_at = now() where key like 'attachment:%'`);
    await waitFor(
      async () => {
        const [row] = await query(app, `select attachments from messages where external_id = 'wamid.RETRY'`);
        return row.attachments[0].status === 'stored' ? row : null;
      },
      20_000,
      'stored after the retry',
    );
  } finally {
    await worker.stop();
  }
  t.pass();
});

test.serial("a revoked token is a permanent failure with Graph's reason", async (t) => {
  meta.addMedia('wa-other-token', 'some-other-token', { mimeType: 'image/png', bytes: photo });
  await postWhatsApp(whatsappMedia('wamid.TOKEN', '15550100005', 'image', { id: 'wa-other-token' }));
  const message = await settledMessage('wamid.TOKEN');
  t.like(message.attachments[0], { status: 'failed', platform_file_id: 'wa-other-token' });
  t.regex(message.attachments[0].error, /Invalid OAuth access token/);
});

test.serial('storage: ranges across chunk boundaries, ETag, and an upload from before (disk driver) still served', async (t) => {
  const big = randomBytes(256 * 1024 * 2 + 1000);
  const bytes = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), big]);
  // Three chunks (larger than this file's attachment limit): stored through the upload route.
  const conversation = await app.request('POST', '/api/v1/conversations/', { token: owner.token, body: { business_id: owner.businessId } });
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: 'video/mp4' }), 'clip.mp4');
  const upload = await fetch(`${app.url}/api/v1/conversations/${conversation.body.id}/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}` },
    body: form,
  });
  const uploaded = (await upload.json()) as any;
  t.is(upload.status, 200);
  const key = uploaded.url.split('/').pop();
  const chunks = await query(app, `select seq, octet_length(data) as n from file_chunks where storage_key = $1 order by seq`, [key]);
  t.deepEqual(
    chunks.map((c) => c.seq),
    [0, 1, 2],
  );
  const start = 256 * 1024 - 10;
  const end = 2 * 256 * 1024 + 20;
  const ranged = await fetch(uploaded.url, { headers: { range: `bytes=${start}-${end}` } });
  t.is(ranged.status, 206);
  t.true(Buffer.from(await ranged.arrayBuffer()).equals(bytes.subarray(start, end + 1)));
  const whole = await fetch(uploaded.url);
  t.true(Buffer.from(await whole.arrayBuffer()).equals(bytes));
  const etag = whole.headers.get('etag')!;
  t.is(etag, `"${key}"`);
  t.is((await fetch(uploaded.url, { headers: { 'if-none-match': etag } })).status, 304);

  // A file from before migration 0088: on disk, its row says so.
  const { mkdirSync, writeFileSync } = await import('node:fs');
  const path = await import('node:path');
  const oldKey = randomBytes(32).toString('base64url');
  mkdirSync(path.join(app.deps.config.dataDir, 'uploads'), { recursive: true });
  writeFileSync(path.join(app.deps.config.dataDir, 'uploads', oldKey), photo);
  await query(app, `insert into uploads (business_id, storage_key, filename, content_type, size, driver) values ($1, $2, 'old.png', 'image/png', $3, 'disk')`, [
    owner.businessId,
    oldKey,
    photo.length,
  ]);
  const old = await fetch(`${app.url}/api/v1/uploads/${oldKey}`);
  t.is(old.status, 200);
  t.true(Buffer.from(await old.arrayBuffer()).equals(photo));
});
