import test from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import whatsapp, { verifyMetaSubscription } from '../connectors/whatsapp/index.ts';
import instagram from '../connectors/instagram/index.ts';
import { classifyGraphError, verifyMetaSignature } from '../connectors/meta.ts';
import { parseRetryAfter, httpStatusError } from '../connectors/http-errors.ts';
import { ConnectorError, type ConnectorContext, type OutboundMessage, type WebhookRequest } from '../connectors/types.ts';
import { instagramMessagePayload, signedMetaWebhook, startFakeMeta, whatsappStatusPayload, whatsappTextPayload, type FakeMeta } from './fakes/meta.ts';
import { closedPort } from './helpers/ports.ts';
import { normalizeChannelConfig, secretFieldsOf } from '../core/domain/channels/channel-config.ts';

const fixture = (product: string, name: string) => readFileSync(path.join(import.meta.dirname, 'fixtures', product, name));
const unsigned = (rawBody: Buffer): WebhookRequest => ({ url: 'https://parley.example/api/v1/webhooks/whatsapp', headers: {}, rawBody });

const PHONE = '106540352242922';
const WA_TOKEN = 'EAAG-whatsapp-token';
const IG = '17841405822304914';
const IG_TOKEN = 'IGAA-instagram-token';
const waConfig = { phone_number_id: PHONE, access_token: WA_TOKEN };
const igConfig = { access_token: IG_TOKEN, instagram_business_account_id: IG };

let fake: FakeMeta;
test.before(async () => {
  fake = await startFakeMeta();
  fake.addWhatsAppNumber(PHONE, WA_TOKEN);
  fake.addInstagramAccount(IG, IG_TOKEN);
});
test.after.always(() => fake?.close());

/** The context WhatsApp gets (META_GRAPH_URL: the fake's Graph, unless given). */
function context(baseUrl: string = fake.graphUrl): ConnectorContext {
  return { baseUrl, publicUrl: 'https://parley.example' };
}

/** The context Instagram gets (INSTAGRAM_GRAPH_URL). */
const instagramContext = () => context(fake.instagramUrl);

function outbound(to: string, text: string, attachments: OutboundMessage['attachments'] = []): OutboundMessage {
  return { to: { platformUserId: to }, text, attachments, messageId: '00000000-0000-4000-8000-000000000002' };
}

async function rejection(t: { throwsAsync: any }, promise: Promise<unknown>): Promise<ConnectorError> {
  return (await t.throwsAsync(promise, { instanceOf: ConnectorError })) as ConnectorError;
}

// WhatsApp parsing

test('WhatsApp: parses a text message with the contact name, routed by phone_number_id', async (t) => {
  t.deepEqual(await whatsapp.webhook.parse(unsigned(fixture('whatsapp', 'text.json'))), [
    {
      kind: 'message',
      routingKey: PHONE,
      externalId: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
      from: { platformUserId: '16505551234', name: 'Sheena Nelson', phone: '+16505551234' },
      text: 'Does it come in another color?',
      attachments: [],
      sentAt: new Date(1749416383 * 1000).toISOString(),
    },
  ]);
});

test('WhatsApp: media become attachments with the media id; reactions are skipped', async (t) => {
  const events = await whatsapp.webhook.parse(unsigned(fixture('whatsapp', 'media.json')));
  t.deepEqual(
    events.map((e) => (e.kind === 'message' ? [e.externalId.slice(-8), e.text, e.attachments] : null)),
    [
      ['QUIMAGE=', 'This is the scratch', [{ platform_file_id: '1003383421387256', content_type: 'image/jpeg' }]],
      ['Q1VNRU5U', '', [{ platform_file_id: '1223344556677889', content_type: 'application/pdf', filename: 'receipt.pdf' }]],
      ['QUFVRElP', '', [{ platform_file_id: '2233445566778899', content_type: 'audio/ogg; codecs=opus' }]],
    ],
  );
});

