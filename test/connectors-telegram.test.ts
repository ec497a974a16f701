import test from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import telegram, { parseTelegramUpdate } from '../connectors/telegram/index.ts';
import { telegramSecretToken } from '../connectors/telegram/register.ts';
import { splitText } from '../connectors/split-text.ts';
import { ConnectorError, type ConnectorContext, type OutboundMessage } from '../connectors/types.ts';
import { startFakeTelegram, telegramTextUpdate, telegramWebhookRequest, type FakeTelegram } from './fakes/telegram.ts';
import { closedPort } from './helpers/ports.ts';
import { normalizeChannelConfig, secretFieldsOf } from '../core/domain/channels/channel-config.ts';

const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, 'fixtures', 'telegram', name));

let fake: FakeTelegram;
test.before(async () => {
  fake = await startFakeTelegram();
});
test.after.always(() => fake?.close());

function contextFor(apiRoot: string): ConnectorContext {
  return {
    baseUrl: apiRoot,
    publicUrl: 'https://parley.example',
  };
}

function outbound(chatId: string, text: string, attachments: OutboundMessage['attachments'] = []): OutboundMessage {
  return { to: { platformUserId: chatId }, text, attachments, messageId: '00000000-0000-4000-8000-000000000001' };
}

async function rejection(t: { throwsAsync: any }, promise: Promise<unknown>): Promise<ConnectorError> {
  const error = await t.throwsAsync(promise, { instanceOf: ConnectorError });
  return error as ConnectorError;
}

// Parsing

test('parses a text message', async (t) => {
  const events = await telegram.webhook.parse(telegramWebhookRequest(JSON.parse(fixture('text.json').toString()), 's'));
  t.deepEqual(events, [
    {
      kind: 'message',
      externalId: '123456789:42',
      from: { platformUserId: '123456789', name: 'Ada Lovelace' },
      text: 'Hi, my order #1042 has not arrived yet',
      attachments: [],
      sentAt: '2026-01-01T00:00:00.000Z',
    },
  ]);
});

test('parses a photo: the largest size, the caption as text', async (t) => {
  const [event] = await telegram.webhook.parse({ url: '', headers: {}, rawBody: fixture('photo.json') });
  t.is(event.kind, 'message');
  if (event.kind !== 'message') return;
  t.is(event.text, 'The box arrived damaged');
  t.is(event.externalId, '123456789:43');
  t.is(event.from.name, 'Ada');
  t.deepEqual(event.attachments, [{ platform_file_id: 'AgACAgQAAxkBAAIBX2aLarge', content_type: 'image/jpeg', size: 86110 }]);
  t.is(event.sentAt, new Date(1767225660 * 1000).toISOString());
});

test('parses a document with its name, type and size', async (t) => {
  const [event] = await telegram.webhook.parse({ url: '', headers: {}, rawBody: fixture('document.json') });
  if (event?.kind !== 'message') return t.fail('no message');
  t.is(event.text, '');
  t.deepEqual(event.attachments, [
    { platform_file_id: 'BQACAgQAAxkBAAIBYGaInvoice', filename: 'invoice-1042.pdf', content_type: 'application/pdf', size: 48213 },
  ]);
});

test('edits, callbacks, service messages and garbage are not messages', async (t) => {
  for (const name of ['edited.json', 'callback-query.json', 'new-chat-members.json']) {
    t.deepEqual(await telegram.webhook.parse({ url: '', headers: {}, rawBody: fixture(name) }), [], name);
  }
  t.deepEqual(await telegram.webhook.parse({ url: '', headers: {}, rawBody: Buffer.from('{not json') }), []);
  t.deepEqual(await telegram.webhook.parse({ url: '', headers: {}, rawBody: Buffer.from('{"update_id": 1}') }), []);
  t.is(
    parseTelegramUpdate({ update_id: 2, message: { message_id: 1, date: 1, chat: { id: 5, type: 'private' }, from: { id: 9, is_bot: true }, text: 'bot' } }),
    null,
  );
});

test("a group message is the group's conversation, named after the group", (t) => {
  const event = parseTelegramUpdate({
    update_id: 3,
    message: {
      message_id: 8,
      date: 1767225600,
      chat: { id: -100123, type: 'supergroup', title: 'Acme customers' },
      from: { id: 77, is_bot: false, first_name: 'Grace' },
      text: 'hello',
    },
  });
  t.is(event?.from.platformUserId, '-100123');
  t.is(event?.from.name, 'Acme customers');
  t.is(event?.externalId, '-100123:8');
});

// Webhook secret

