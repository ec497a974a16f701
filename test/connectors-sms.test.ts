import test from 'ava';
import { readFileSync } from 'node:fs';
import sms, { TWIML_EMPTY_RESPONSE, twimlEmptyResponse, type SmsConfig } from '../connectors/sms/index.ts';
import { ConnectorError, type ConnectorContext, type OutboundMessage, type WebhookRequest } from '../connectors/types.ts';
import { signTwilioWebhook, startFakeTwilio, twilioError, type FakeTwilio } from './fakes/twilio.ts';
import { closedPort } from './helpers/ports.ts';
import { normalizeChannelConfig, secretFieldsOf } from '../core/domain/channels/channel-config.ts';

const config: SmsConfig = { account_sid: 'AC00000000000000000000000000000001', auth_token: 'twilio-auth-token-1', from_number: '+15550001111' };
const webhookUrl = 'https://parley.example/api/v1/webhooks/sms/42';

let fake: FakeTwilio;
let context: ConnectorContext;
test.before(async () => {
  fake = await startFakeTwilio({ accountSid: config.account_sid, authToken: config.auth_token, numbers: [config.from_number] });
  context = { baseUrl: fake.url, publicUrl: 'https://parley.example' };
});
test.after.always(() => fake?.close());

function fixture(name: string): Buffer {
  return readFileSync(new URL(`fixtures/${name}`, import.meta.url));
}

/** A webhook request as the route would hand it over, signed (or not) like Twilio. */
function webhook(name: string, options: { sign?: string | false; url?: string; form?: boolean } = {}): WebhookRequest {
  const rawBody = fixture(name);
  const form = Object.fromEntries(new URLSearchParams(rawBody.toString('utf8')));
  const url = options.url ?? webhookUrl;
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (options.sign !== false) headers['x-twilio-signature'] = signTwilioWebhook(options.sign ?? config.auth_token, webhookUrl, form);
  return { url, headers, rawBody, ...(options.form === false ? {} : { form }) };
}

function outbound(overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  return { to: { platformUserId: '+15557654321', phone: '+15557654321' }, text: 'Your parcel ships today.', attachments: [], messageId: '1001', ...overrides };
}

test('config: account_sid must start with AC; auth_token is the secret', (t) => {
  t.deepEqual(normalizeChannelConfig('sms', config), config);
  t.throws(() => normalizeChannelConfig('sms', { ...config, account_sid: 'SK123' }), { message: /starts with AC/ });
  t.throws(() => normalizeChannelConfig('sms', { account_sid: config.account_sid, auth_token: 'x' }), {
    message: 'Missing required config fields: from_number',
  });
  t.deepEqual(secretFieldsOf(sms), ['auth_token']);
  t.is(sms.type, 'sms');
});

test('parse: an inbound SMS', async (t) => {
  const events = await sms.webhook.parse(webhook('sms-inbound.txt'));
  t.is(events.length, 1);
  const [message] = events;
  if (message.kind !== 'message') return t.fail();
  t.is(message.externalId, 'SM0f6c2b9ad0c3a2c8e7b1f6d3a4e5c6b7');
  t.is(message.routingKey, '+15550001111');
  t.deepEqual(message.from, { platformUserId: '+15557654321', phone: '+15557654321' });
  t.is(message.text, "Hi, my order #1042 hasn't arrived yet. Can you help?");
  t.deepEqual(message.attachments, []);
  t.false(Number.isNaN(Date.parse(message.sentAt)));
});

test('parse: an MMS with two media, from the raw body when no form was parsed', async (t) => {
  const [message] = await sms.webhook.parse(webhook('sms-inbound-mms.txt', { form: false }));
  if (message?.kind !== 'message') return t.fail();
  t.is(message.text, 'Here is the damaged box');
  t.deepEqual(message.attachments, [
    {
      url: 'https://api.twilio.com/2010-04-01/Accounts/AC00000000000000000000000000000001/Messages/MM9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d/Media/ME11111111111111111111111111111111',
      content_type: 'image/jpeg',
    },
    {
      url: 'https://api.twilio.com/2010-04-01/Accounts/AC00000000000000000000000000000001/Messages/MM9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d/Media/ME22222222222222222222222222222222',
      content_type: 'application/pdf',
    },
  ]);
});