test("WhatsApp: statuses become receipts; a failure carries the platform's reason", async (t) => {
  t.deepEqual(await whatsapp.webhook.parse(unsigned(fixture('whatsapp', 'statuses.json'))), [
    {
      kind: 'receipt',
      routingKey: PHONE,
      externalId: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI3MDExQUZGODk4QjQ5RjJFNkQA',
      status: 'delivered',
      at: new Date(1750263773000).toISOString(),
    },
    {
      kind: 'receipt',
      routingKey: PHONE,
      externalId: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI3MDExQUZGODk4QjQ5RjJFNkQA',
      status: 'read',
      at: new Date(1750263800000).toISOString(),
    },
    {
      kind: 'receipt',
      routingKey: PHONE,
      externalId: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBJGQUlMRURNRVNTQUdFAA==',
      status: 'failed',
      error: 'Re-engagement message: Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
      at: new Date(1750263900000).toISOString(),
    },
  ]);
});

test('WhatsApp: other fields, unknown shapes and garbage give no events', async (t) => {
  t.deepEqual(await whatsapp.webhook.parse(unsigned(fixture('whatsapp', 'other-field.json'))), []);
  t.deepEqual(await whatsapp.webhook.parse(unsigned(Buffer.from('not json'))), []);
  t.deepEqual(
    await whatsapp.webhook.parse(unsigned(Buffer.from('{"object":"whatsapp_business_account","entry":[{"changes":[{"field":"messages","value":{}}]}]}'))),
    [],
  );
  const built = await whatsapp.webhook.parse(
    signedMetaWebhook(whatsappTextPayload({ phoneNumberId: '1', from: '447700900123', id: 'wamid.X', text: 'hi' }), 'secret'),
  );
  t.like(built[0], { kind: 'message', routingKey: '1', externalId: 'wamid.X', text: 'hi', from: { platformUserId: '447700900123', phone: '+447700900123' } });
  const receipt = await whatsapp.webhook.parse(
    signedMetaWebhook(
      whatsappStatusPayload({ phoneNumberId: '1', id: 'wamid.Y', status: 'failed', recipientId: '1', error: { code: 131026, title: 'Message undeliverable' } }),
      undefined,
    ),
  );
  t.like(receipt[0], { kind: 'receipt', status: 'failed', error: 'Message undeliverable' });
});

// Signatures

test('X-Hub-Signature-256: right, wrong, missing and tampered', (t) => {
  const payload = whatsappTextPayload({ phoneNumberId: PHONE, from: '16505551234', id: 'wamid.S', text: 'hello' });
  const config = { ...waConfig, app_secret: 'app-secret-1' };
  const good = signedMetaWebhook(payload, 'app-secret-1');
  t.true(whatsapp.webhook.verify(good, config, {}));
  t.false(whatsapp.webhook.verify(signedMetaWebhook(payload, 'another-secret'), config, {}));
  t.false(whatsapp.webhook.verify(signedMetaWebhook(payload, undefined), config, {}));
  const tampered = { ...good, rawBody: Buffer.from(good.rawBody.toString().replace('hello', 'hellO')) };
  t.false(whatsapp.webhook.verify(tampered, config, {}));
  t.false(whatsapp.webhook.verify({ ...good, headers: { ...good.headers, 'x-hub-signature-256': 'sha256=' } }, config, {}));
  t.false(
    whatsapp.webhook.verify(
      { ...good, headers: { ...good.headers, 'x-hub-signature-256': good.headers['x-hub-signature-256']!.replace('sha256=', 'sha1=') } },
      config,
      {},
    ),
  );
  // The signature covers the exact bytes: re-serialized JSON with other spacing fails.
  const respaced = { ...good, rawBody: Buffer.from(JSON.stringify(payload, null, 2)) };
  t.false(whatsapp.webhook.verify(respaced, config, {}));
  // Without an app secret there is nothing to check.
  t.true(whatsapp.webhook.verify(signedMetaWebhook(payload, undefined), waConfig, {}));
  // Instagram uses the same check.
  const ig = signedMetaWebhook(instagramMessagePayload({ accountId: IG, senderId: '1', mid: 'm', text: 'x' }), 'ig-secret');
  t.true(instagram.webhook.verify(ig, { ...igConfig, app_secret: 'ig-secret' }, {}));
  t.false(instagram.webhook.verify(ig, { ...igConfig, app_secret: 'other' }, {}));
  t.false(verifyMetaSignature('ig-secret', ig.rawBody, undefined));
});