test('verifyWebhook compares the secret token header with the channel state', (t) => {
  const state = { mode: 'webhook', webhook_secret: 'S3cret_token-1' };
  const update = telegramTextUpdate({ updateId: 1, chatId: 5, messageId: 1, text: 'hi' });
  const config = { bot_token: '1:x' };
  t.true(telegram.webhook.verify(telegramWebhookRequest(update, 'S3cret_token-1'), config, state));
  t.false(telegram.webhook.verify(telegramWebhookRequest(update, 'S3cret_token-2'), config, state));
  t.false(telegram.webhook.verify(telegramWebhookRequest(update, 'S3cret_token-1x'), config, state));
  t.false(telegram.webhook.verify(telegramWebhookRequest(update, undefined), config, state));
  t.false(telegram.webhook.verify(telegramWebhookRequest(update, ''), config, { mode: 'polling', offset: 0 }));
  t.false(telegram.webhook.verify(telegramWebhookRequest(update, 'anything'), config, {}));
});

// Sending

test("sends a text with sendMessage to the bot's own path", async (t) => {
  const token = fake.addBot();
  const before = fake.requests.length;
  const result = await telegram.send({ bot_token: token }, outbound('555001', 'Your order ships today.'), contextFor(fake.url));
  t.deepEqual(result, { externalId: '555001:1' });
  const request = fake.requests.slice(before).find((r) => r.apiMethod === 'sendMessage')!;
  t.is(request.path, `/bot${token}/sendMessage`);
  t.is(request.method, 'POST');
  t.regex(request.headers['content-type'] ?? '', /^application\/json/);
  t.deepEqual(request.json, { chat_id: '555001', text: 'Your order ships today.' });
  const second = await telegram.send({ bot_token: token }, outbound('555001', 'And another.'), contextFor(fake.url));
  t.is(second.externalId, '555001:2');
});

test('a long reply is split into messages in order; the first id is the external id', async (t) => {
  const token = fake.addBot();
  const text = `${'a'.repeat(3000)}\n\n${'b'.repeat(3000)}\n\n${'c'.repeat(3000)}`;
  const result = await telegram.send({ bot_token: token }, outbound('555002', text), contextFor(fake.url));
  const sent = fake.sent.filter((m) => m.token === token);
  t.deepEqual(
    sent.map((m) => m.text),
    ['a'.repeat(3000), 'b'.repeat(3000), 'c'.repeat(3000)],
  );
  t.is(result.externalId, '555002:1');
});

test('one photo with a short text goes as a photo with a caption, by URL', async (t) => {
  const token = fake.addBot();
  const photo = { url: 'https://files.parley.example/u/abc/box.jpg', filename: 'box.jpg', content_type: 'image/jpeg', size: 120_000 };
  const result = await telegram.send({ bot_token: token }, outbound('555003', 'Like this one?', [photo]), contextFor(fake.url));
  const request = fake.requests.find((r) => r.token === token && r.apiMethod === 'sendPhoto')!;
  t.deepEqual(request.json, { chat_id: '555003', photo: photo.url, caption: 'Like this one?' });
  t.is(result.externalId, '555003:1');
  t.is(fake.sent.filter((m) => m.token === token).length, 1);
});

test('a PDF goes by URL, an unsupported type as a link in the text', async (t) => {
  const token = fake.addBot();
  const pdf = { url: 'https://files.parley.example/u/1/invoice.pdf', filename: 'invoice.pdf', content_type: 'application/pdf', size: 40_000 };
  const docx = {
    url: 'https://files.parley.example/u/2/terms.docx',
    filename: 'terms.docx',
    content_type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    size: 9_000,
  };
  await telegram.send({ bot_token: token }, outbound('555004', 'Here you go', [pdf, docx]), contextFor(fake.url));
  const sent = fake.sent.filter((m) => m.token === token);
  t.deepEqual(
    sent.map((m) => [m.method, m.document ?? null, m.caption ?? m.text]),
    [['sendDocument', pdf.url, `Here you go\n\n📎 terms.docx: ${docx.url}`]],
  );
});

test('a file URL Telegram cannot fetch falls back to a link', async (t) => {
  const token = fake.addBot();
  const photo = { url: 'http://localhost:8000/uploads/x/photo.png', filename: 'photo.png', content_type: 'image/png', size: 1000 };
  const result = await telegram.send({ bot_token: token }, outbound('555005', 'See attached', [photo]), contextFor(fake.url));
  const calls = fake.requests.filter((r) => r.token === token).map((r) => r.apiMethod);
  t.deepEqual(calls, ['sendPhoto', 'sendMessage']);
  const sent = fake.sent.filter((m) => m.token === token);
  t.deepEqual(
    sent.map((m) => m.text),
    [`See attached\n\n📎 photo.png: ${photo.url}`],
  );
  t.is(result.externalId, '555005:1');
});

// Error classification

