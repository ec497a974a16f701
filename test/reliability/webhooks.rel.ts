/**
 * Nothing lost, nothing doubled, for every inbound path: each platform's webhook (and the
 * website visitor's message) delivered 10 times concurrently, the copies of three messages
 * shuffled together, while a worker processes what arrives. Each message is stored once.
 */
import test from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createWorkspace, type Workspace } from '../helpers/fixtures.ts';
import { query, startTestWorker, waitFor } from '../helpers/worker.ts';
import type { SupervisedRunner } from '../../workers/supervisor.ts';
import { instagramMessagePayload, postMetaWebhook, startFakeMeta, whatsappTextPayload, type FakeMeta } from '../fakes/meta.ts';
import { postTelegramWebhook, startFakeTelegram, telegramTextUpdate, type FakeTelegram } from '../fakes/telegram.ts';
import { signTwilioWebhook, startFakeTwilio, type FakeTwilio } from '../fakes/twilio.ts';
import { signXWebhook, startFakeX, type FakeX } from '../fakes/x.ts';
import { startFakeSmtp, type FakeSmtp } from '../fakes/smtp.ts';

const PUBLIC_URL = 'https://parley.example';
const COPIES = 10;
const MESSAGES = 3;
const WA = { phoneNumberId: '106540352242999', token: 'rel-wa-token', appSecret: 'rel-wa-secret' };
const IG = { accountId: '17841405822300099', token: 'rel-ig-token', appSecret: 'rel-ig-secret' };
const TWILIO = { accountSid: 'AC' + 'ae15'.repeat(8), authToken: 'rel-twilio-token', number: '+15550009999' };
const X_CREDENTIALS = { api_key: 'rel-key', api_secret: 'rel-secret', access_token: '1000000000000000099-rel', access_token_secret: 'rel-token-secret' };
const X_ACCOUNT = { id: '1000000000000000099', name: 'Acme Rel', username: 'acmerel' };
const MAILBOX = { address: 'support@rel.test', password: 'rel-smtp-password' };

let app: TestApp;
let owner: Workspace;
let worker: SupervisedRunner;
let meta: FakeMeta;
let telegram: FakeTelegram;
let twilio: FakeTwilio;
let x: FakeX;
let smtp: FakeSmtp;

test.before(async () => {
  meta = await startFakeMeta();
  meta.addWhatsAppNumber(WA.phoneNumberId, WA.token);
  meta.addInstagramAccount(IG.accountId, IG.token);
  telegram = await startFakeTelegram();
  twilio = await startFakeTwilio({ accountSid: TWILIO.accountSid, authToken: TWILIO.authToken, numbers: [TWILIO.number] });
  x = await startFakeX({ credentials: X_CREDENTIALS, user: X_ACCOUNT });
  smtp = await startFakeSmtp({ user: MAILBOX.address, password: MAILBOX.password });
  app = await startTestApp({
    env: {
      PUBLIC_URL,
      META_GRAPH_URL: meta.graphUrl,
      INSTAGRAM_GRAPH_URL: meta.instagramUrl,
      TELEGRAM_API_URL: telegram.url,
      TWILIO_API_URL: twilio.url,
      X_API_URL: x.url,
    },
  });
  owner = await createWorkspace(app, { plan: 'Pro' });
  worker = await startTestWorker(app);
});

test.after.always(async () => {
  await worker?.stop();
  await app?.close();
  for (const fake of [meta, telegram, twilio, x, smtp]) await fake?.close();
});

async function connectedChannel(type: string, config: Record<string, string>): Promise<string> {
  const res = await app.request('POST', '/api/v1/channels/', { token: owner.token, body: { type, config } });
  if (res.status !== 200) throw new Error(`create ${type} channel: ${res.status} ${res.text}`);
  await waitFor(
    async () => (await query(app, 'select status from channels where id = $1', [res.body.id]))[0].status === 'connected',
    30_000,
    `${type} channel connected`,
  );
  return res.body.id;
}