test('GET subscription handshake', (t) => {
  const query = (mode: string, token: string, challenge?: string) =>
    new URLSearchParams({ 'hub.mode': mode, 'hub.verify_token': token, ...(challenge !== undefined ? { 'hub.challenge': challenge } : {}) });
  t.deepEqual(verifyMetaSubscription(query('subscribe', 'tok-b', '1158201444'), ['tok-a', 'tok-b']), { challenge: '1158201444', verifyToken: 'tok-b' });
  t.deepEqual(verifyMetaSubscription({ 'hub.mode': 'subscribe', 'hub.verify_token': 'tok-a', 'hub.challenge': 'c' }, new Set(['tok-a'])), {
    challenge: 'c',
    verifyToken: 'tok-a',
  });
  t.is(verifyMetaSubscription(query('subscribe', 'tok-c', '1'), ['tok-a', 'tok-b']), null);
  t.is(verifyMetaSubscription(query('unsubscribe', 'tok-a', '1'), ['tok-a']), null);
  t.is(verifyMetaSubscription(query('subscribe', 'tok-a'), ['tok-a']), null);
  t.is(verifyMetaSubscription(query('subscribe', '', '1'), ['']), null);
});

// WhatsApp sending

test('WhatsApp: sends a text to /{phone_number_id}/messages with the bearer token', async (t) => {
  const result = await whatsapp.send(waConfig, outbound('16505551234', 'We have it in blue and green.'), context());
  const sent = fake.whatsappSent.find((m) => m.id === result.externalId)!;
  t.truthy(sent);
  t.regex(result.externalId, /^wamid\./);
  const request = fake.requests.find((r) => r.product === 'whatsapp' && r.json?.text?.body === 'We have it in blue and green.')!;
  t.is(request.method, 'POST');
  t.is(request.path, `/graph/v23.0/${PHONE}/messages`);
  t.is(request.headers.authorization, `Bearer ${WA_TOKEN}`);
  t.regex(request.headers['content-type'] ?? '', /^application\/json/);
  t.deepEqual(request.json, {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: '16505551234',
    type: 'text',
    text: { preview_url: false, body: 'We have it in blue and green.' },
  });
});

test("WhatsApp: attachments go by link; a short text is the first one's caption", async (t) => {
  const to = '16505550001';
  const photo = { url: 'https://files.parley.example/u/1/blue.jpg', filename: 'blue.jpg', content_type: 'image/jpeg', size: 1000 };
  const manual = { url: 'https://files.parley.example/u/2/manual.pdf', filename: 'manual.pdf', content_type: 'application/pdf', size: 2000 };
  const result = await whatsapp.send(waConfig, outbound(to, 'The blue one', [photo, manual]), context());
  const bodies = fake.whatsappSent.filter((m) => m.to === to).map((m) => m.body);
  t.deepEqual(bodies, [
    { messaging_product: 'whatsapp', recipient_type: 'individual', to, type: 'image', image: { link: photo.url, caption: 'The blue one' } },
    { messaging_product: 'whatsapp', recipient_type: 'individual', to, type: 'document', document: { link: manual.url, filename: 'manual.pdf' } },
  ]);
  t.is(result.externalId, fake.whatsappSent.find((m) => m.to === to)!.id);
});

test('WhatsApp: a reply over 4096 characters is split; the first id is the external id', async (t) => {
  const to = '16505550002';
  const text = `${'word '.repeat(900)}\n\n${'more '.repeat(300)}`.trim();
  const result = await whatsapp.send(waConfig, outbound(to, text), context());
  const sent = fake.whatsappSent.filter((m) => m.to === to);
  t.is(sent.length, 2);
  t.true(sent.every((m) => m.body.text.body.length <= 4096));
  t.is(result.externalId, sent[0].id);
});

test.serial("WhatsApp: an expired token is permanent with Graph's message", async (t) => {
  fake.failNext(1, { status: 401, code: 190, subcode: 463, message: 'Error validating access token: Session has expired on Friday, 09-Jan-26 10:00:00 PST.' });
  const error = await rejection(t, whatsapp.send(waConfig, outbound('1', 'hi'), context()));
  t.is(error.kind, 'permanent');
  t.is(error.message, 'Error validating access token: Session has expired on Friday, 09-Jan-26 10:00:00 PST.');
});

test('WhatsApp: a wrong token (checked by the fake) is permanent', async (t) => {
  const error = await rejection(t, whatsapp.send({ ...waConfig, access_token: 'wrong' }, outbound('1', 'hi'), context()));
  t.is(error.kind, 'permanent');
  t.is(error.message, 'Invalid OAuth access token - Cannot parse access token');
});

