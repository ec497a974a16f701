/**
 * The business starts a WhatsApp conversation with a template (issue 19 item 4, last sentence):
 * POST /conversations with a WhatsApp channel, a phone number and an approved template finds or
 * creates the customer and the conversation, sends the template through the conversation's
 * delivery drain to the fake Graph API, and the customer's answer lands in that conversation.
 */
import test from 'ava';
import { createWorkspace, addMember, type Workspace } from './helpers/fixtures.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { query, startTestWorker, waitFor } from './helpers/worker.ts';
import { postMetaWebhook, startFakeMeta, whatsappTextPayload, type FakeMeta } from './fakes/meta.ts';

const WABA = '102290129340777';
const PHONE_NUMBER_ID = '1077';
const TOKEN = 'wa-start-token';
const thisMonth = `date_trunc('month', now() at time zone 'utc')::date`;

let app: TestApp;
let fake: FakeMeta;
let owner: Workspace;
let channelId: string;

test.before(async () => {
  fake = await startFakeMeta();
  fake.addWhatsAppNumber(PHONE_NUMBER_ID, TOKEN);
  fake.addTemplates(WABA, TOKEN, [
    { name: 'order_update', language: 'en_US', status: 'APPROVED', body: 'Hi {{1}}, your order {{2}} has shipped.' },
    { name: 'hello_world', language: 'en_US', status: 'APPROVED', body: 'Hello from Parley. Reply to chat with us.' },
    { name: 'promo_draft', language: 'en_US', status: 'PENDING', body: 'Sale {{1}}' },
  ]);
  app = await startTestApp({ env: { META_GRAPH_URL: fake.graphUrl } });
  owner = await createWorkspace(app, { plan: 'Pro' });
  const channel = await app.request('POST', '/api/v1/channels/', {
    token: owner.token,
    body: { type: 'whatsapp', config: { phone_number_id: PHONE_NUMBER_ID, access_token: TOKEN, business_account_id: WABA } },
  });
  if (channel.status !== 200) throw new Error(channel.text);
  channelId = channel.body.id;
  // The cache of approved templates, as the app's picker fills it.
  const listed = await app.request('GET', `/api/v1/channels/${channelId}/templates`, { token: owner.token });
  if (listed.status !== 200) throw new Error(listed.text);
});

test.after.always(async () => {
  await app?.close();
  await fake?.close();
});

const start = (body: Record<string, unknown>, ws: { token: string; businessId: string } = owner) =>
  app.request('POST', '/api/v1/conversations', { token: ws.token, body: { business_id: ws.businessId, ...body } });

const orderUpdate = { name: 'order_update', language: 'en_US', parameters: ['Rosa', 'A-1042'] };

async function deliveredStatus(messageId: string, status: string) {
  const worker = await startTestWorker(app, { only: ['deliver_message'] });
  try {
    await waitFor(
      async () => (await query(app, `select 1 from messages where id = $1 and delivery_status = $2`, [messageId, status])).length > 0,
      20_000,
      `delivery ${status}`,
    );
  } finally {
    await worker.stop();
  }
}

async function counts(businessId = owner.businessId) {
  const [row] = await query(
    app,
    `select (select count(*)::int from customers where business_id = $1) as customers,
            (select count(*)::int from conversations where business_id = $1) as conversations,
            (select count(*)::int from messages where business_id = $1) as messages,
            (select coalesce(sum(count), 0)::int from message_counters where business_id = $1) as counted`,
    [businessId],
  );
  return row as { customers: number; conversations: number; messages: number; counted: number };
}

