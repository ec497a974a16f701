import test from 'ava';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import x, { crcResponseToken, forUserIdOf, webhookSignature, type XConfig } from '../connectors/x/index.ts';
import { ConnectorError, type ConnectorContext, type OutboundMessage, type WebhookRequest } from '../connectors/types.ts';
import { problem, signXWebhook, startFakeX, type FakeX } from './fakes/x.ts';
import { closedPort } from './helpers/ports.ts';
import { normalizeChannelConfig, secretFieldsOf } from '../core/domain/channels/channel-config.ts';

const config: XConfig = {
  api_key: 'consumer-key-1',
  api_secret: 'consumer-secret-1',
  access_token: '1000000000000000001-token',
  access_token_secret: 'token-secret-1',
  bearer_token: 'AAAA-bearer',
};
const user = { id: '1000000000000000001', name: 'Acme Support', username: 'acmesupport' };

let fake: FakeX;
let context: ConnectorContext;
test.before(async () => {
  fake = await startFakeX({ credentials: config, user });
  context = { baseUrl: fake.url, publicUrl: 'https://parley.example' };
});
test.after.always(() => fake?.close());

const fixture = (name: string) => readFileSync(new URL(`fixtures/${name}`, import.meta.url));

function webhook(rawBody: Buffer, signature?: string | false): WebhookRequest {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (signature !== false) headers['x-twitter-webhooks-signature'] = signature ?? signXWebhook(config.api_secret, rawBody);
  return { url: 'https://parley.example/api/v1/webhooks/x', headers, rawBody };
}

function outbound(overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    to: { platformUserId: '2000000000000000002', name: 'Grace Hopper' },
    text: 'We refunded the duplicate charge.',
    attachments: [],
    messageId: '77',
    ...overrides,
  };
}

test('config: five required fields, all secret', (t) => {
  t.deepEqual(normalizeChannelConfig('x', config), config);
  t.throws(() => normalizeChannelConfig('x', { ...config, bearer_token: undefined }), { message: 'Missing required config fields: bearer_token' });
  t.deepEqual(secretFieldsOf(x).sort(), ['access_token', 'access_token_secret', 'api_key', 'api_secret', 'bearer_token']);
});

test('crc: response_token is sha256= base64 HMAC-SHA256 of the token with the consumer secret', (t) => {
  const expected = 'sha256=' + createHmac('sha256', config.api_secret).update('crc-challenge-123').digest('base64');
  t.is(crcResponseToken(config.api_secret, 'crc-challenge-123'), expected);
  t.not(crcResponseToken('other-secret', 'crc-challenge-123'), expected);
  // Only X's token shape is signed: a JSON body would come back as its own webhook signature.
  t.throws(() => crcResponseToken(config.api_secret, '{"for_user_id":"1"}'));
  t.throws(() => crcResponseToken(config.api_secret, 'a'.repeat(129)));
});

test('parse: customer DMs become messages; own echoes are skipped', async (t) => {
  const events = await x.webhook.parse(webhook(fixture('x-dm-events.json')));
  t.deepEqual(events, [
    {
      kind: 'message',
      routingKey: '1000000000000000001',
      externalId: '1790000000000000101',
      from: { platformUserId: '2000000000000000002', name: 'Grace Hopper' },
      text: 'Hey, I was double charged for my subscription 😕',
      attachments: [],
      sentAt: '2026-01-01T10:00:00.123Z',
    },
    {
      kind: 'message',
      routingKey: '1000000000000000001',
      externalId: '1790000000000000103',
      from: { platformUserId: '2000000000000000002', name: 'Grace Hopper' },
      text: 'Here is the receipt https://t.co/AbCdEf123',
      attachments: [
        {
          url: 'https://ton.twitter.com/1.1/ton/data/dm/1790000000000000103/1790000000000000999/AbCdEf12.jpg',
          platform_file_id: '1790000000000000999',
          content_type: 'image/jpeg',
        },
      ],
      sentAt: '2026-01-01T10:02:00.789Z',
    },
  ]);
});

test('parse: other activity, malformed and foreign JSON give nothing', async (t) => {
  t.deepEqual(await x.webhook.parse(webhook(fixture('x-typing-indicator.json'))), []);
  t.deepEqual(await x.webhook.parse(webhook(Buffer.from('{"for_user_id":'))), []);
  t.deepEqual(await x.webhook.parse(webhook(Buffer.from('{"direct_message_events":[]}'))), []);
});

test('forUserIdOf: the routing key before verification', (t) => {
  t.is(forUserIdOf(fixture('x-dm-events.json')), '1000000000000000001');
  t.is(forUserIdOf(Buffer.from('nope')), undefined);
  t.is(forUserIdOf(Buffer.from('{"for_user_id":5}')), undefined);
});

test('verifyWebhook: right, wrong secret, missing, tampered', (t) => {
  const body = fixture('x-dm-events.json');
  t.is(webhookSignature(config.api_secret, body), signXWebhook(config.api_secret, body));
  t.true(x.webhook.verify(webhook(body), config, {}));
  t.false(x.webhook.verify(webhook(body, signXWebhook('another-secret', body)), config, {}));
  t.false(x.webhook.verify(webhook(body, false), config, {}));
  t.false(x.webhook.verify(webhook(body, 'sha256=short'), config, {}));
  const tampered = Buffer.from(body.toString('utf8').replace('double charged', 'charged thrice'));
  t.false(x.webhook.verify(webhook(tampered, signXWebhook(config.api_secret, body)), config, {}));
});