/** A message's webhook request, the same bytes at every call. */
type Delivery = () => Promise<Response>;

/**
 * Sends every delivery COPIES times, all at once and shuffled (copies of different messages
 * interleave, as a platform's retries do), then waits until each text is stored and checks
 * it is stored exactly once.
 */
async function redeliver(t: import('ava').ExecutionContext, channelId: string, make: (text: string, n: number) => Delivery, messages = MESSAGES) {
  const tag = randomBytes(3).toString('hex');
  const texts = Array.from({ length: messages }, (_, n) => `rel ${tag} message ${n + 1}`);
  const deliveries = texts.map((text, n) => make(text, n + 1));
  const shots = deliveries.flatMap((send) => Array.from({ length: COPIES }, () => send));
  for (let i = shots.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [shots[i], shots[j]] = [shots[j], shots[i]];
  }
  const statuses = await Promise.all(shots.map(async (send) => (await send()).status));
  t.true(
    statuses.every((s) => s >= 200 && s < 300),
    `every copy acknowledged: ${statuses.join(',')}`,
  );
  const counts = () =>
    query(app, `select content, count(*)::int as n from messages where channel_id = $1 and sender_type = 'customer' and content = any($2) group by content`, [
      channelId,
      texts,
    ]);
  await waitFor(async () => (await counts()).length === texts.length, 60_000, 'every message stored');
  // Whatever is still queued for this channel finishes before counting.
  await waitFor(
    async () => (await query(app, `select count(*)::int as n from inbound_events where channel_id = $1 and processed_at is null`, [channelId]))[0].n === 0,
    60_000,
    'events processed',
  );
  for (const row of await counts()) t.is(row.n, 1, `"${row.content}" stored once from ${COPIES} deliveries`);
}

test('WhatsApp', async (t) => {
  const channel = await connectedChannel('whatsapp', {
    phone_number_id: WA.phoneNumberId,
    access_token: WA.token,
    app_secret: WA.appSecret,
    verify_token: 'rel-verify',
  });
  await redeliver(t, channel, (text) => {
    const payload = whatsappTextPayload({ phoneNumberId: WA.phoneNumberId, from: '15550001234', id: `wamid.rel-${randomUUID()}`, text });
    return () => postMetaWebhook(`${app.url}/api/v1/webhooks/whatsapp`, payload, WA.appSecret);
  });
});

test('Instagram', async (t) => {
  const channel = await connectedChannel('instagram', { access_token: IG.token, instagram_business_account_id: IG.accountId, app_secret: IG.appSecret });
  await redeliver(t, channel, (text) => {
    const payload = instagramMessagePayload({ accountId: IG.accountId, senderId: '5550001234', mid: `mid.rel-${randomUUID()}`, text });
    return () => postMetaWebhook(`${app.url}/api/v1/webhooks/instagram`, payload, IG.appSecret);
  });
});

test('Telegram', async (t) => {
  const token = telegram.addBot({ username: 'rel_support_bot' });
  const channel = await connectedChannel('telegram', { bot_token: token });
  const [row] = await query(app, 'select state from channels where id = $1', [channel]);
  const url = `${app.url}${new URL(telegram.bot(token)!.webhook!.url).pathname}`;
  await redeliver(t, channel, (text, n) => {
    const update = telegramTextUpdate({ updateId: 70_000 + n, chatId: 4242, messageId: 100 + n, text });
    return () => postTelegramWebhook(url, update, row.state.webhook_secret);
  });
});