test.serial("a template starts the conversation: customer created by number, template sent to Graph, the customer's answer lands there", async (t) => {
  const before = await counts();
  const res = await start({ channel_id: channelId, phone: '+49 151 2345-6789', template: orderUpdate });
  t.is(res.status, 200, res.text);
  t.like(res.body, { channel_id: channelId, channel_type: 'whatsapp', status: 'open', reply_window_expires_at: null });
  t.like(res.body.customer, { phone: '+4915123456789', name: '+4915123456789' });
  t.is(res.body.messages.length, 1);
  const [message] = res.body.messages;
  t.like(message, { sender_type: 'agent', sender_id: owner.userId, content: 'Hi Rosa, your order A-1042 has shipped.', delivery_status: 'queued' });
  t.is(res.body.first_response_at, message.created_at);
  const after = await counts();
  t.deepEqual(after, { customers: before.customers + 1, conversations: before.conversations + 1, messages: before.messages + 1, counted: before.counted + 1 });
  const [customer] = await query(app, `select platform_user_id, channel_id from customers where id = $1`, [res.body.customer_id]);
  t.deepEqual({ ...customer }, { platform_user_id: '4915123456789', channel_id: channelId }, "the customer is the channel's WhatsApp id (wa_id)");
  const names = app.events.filter((e) => e.payload.conversation_id === res.body.id).map((e) => e.name);
  t.deepEqual(names, ['conversation_created', 'message_created', 'conversation_updated']);

  // Through the conversation's delivery drain to Graph, as a template with its body parameters.
  await deliveredStatus(message.id, 'sent');
  const request = fake.requests.filter((r) => r.path.endsWith(`/${PHONE_NUMBER_ID}/messages`)).at(-1)!;
  t.is(request.method, 'POST');
  t.is(request.headers.authorization, `Bearer ${TOKEN}`);
  t.deepEqual(request.json, {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: '4915123456789',
    type: 'template',
    template: {
      name: 'order_update',
      language: { code: 'en_US' },
      components: [
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'Rosa' },
            { type: 'text', text: 'A-1042' },
          ],
        },
      ],
    },
  });
  const [stored] = await query(app, `select external_id from messages where id = $1`, [message.id]);
  t.is(stored.external_id, fake.whatsappSent.at(-1)!.id);

  // The customer answers: the same customer, the same conversation, and the window opens.
  const answered = await postMetaWebhook(
    `${app.url}/api/v1/webhooks/whatsapp`,
    whatsappTextPayload({ phoneNumberId: PHONE_NUMBER_ID, from: '4915123456789', id: 'wamid.answer-1', text: 'Thanks! Where is it now?', name: 'Rosa' }),
    undefined,
  );
  t.is(answered.status, 200);
  const worker = await startTestWorker(app, { only: ['process_inbound'] });
  let landed: any;
  try {
    landed = await waitFor(
      async () => (await query(app, `select conversation_id from messages where external_id = 'wamid.answer-1'`))[0],
      20_000,
      'the answer stored',
    );
  } finally {
    await worker.stop();
  }
  t.is(landed.conversation_id, res.body.id);
  t.deepEqual(await counts(), { ...after, messages: after.messages + 1 });
  const read = await app.request('GET', `/api/v1/conversations/${res.body.id}`, { token: owner.token });
  t.deepEqual(
    read.body.messages.map((m: any) => m.sender_type),
    ['agent', 'customer'],
  );
  t.true(new Date(read.body.reply_window_expires_at).getTime() > Date.now() + 23 * 3600_000);
  t.is(read.body.customer.name, 'Rosa');
});

test.serial('the same number again finds the open conversation; once closed, a new one starts', async (t) => {
  const first = await start({ channel_id: channelId, phone: '15550002222', template: { name: 'hello_world', language: 'en_US', parameters: [] } });
  t.is(first.status, 200, first.text);
  const before = await counts();
  const again = await start({ channel_id: channelId, phone: '+15550002222', template: { name: 'hello_world', language: 'en_US', parameters: [] } });
  t.is(again.status, 200, again.text);
  t.is(again.body.id, first.body.id);
  t.is(again.body.customer_id, first.body.customer_id);
  t.deepEqual(await counts(), { ...before, messages: before.messages + 1, counted: before.counted + 1 });
  t.is(app.events.filter((e) => e.name === 'conversation_created' && e.payload.conversation_id === first.body.id).length, 1, 'no second conversation_created');

  t.is((await app.request('PUT', `/api/v1/conversations/${first.body.id}/close`, { token: owner.token })).status, 200);
  const fresh = await start({ channel_id: channelId, phone: '15550002222', template: { name: 'hello_world', language: 'en_US', parameters: [] } });
  t.is(fresh.status, 200, fresh.text);
  t.not(fresh.body.id, first.body.id);
  t.is(fresh.body.customer_id, first.body.customer_id);
});