test("a bad token is permanent with Telegram's description", async (t) => {
  const error = await rejection(t, telegram.send({ bot_token: '999:not-a-bot' }, outbound('1', 'hi'), contextFor(fake.url)));
  t.is(error.kind, 'permanent');
  t.is(error.message, 'Unauthorized');
});

test('a blocked bot is permanent: "Forbidden: bot was blocked by the user"', async (t) => {
  const token = fake.addBot();
  fake.blockChat('666');
  const error = await rejection(t, telegram.send({ bot_token: token }, outbound('666', 'hi'), contextFor(fake.url)));
  t.is(error.kind, 'permanent');
  t.is(error.message, 'Forbidden: bot was blocked by the user');
});

test.serial('a 500 is transient; the retry then succeeds', async (t) => {
  const token = fake.addBot();
  fake.failNext(1, { status: 500 });
  const error = await rejection(t, telegram.send({ bot_token: token }, outbound('777', 'hi'), contextFor(fake.url)));
  t.is(error.kind, 'transient');
  t.is(error.retryAfterSeconds, undefined);
  const result = await telegram.send({ bot_token: token }, outbound('777', 'hi'), contextFor(fake.url));
  t.is(result.externalId, '777:1');
});

test.serial("a 429 is transient with Telegram's retry_after", async (t) => {
  const token = fake.addBot();
  fake.failNext(1, { status: 429, retryAfter: 7 });
  const error = await rejection(t, telegram.send({ bot_token: token }, outbound('778', 'hi'), contextFor(fake.url)));
  t.is(error.kind, 'transient');
  t.is(error.retryAfterSeconds, 7);
  t.is(error.message, 'Too Many Requests: retry after 7');
});

test('an unreachable Telegram is transient', async (t) => {
  const port = await closedPort();
  const error = await rejection(t, telegram.send({ bot_token: '1:x' }, outbound('1', 'hi'), contextFor(`http://127.0.0.1:${port}`)));
  t.is(error.kind, 'transient');
  t.false(error.message.includes('1:x'), 'the token is not leaked into the error');
});

// Registration and polling

test('register with an https webhook URL sets the webhook with the secret', async (t) => {
  const token = fake.addBot({ username: 'acme_support_bot' });
  const webhookUrl = 'https://parley.example/api/v1/webhooks/telegram/0b8f0d36-5b34-4e8e-a8a7-4c07c9ad7e4b';
  const result = await telegram.register!({ bot_token: token }, { webhookUrl, secret: 'Abc_123-xyz', state: {} }, contextFor(fake.url));
  t.deepEqual(result, {
    status: 'connected',
    state: { mode: 'webhook', webhook_secret: 'Abc_123-xyz', bot_id: fake.bot(token)!.id, bot_username: 'acme_support_bot' },
  });
  const request = fake.requests.find((r) => r.token === token && r.apiMethod === 'setWebhook')!;
  t.deepEqual(request.json, { url: webhookUrl, secret_token: 'Abc_123-xyz', allowed_updates: ['message'] });
  t.deepEqual(fake.bot(token)!.webhook, { url: webhookUrl, secret_token: 'Abc_123-xyz', allowed_updates: ['message'] });
  // What Telegram then posts passes the check against that state.
  const update = telegramTextUpdate({ updateId: 1, chatId: 5, messageId: 1, text: 'hi' });
  t.true(telegram.webhook.verify(telegramWebhookRequest(update, 'Abc_123-xyz'), { bot_token: token }, result.state!));
});

test('a secret Telegram would refuse is replaced by its SHA-256 hex', async (t) => {
  const token = fake.addBot();
  const result = await telegram.register!(
    { bot_token: token },
    { webhookUrl: 'https://parley.example/w', secret: 'has spaces/and+plus', state: {} },
    contextFor(fake.url),
  );
  t.is(result.status, 'connected');
  t.is(result.state!.webhook_secret, telegramSecretToken('has spaces/and+plus'));
  t.regex(String(result.state!.webhook_secret), /^[0-9a-f]{64}$/);
});

test('register without https deletes the webhook and switches to polling', async (t) => {
  const token = fake.addBot();
  await telegram.register!({ bot_token: token }, { webhookUrl: 'https://parley.example/w', secret: 'abc', state: {} }, contextFor(fake.url));
  const result = await telegram.register!(
    { bot_token: token },
    { webhookUrl: 'http://localhost:8000/api/v1/webhooks/telegram/1', secret: 'abc', state: {} },
    contextFor(fake.url),
  );
  t.is(result.status, 'connected');
  t.like(result.state, { mode: 'polling', offset: 0 });
  t.is(fake.bot(token)!.webhook, undefined);
  const calls = fake.requests.filter((r) => r.token === token).map((r) => r.apiMethod);
  t.deepEqual(calls.slice(-2), ['getMe', 'deleteWebhook']);
});