test.serial('WhatsApp: outside the 24-hour window is permanent with the details', async (t) => {
  fake.failNext(1, {
    status: 400,
    code: 131047,
    message: '(#131047) Re-engagement message',
    details: 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
  });
  const error = await rejection(t, whatsapp.send(waConfig, outbound('1', 'hi'), context()));
  t.is(error.kind, 'permanent');
  t.is(
    error.message,
    '(#131047) Re-engagement message: Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
  );
});

test.serial('WhatsApp: a 500 is transient, then the retry succeeds', async (t) => {
  fake.failNext(1, { status: 500, code: 1, message: 'An unknown error has occurred.' });
  const error = await rejection(t, whatsapp.send(waConfig, outbound('16505550003', 'retry me'), context()));
  t.is(error.kind, 'transient');
  t.is(error.message, 'An unknown error has occurred.');
  const result = await whatsapp.send(waConfig, outbound('16505550003', 'retry me'), context());
  t.regex(result.externalId, /^wamid\./);
});

test.serial('WhatsApp: a 429 is transient with Retry-After; a throughput code on a 400 is transient too', async (t) => {
  fake.failNext(1, { status: 429, code: 4, message: '(#4) Application request limit reached', retryAfter: 30 });
  const limited = await rejection(t, whatsapp.send(waConfig, outbound('1', 'hi'), context()));
  t.is(limited.kind, 'transient');
  t.is(limited.retryAfterSeconds, 30);
  fake.failNext(1, { status: 400, code: 130429, message: '(#130429) Rate limit hit' });
  const throughput = await rejection(t, whatsapp.send(waConfig, outbound('1', 'hi'), context()));
  t.is(throughput.kind, 'transient');
  t.is(throughput.retryAfterSeconds, undefined);
});

test('WhatsApp: an unreachable Graph is transient', async (t) => {
  const port = await closedPort();
  const error = await rejection(t, whatsapp.send(waConfig, outbound('1', 'hi'), context(`http://127.0.0.1:${port}/v23.0`)));
  t.is(error.kind, 'transient');
});

test('WhatsApp: config schema and secret fields', (t) => {
  t.throws(() => normalizeChannelConfig('whatsapp', { phone_number_id: '1' }), { message: 'Missing required config fields: access_token' });
  t.deepEqual(normalizeChannelConfig('whatsapp', { phone_number_id: ' 1 ', access_token: 't', verify_token: 'v' }), {
    phone_number_id: '1',
    access_token: 't',
    verify_token: 'v',
  });
  // verify_token is secret too: whoever holds it can answer Meta's handshake for the channel.
  t.deepEqual(secretFieldsOf(whatsapp), ['access_token', 'verify_token', 'app_secret']);
});

// Instagram

test('Instagram: parses a text message routed by the receiving account', async (t) => {
  t.deepEqual(await instagram.webhook.parse(unsigned(fixture('instagram', 'text.json'))), [
    {
      kind: 'message',
      routingKey: IG,
      externalId:
        'aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjE3ODQxNDA1ODIyMzA0OTE0OjM0MDI4MjM2Njg0MTcxMDMwMTI0NDI1OTU0MTA5ODgzNjI3NjI0NzozMjEwNTI2NDUwNzQ5NzYxODI4MTU5MDcyNTQ0NzQ5MzA1NgZDZD',
      from: { platformUserId: '1254459154682919' },
      text: 'Do you ship to Canada?',
      attachments: [],
      sentAt: new Date(1767225600123).toISOString(),
    },
  ]);
});

test('Instagram: attachments keep their URLs; a share without text gets a placeholder', async (t) => {
  const events = await instagram.webhook.parse(unsigned(fixture('instagram', 'attachments.json')));
  t.deepEqual(
    events.map((e) => (e.kind === 'message' ? [e.text, e.attachments] : null)),
    [
      [
        '',
        [
          { url: 'https://lookaside.fbsbx.com/ig_messaging_cdn/?asset_id=1789&signature=AbC', content_type: 'image/*' },
          { url: 'https://lookaside.fbsbx.com/ig_messaging_cdn/?asset_id=1790&signature=DeF', content_type: 'video/*' },
        ],
      ],
      ['[Shared a post]', [{ url: 'https://www.instagram.com/p/C1a2b3c4d5e/' }]],
    ],
  );
});