test.serial(
  'refusals are 422 (not WhatsApp, unknown or pending template, wrong parameter count, bad input) or 400 (channel of another business): nothing created, Graph hears nothing',
  async (t) => {
    const before = await counts();
    const graphBefore = fake.requests.length;
    const [webchat] = await query(app, `select id from channels where business_id = $1 and type = 'webchat'`, [owner.businessId]);
    const phone = '+15550003333';

    const notWhatsApp = await start({ channel_id: webchat.id, phone, template: orderUpdate });
    t.is(notWhatsApp.status, 422, notWhatsApp.text);
    t.deepEqual(notWhatsApp.body.detail[0].loc, ['body', 'channel_id']);

    const unknown = await start({ channel_id: channelId, phone, template: { name: 'nope', language: 'en_US', parameters: [] } });
    t.is(unknown.status, 422);
    t.deepEqual(unknown.body.detail[0].loc, ['body', 'template', 'name']);
    t.is((await start({ channel_id: channelId, phone, template: { name: 'promo_draft', language: 'en_US', parameters: ['x'] } })).status, 422, 'not approved');
    t.is(
      (await start({ channel_id: channelId, phone, template: { name: 'order_update', language: 'de_DE', parameters: ['a', 'b'] } })).status,
      422,
      'other language',
    );
    const count = await start({ channel_id: channelId, phone, template: { ...orderUpdate, parameters: ['Rosa'] } });
    t.is(count.status, 422);
    t.deepEqual(count.body.detail[0].loc, ['body', 'template', 'parameters']);
    t.regex(count.body.detail[0].msg, /takes 2 parameter/);

    const invalid = [
      [{ channel_id: channelId, template: orderUpdate }, 'phone'],
      [{ phone, template: orderUpdate }, 'channel_id'],
      [{ channel_id: channelId, phone }, 'phone'],
      [{ channel_id: channelId, phone: '0049151', template: orderUpdate }, 'phone'],
      [{ channel_id: channelId, phone: 'call me', template: orderUpdate }, 'phone'],
      [{ channel_id: channelId, phone, template: orderUpdate, initial_message: 'Hi' }, 'initial_message'],
      [{ channel_id: channelId, phone, template: orderUpdate, customer_id: '00000000-0000-4000-8000-000000000000' }, 'customer_id'],
    ] as const;
    for (const [body, field] of invalid) {
      const res = await start(body);
      t.is(res.status, 422, `${JSON.stringify(body)}: ${res.text}`);
      t.deepEqual(res.body.detail[0].loc, ['body', field], JSON.stringify(body));
    }

    // Another business's WhatsApp channel: as for any channel of another business (the contract: 400).
    const other = await createWorkspace(app, { plan: 'Pro' });
    const foreign = await start({ channel_id: channelId, phone, template: orderUpdate }, other);
    t.is(foreign.status, 400, foreign.text);
    t.deepEqual(foreign.body, { detail: 'Channel not found' });
    t.deepEqual(await counts(other.businessId), { customers: 0, conversations: 0, messages: 0, counted: 0 });

    // Free-form text cannot start a WhatsApp conversation: the customer has not opened a window.
    const freeForm = await start({ channel_id: channelId, initial_message: 'Hello there' });
    t.is(freeForm.status, 422, freeForm.text);
    t.is(freeForm.body.detail[0].type, 'reply_window_closed');

    t.deepEqual(await counts(), before);
    t.is(fake.requests.length, graphBefore);
  },
);

test.serial('counted like a reply: at the monthly limit 403 and nothing is created; an agent may start one (the policy table)', async (t) => {
  const agent = await addMember(app, owner.businessId, 'agent');
  const asAgent = { token: agent.token, businessId: owner.businessId };
  const byAgent = await start({ channel_id: channelId, phone: '15550004444', template: { name: 'hello_world', language: 'en_US', parameters: [] } }, asAgent);
  t.is(byAgent.status, 200, byAgent.text);
  t.is(byAgent.body.messages[0].sender_id, agent.userId);

  const [plan] = await query(app, `select p.max_messages_per_month as max from businesses b join plans p on p.name = b.plan where b.id = $1`, [
    owner.businessId,
  ]);
  await query(app, `delete from message_counters where business_id = $1 and month = ${thisMonth}`, [owner.businessId]);
  await query(app, `insert into message_counters (business_id, month, slot, count) values ($1, ${thisMonth}, 0, $2)`, [owner.businessId, plan.max]);
  const before = await counts();
  const refused = await start({ channel_id: channelId, phone: '15550005555', template: orderUpdate });
  t.is(refused.status, 403, refused.text);
  t.like(refused.body, { error: 'limit_exceeded', feature: 'messages' });
  t.deepEqual(await counts(), before, 'no customer, conversation or message left behind');
});