test("register with a bad token reports an error status with Telegram's description", async (t) => {
  const result = await telegram.register!({ bot_token: '123:revoked' }, { webhookUrl: 'http://localhost/w', secret: 'abc', state: {} }, contextFor(fake.url));
  t.deepEqual(result, { status: 'error', last_error: 'Unauthorized' });
  const https = await telegram.register!(
    { bot_token: '123:revoked' },
    { webhookUrl: 'https://parley.example/w', secret: 'abc', state: {} },
    contextFor(fake.url),
  );
  t.deepEqual(https, { status: 'error', last_error: 'Unauthorized' });
});

test('register throws a transient error while Telegram is unreachable (the job retries)', async (t) => {
  const port = await closedPort();
  const error = await rejection(
    t,
    telegram.register!({ bot_token: '1:x' }, { webhookUrl: 'https://parley.example/w', secret: 'abc', state: {} }, contextFor(`http://127.0.0.1:${port}`)),
  );
  t.is(error.kind, 'transient');
});

test('poll returns new messages and advances the offset past every update', async (t) => {
  const token = fake.addBot();
  const registered = await telegram.register!({ bot_token: token }, { webhookUrl: 'http://localhost/w', secret: 'abc', state: {} }, contextFor(fake.url));
  const first = fake.queueUpdate(token, telegramTextUpdate({ chatId: 42, messageId: 1, text: 'one', firstName: 'Lin' }));
  const { update_id: _ignored, ...edited } = JSON.parse(fixture('edited.json').toString()) as Record<string, unknown>;
  fake.queueUpdate(token, edited);
  const last = fake.queueUpdate(token, telegramTextUpdate({ chatId: 42, messageId: 2, text: 'two', firstName: 'Lin' }));
  t.is(last, first + 2);

  const polled = await telegram.poll!({ bot_token: token }, registered.state!, contextFor(fake.url));
  t.deepEqual(
    polled.events.map((e) => (e.kind === 'message' ? [e.externalId, e.text, e.from.name] : null)),
    [
      ['42:1', 'one', 'Lin'],
      ['42:2', 'two', 'Lin'],
    ],
  );
  t.like(polled.state, { mode: 'polling', offset: last + 1 });
  const request = fake.requests.filter((r) => r.token === token && r.apiMethod === 'getUpdates').at(-1)!;
  t.deepEqual(request.json, { offset: 0, limit: 100, timeout: 0, allowed_updates: ['message'] });

  const again = await telegram.poll!({ bot_token: token }, polled.state, contextFor(fake.url));
  t.deepEqual(again.events, []);
  t.is(again.state.offset, last + 1);
  t.is(fake.requests.filter((r) => r.token === token && r.apiMethod === 'getUpdates').at(-1)!.json.offset, last + 1);
});

test('poll while a webhook is set is refused by Telegram (permanent 409)', async (t) => {
  const token = fake.addBot();
  await telegram.register!({ bot_token: token }, { webhookUrl: 'https://parley.example/w', secret: 'abc', state: {} }, contextFor(fake.url));
  const error = await rejection(t, telegram.poll!({ bot_token: token }, { mode: 'polling', offset: 0 }, contextFor(fake.url)));
  t.is(error.kind, 'permanent');
  t.regex(error.message, /^Conflict/);
});

test('config schema requires bot_token; it is the secret field', (t) => {
  t.throws(() => normalizeChannelConfig('telegram', {}), { message: 'Missing required config fields: bot_token' });
  t.throws(() => normalizeChannelConfig('telegram', { bot_token: '  ' }), { message: 'Missing required config fields: bot_token' });
  t.deepEqual(normalizeChannelConfig('telegram', { bot_token: ' 1:abc ' }), { bot_token: '1:abc' });
  t.deepEqual(secretFieldsOf(telegram), ['bot_token']);
});

test('splitText keeps words whole and never exceeds the limit', (t) => {
  t.deepEqual(splitText('short', 10), ['short']);
  t.deepEqual(splitText('hello world again', 11), ['hello world', 'again']);
  t.deepEqual(splitText('abcdefghij', 4), ['abcd', 'efgh', 'ij']);
  const emoji = '😀'.repeat(10);
  const parts = splitText(emoji, 5);
  t.true(parts.every((p) => p.length <= 5 && !/[\uD800-\uDBFF]$/.test(p)));
  t.is(parts.join(''), emoji);
  const bytes = splitText('é'.repeat(600), 1000, 'utf8');
  t.deepEqual(
    bytes.map((p) => Buffer.byteLength(p)),
    [1000, 200],
  );
});