test('parse: status callbacks become receipts; queued is ignored', async (t) => {
  const [delivered] = await sms.webhook.parse(webhook('sms-status-delivered.txt'));
  t.like(delivered, { kind: 'receipt', externalId: 'SMaaaabbbbccccddddeeeeffff00001111', status: 'delivered', routingKey: '+15550001111' });
  t.is((delivered as { error?: string }).error, undefined);
  const [failed] = await sms.webhook.parse(webhook('sms-status-undelivered.txt'));
  t.like(failed, {
    kind: 'receipt',
    externalId: 'SMaaaabbbbccccddddeeeeffff00002222',
    status: 'failed',
    error: 'Unreachable destination handset (Twilio error 30003)',
  });
  t.deepEqual(await sms.webhook.parse(webhook('sms-status-queued.txt')), []);
  t.deepEqual(await sms.webhook.parse({ url: webhookUrl, headers: {}, rawBody: Buffer.from('foo=bar'), form: { foo: 'bar' } }), []);
});

test('verifyWebhook: right, wrong token, missing, tampered, other URL', (t) => {
  t.true(sms.webhook.verify(webhook('sms-inbound.txt'), config, {}));
  t.true(sms.webhook.verify(webhook('sms-status-undelivered.txt', { form: false }), config, {}));
  t.false(sms.webhook.verify(webhook('sms-inbound.txt', { sign: 'another-token' }), config, {}));
  t.false(sms.webhook.verify(webhook('sms-inbound.txt', { sign: false }), config, {}));
  const tampered = webhook('sms-inbound.txt');
  tampered.form = { ...tampered.form!, Body: 'Please refund me $5000' };
  t.false(sms.webhook.verify(tampered, config, {}));
  t.false(sms.webhook.verify(webhook('sms-inbound.txt', { url: 'https://parley.example/api/v1/webhooks/sms/43' }), config, {}));
  t.false(sms.webhook.verify(webhook('sms-inbound.txt', { url: 'not a url' }), config, {}));
});

test('twiml: the empty response', (t) => {
  t.regex(TWIML_EMPTY_RESPONSE, /<Response><\/Response>$/);
  t.deepEqual(twimlEmptyResponse(), { contentType: 'text/xml', body: TWIML_EMPTY_RESPONSE });
});

test.serial('send: posts To/From/Body with Basic auth, media and status callback', async (t) => {
  const result = await sms.send(
    config,
    outbound({
      attachments: [{ url: 'https://parley.example/files/abc/label.pdf', filename: 'label.pdf', content_type: 'application/pdf', size: 1234 }],
      statusCallbackUrl: webhookUrl,
    }),
    context,
  );
  const sent = fake.messages.at(-1)!;
  t.is(result.externalId, sent.sid);
  t.regex(sent.sid, /^SM[0-9a-f]{32}$/);
  t.is(sent.to, '+15557654321');
  t.is(sent.from, '+15550001111');
  t.is(sent.body, 'Your parcel ships today.');
  t.deepEqual(sent.mediaUrl, ['https://parley.example/files/abc/label.pdf']);
  t.is(sent.statusCallback, webhookUrl);
  t.like(fake.requests.at(-1), { method: 'POST', path: `/2010-04-01/Accounts/${config.account_sid}/Messages.json`, authorized: true });
});

test.serial('send: without a status callback URL none is asked for', async (t) => {
  await sms.send(config, outbound({ text: 'Plain' }), context);
  const sent = fake.messages.at(-1)!;
  t.is(sent.body, 'Plain');
  t.false(sent.form.has('StatusCallback'));
  t.false(sent.form.has('MediaUrl'));
});

test.serial("send: a wrong auth token is permanent with Twilio's text", async (t) => {
  const before = fake.messages.length;
  const error = await t.throwsAsync(sms.send({ ...config, auth_token: 'wrong' }, outbound(), context), { instanceOf: ConnectorError });
  t.is(error.kind, 'permanent');
  t.is(error.message, 'Authenticate (Twilio error 20003)');
  t.false(fake.requests.at(-1)!.authorized);
  t.is(fake.messages.length, before);
});