test.serial("send: a DM to the participant, OAuth 1.0a signed with the channel's keys", async (t) => {
  const result = await x.send(config, outbound(), context);
  const sent = fake.dms.at(-1)!;
  t.is(result.externalId, sent.dmEventId);
  t.is(sent.participantId, '2000000000000000002');
  t.is(sent.text, 'We refunded the duplicate charge.');
  t.is(sent.oauth.oauth_consumer_key, config.api_key);
  t.is(sent.oauth.oauth_token, config.access_token);
  t.like(fake.requests.at(-1), { method: 'POST', path: '/2/dm_conversations/with/2000000000000000002/messages', authorized: true });
});

test.serial('send: attachments go as links after the text', async (t) => {
  await x.send(
    config,
    outbound({
      text: 'Your invoice:',
      attachments: [{ url: 'https://parley.example/files/k/invoice.pdf', filename: 'invoice.pdf', content_type: 'application/pdf', size: 10 }],
    }),
    context,
  );
  t.is(fake.dms.at(-1)!.text, 'Your invoice:\nhttps://parley.example/files/k/invoice.pdf');
});

test.serial("send: wrong secrets are refused by X: permanent with X's text", async (t) => {
  const before = fake.dms.length;
  const error = await t.throwsAsync(x.send({ ...config, access_token_secret: 'wrong' }, outbound(), context), { instanceOf: ConnectorError });
  t.is(error.kind, 'permanent');
  t.is(error.message, 'Unauthorized');
  t.false(fake.requests.at(-1)!.authorized);
  t.is(fake.dms.length, before);
});

test.serial("send: 403 (DMs closed) is permanent with X's text", async (t) => {
  fake.failNext(1, 403, problem(403, 'Forbidden', 'You are not permitted to send a message to this user.'));
  const error = await t.throwsAsync(x.send(config, outbound(), context), { instanceOf: ConnectorError });
  t.is(error.kind, 'permanent');
  t.is(error.message, 'You are not permitted to send a message to this user.');
});

test.serial('send: 429 is transient until the rate limit resets; 500 is transient', async (t) => {
  const reset = Math.floor(Date.now() / 1000) + 600;
  fake.failNext(1, 429, problem(429, 'Too Many Requests', 'Too Many Requests'), {
    'x-rate-limit-limit': '200',
    'x-rate-limit-remaining': '0',
    'x-rate-limit-reset': String(reset),
  });
  const limited = await t.throwsAsync(x.send(config, outbound(), context), { instanceOf: ConnectorError });
  t.is(limited.kind, 'transient');
  t.true(limited.retryAfterSeconds! > 590 && limited.retryAfterSeconds! <= 600, String(limited.retryAfterSeconds));
  fake.failNext(1, 500, problem(500, 'Internal Server Error', 'Something went wrong'));
  const server = await t.throwsAsync(x.send(config, outbound(), context), { instanceOf: ConnectorError });
  t.is(server.kind, 'transient');
  t.is(server.message, 'Something went wrong');
  const ok = await x.send(config, outbound(), context);
  t.is(ok.externalId, fake.dms.at(-1)!.dmEventId);
});

test('send: X unreachable is transient', async (t) => {
  const port = await closedPort();
  const error = await t.throwsAsync(x.send(config, outbound(), { ...context, baseUrl: `http://127.0.0.1:${port}` }), { instanceOf: ConnectorError });
  t.is(error.kind, 'transient');
  t.regex(error.message, /^X unreachable/);
});

test('send: an empty or overlong DM is permanent without a request', async (t) => {
  const empty = await t.throwsAsync(x.send(config, outbound({ text: ' ' }), context), { instanceOf: ConnectorError });
  t.is(empty.kind, 'permanent');
  const long = await t.throwsAsync(x.send(config, outbound({ text: 'a'.repeat(10_001) }), context), { instanceOf: ConnectorError });
  t.is(long.kind, 'permanent');
});

test.serial('register: keeps the account id as the routing key', async (t) => {
  const result = await x.register!(config, { webhookUrl: 'https://parley.example/api/v1/webhooks/x', secret: 's', state: { keep: true } }, context);
  t.deepEqual(result, { status: 'connected', state: { keep: true, user_id: user.id, username: user.username } });
  t.like(fake.requests.at(-1), { method: 'GET', path: '/2/users/me', authorized: true });
});

test.serial('register: bad credentials are an error; an outage is retried', async (t) => {
  const result = await x.register!({ ...config, api_key: 'other' }, { webhookUrl: '', secret: 's', state: {} }, context);
  t.deepEqual(result, { status: 'error', last_error: 'Unauthorized' });
  fake.failNext(1, 503, problem(503, 'Service Unavailable', 'Service Unavailable'));
  const error = await t.throwsAsync(x.register!(config, { webhookUrl: '', secret: 's', state: {} }, context), { instanceOf: ConnectorError });
  t.is(error.kind, 'transient');
});