test('SMS (Twilio)', async (t) => {
  const channel = await connectedChannel('sms', { account_sid: TWILIO.accountSid, auth_token: TWILIO.authToken, from_number: TWILIO.number });
  const path = `/api/v1/webhooks/sms/${channel}`;
  await redeliver(t, channel, (text) => {
    const sid = 'SM' + randomBytes(16).toString('hex');
    const form = {
      SmsMessageSid: sid,
      NumMedia: '0',
      SmsSid: sid,
      SmsStatus: 'received',
      Body: text,
      To: TWILIO.number,
      NumSegments: '1',
      MessageSid: sid,
      AccountSid: TWILIO.accountSid,
      From: '+15550004321',
      ApiVersion: '2010-04-01',
    };
    const signature = signTwilioWebhook(TWILIO.authToken, PUBLIC_URL + path, form);
    return () =>
      fetch(app.url + path, {
        method: 'POST',
        body: new URLSearchParams(form).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
      });
  });
});

test('X', async (t) => {
  const channel = await connectedChannel('x', { ...X_CREDENTIALS, bearer_token: 'AAAA-rel' });
  const sender = { id: '2000000000000000099', name: 'Grace Rel', screen_name: 'gracerel' };
  await redeliver(t, channel, (text) => {
    const raw = JSON.stringify({
      for_user_id: X_ACCOUNT.id,
      direct_message_events: [
        {
          type: 'message_create',
          id: String(1790000000000000000n + BigInt(Math.floor(Math.random() * 1e12))),
          created_timestamp: String(Date.now()),
          message_create: { target: { recipient_id: X_ACCOUNT.id }, sender_id: sender.id, message_data: { text } },
        },
      ],
      users: { [sender.id]: sender, [X_ACCOUNT.id]: { id: X_ACCOUNT.id, name: X_ACCOUNT.name, screen_name: X_ACCOUNT.username } },
    });
    const signature = signXWebhook(X_CREDENTIALS.api_secret, raw);
    return () =>
      fetch(`${app.url}/api/v1/webhooks/x`, {
        method: 'POST',
        body: raw,
        headers: { 'content-type': 'application/json', 'x-twitter-webhooks-signature': signature },
      });
  });
});

test('E-mail (raw MIME forwarded by the mail provider)', async (t) => {
  const channel = await connectedChannel('email', {
    address: MAILBOX.address,
    smtp_host: '127.0.0.1',
    smtp_port: String(smtp.port),
    smtp_user: MAILBOX.address,
    smtp_password: MAILBOX.password,
  });
  const listed = (await app.request('GET', '/api/v1/channels/', { token: owner.token })).body.find((c: { id: string }) => c.id === channel);
  await redeliver(t, channel, (text) => {
    const mime = [
      `From: Ada <ada@customer.test>`,
      `To: ${MAILBOX.address}`,
      `Subject: Order question`,
      `Date: ${new Date().toUTCString()}`,
      `Message-ID: <${randomUUID()}@customer.test>`,
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset="UTF-8"',
      '',
      text,
      '',
    ].join('\r\n');
    return () =>
      fetch(listed.inbound_webhook.url.replace(PUBLIC_URL, app.url), {
        method: 'POST',
        body: mime,
        headers: { 'content-type': 'message/rfc822', 'x-parley-webhook-secret': listed.inbound_webhook.secret },
      });
  });
});

test('Website widget (a visitor message sent again with its client_message_id)', async (t) => {
  const widget = await app.request('POST', '/api/v1/widget/create', {
    token: owner.token,
    body: { domain: `rel-${randomBytes(3).toString('hex')}.example.com` },
  });
  t.is(widget.status, 200, widget.text);
  const [{ id: channel }] = await query(app, `select id from channels where type = 'widget' and routing_key = $1`, [widget.body.id]);
  const session = await app.request('POST', '/api/v1/visitor/sessions', { body: { widget_id: widget.body.id } });
  t.is(session.status, 200, session.text);
  // Two messages: every copy counts against the visitor's 20 messages a minute (VISITOR_MESSAGE_RATE).
  await redeliver(
    t,
    channel,
    (text) => {
      const body = JSON.stringify({ content: text, client_message_id: randomUUID() });
      return () =>
        fetch(`${app.url}/api/v1/visitor/messages`, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${session.body.visitor_token}` },
        });
    },
    2,
  );
});