test.serial('send: an invalid number is permanent', async (t) => {
  const error = await t.throwsAsync(sms.send(config, outbound({ to: { platformUserId: 'abc' } }), context), { instanceOf: ConnectorError });
  t.is(error.kind, 'permanent');
  t.is(error.message, "The 'To' number abc is not a valid phone number. (Twilio error 21211)");
  fake.failNext(1, 400, twilioError(400, 21610, 'Attempt to send to unsubscribed recipient'));
  const unsubscribed = await t.throwsAsync(sms.send(config, outbound(), context), { instanceOf: ConnectorError });
  t.is(unsubscribed.kind, 'permanent');
  t.regex(unsubscribed.message, /unsubscribed recipient/);
});

test.serial('send: 500 and 429 are transient, 429 with its Retry-After', async (t) => {
  fake.failNext(1, 500, twilioError(500, 20500, 'Internal Server Error'));
  const server = await t.throwsAsync(sms.send(config, outbound(), context), { instanceOf: ConnectorError });
  t.is(server.kind, 'transient');
  t.regex(server.message, /Internal Server Error/);
  fake.failNext(1, 429, twilioError(429, 20429, 'Too Many Requests'), { 'retry-after': '7' });
  const limited = await t.throwsAsync(sms.send(config, outbound(), context), { instanceOf: ConnectorError });
  t.is(limited.kind, 'transient');
  t.is(limited.retryAfterSeconds, 7);
  fake.failNext(1, 503, 'Service Unavailable');
  const html = await t.throwsAsync(sms.send(config, outbound(), context), { instanceOf: ConnectorError });
  t.is(html.kind, 'transient');
  const ok = await sms.send(config, outbound(), context);
  t.is(ok.externalId, fake.messages.at(-1)!.sid);
});

test('send: an unreachable Twilio is transient', async (t) => {
  const port = await closedPort();
  const error = await t.throwsAsync(sms.send(config, outbound(), { ...context, baseUrl: `http://127.0.0.1:${port}` }), { instanceOf: ConnectorError });
  t.is(error.kind, 'transient');
  t.regex(error.message, /^Twilio unreachable/);
});

test('send: nothing to send is permanent, without a request', async (t) => {
  const before = fake.requests.length;
  const error = await t.throwsAsync(sms.send(config, outbound({ text: '  ' }), context), { instanceOf: ConnectorError });
  t.is(error.kind, 'permanent');
  t.is(fake.requests.length, before);
});

test.serial("register: points the number's SMS URL at the webhook", async (t) => {
  const result = await sms.register!(config, { webhookUrl, secret: 's', state: { keep: 1 } }, context);
  t.is(result.status, 'connected');
  t.like(result.state, { keep: 1, sms_url_configured: true, phone_number_sid: fake.numbers[0].sid });
  t.like(fake.numbers[0], { smsUrl: webhookUrl, smsMethod: 'POST' });
});

test.serial('register: a sender that is not a number of the account stays connected, unconfigured', async (t) => {
  const result = await sms.register!({ ...config, from_number: 'PARLEY' }, { webhookUrl, secret: 's', state: {} }, context);
  // Connected, but nothing ties the sender to the account: it claims no number (channels' routing_proven).
  t.deepEqual(result, { status: 'connected', proven: false, state: { sms_url_configured: false } });
});

test.serial('register: bad credentials are an error; an outage is retried', async (t) => {
  const result = await sms.register!({ ...config, auth_token: 'nope' }, { webhookUrl, secret: 's', state: {} }, context);
  t.deepEqual(result, { status: 'error', last_error: 'Authenticate (Twilio error 20003)' });
  fake.failNext(1, 502, twilioError(502, 0, 'Bad Gateway'));
  const error = await t.throwsAsync(sms.register!(config, { webhookUrl, secret: 's', state: {} }, context), { instanceOf: ConnectorError });
  t.is(error.kind, 'transient');
});