test('Instagram: echoes, reads and reactions are skipped', async (t) => {
  t.deepEqual(await instagram.webhook.parse(unsigned(fixture('instagram', 'echo-and-read.json'))), []);
  t.deepEqual(
    await instagram.webhook.parse(
      signedMetaWebhook(instagramMessagePayload({ accountId: IG, senderId: '5', mid: 'm1', text: 'ours', isEcho: true }), undefined),
    ),
    [],
  );
  t.deepEqual(await instagram.webhook.parse(unsigned(Buffer.from('[]'))), []);
});

test('Instagram: sends a text to /{account}/messages with the bearer token', async (t) => {
  const result = await instagram.send(igConfig, outbound('1254459154682919', 'Yes, we ship to Canada!'), instagramContext());
  const request = fake.requests.find((r) => r.product === 'instagram' && r.json?.message?.text === 'Yes, we ship to Canada!')!;
  t.is(request.path, `/instagram/v23.0/${IG}/messages`);
  t.is(request.headers.authorization, `Bearer ${IG_TOKEN}`);
  t.deepEqual(request.json, { recipient: { id: '1254459154682919' }, message: { text: 'Yes, we ship to Canada!' } });
  t.is(result.externalId, fake.instagramSent.find((m) => m.message.text === 'Yes, we ship to Canada!')!.id);
});

test('Instagram: text is split at 1000 bytes, attachments follow by URL', async (t) => {
  const to = '9990001';
  const text = 'ü'.repeat(700);
  const photo = { url: 'https://files.parley.example/u/3/label.png', filename: 'label.png', content_type: 'image/png', size: 100 };
  const doc = { url: 'https://files.parley.example/u/4/terms.pdf', filename: 'terms.pdf', content_type: 'application/pdf', size: 100 };
  const result = await instagram.send(igConfig, outbound(to, text, [photo, doc]), instagramContext());
  const sent = fake.instagramSent.filter((m) => m.recipientId === to);
  t.deepEqual(
    sent.map((m) => (m.message.text ? Buffer.byteLength(m.message.text) : m.message.attachment)),
    [1000, 400, { type: 'image', payload: { url: photo.url } }, { type: 'file', payload: { url: doc.url } }],
  );
  t.is(result.externalId, sent[0].id);
});

test.serial('Instagram: outside the messaging window is permanent; 500 transient; wrong token permanent', async (t) => {
  fake.failNext(1, { status: 400, code: 10, subcode: 2534022, message: 'This message is sent outside of allowed window.' });
  const window = await rejection(t, instagram.send(igConfig, outbound('1', 'hi'), instagramContext()));
  t.is(window.kind, 'permanent');
  t.is(window.message, 'This message is sent outside of allowed window.');
  fake.failNext(1, { status: 503, code: 2, message: 'Service temporarily unavailable' });
  const down = await rejection(t, instagram.send(igConfig, outbound('1', 'hi'), instagramContext()));
  t.is(down.kind, 'transient');
  const token = await rejection(t, instagram.send({ ...igConfig, access_token: 'nope' }, outbound('1', 'hi'), instagramContext()));
  t.is(token.kind, 'permanent');
});

// Shared classification

test('classification of HTTP and Graph failures', (t) => {
  t.like(classifyGraphError('X', 502, '<html>Bad gateway</html>'), { kind: 'transient', message: '<html>Bad gateway</html>' });
  t.like(classifyGraphError('X', 400, undefined), { kind: 'permanent', message: 'X answered HTTP 400' });
  t.like(classifyGraphError('X', 400, { error: { message: 'Temp', code: 100, is_transient: true } }), { kind: 'transient' });
  t.like(classifyGraphError('X', 400, { error: { message: '(#131026) Message undeliverable', code: 131026 } }), {
    kind: 'permanent',
    message: '(#131026) Message undeliverable',
  });
  t.like(httpStatusError('P', 404, 'Not here'), { kind: 'permanent', message: 'Not here' });
  t.like(httpStatusError('P', 429, undefined, 3), { kind: 'transient', retryAfterSeconds: 3, message: 'P answered HTTP 429' });
  t.is(parseRetryAfter('120'), 120);
  t.is(parseRetryAfter('1.5'), 2);
  t.is(parseRetryAfter('Wed, 21 Oct 2015 07:28:30 GMT', new Date('2015-10-21T07:28:00Z')), 30);
  t.is(parseRetryAfter('soon'), undefined);
  t.is(parseRetryAfter(null), undefined);
});
