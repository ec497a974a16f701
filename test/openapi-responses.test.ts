/**
 * The OpenAPI document tells the truth (issue #11, item 19): every operation is called with
 * real fixtures and its 200 answer is checked against the documented 200 schema (ajv, JSON
 * Schema 2020-12 as OpenAPI 3.1 uses). A client generated from the document reads what the
 * server sends. A new route must be added to `calls` below (the test names any that is not).
 */
import test from 'ava';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import SwaggerParser from '@apidevtools/swagger-parser';
import Stripe from 'stripe';
import { startTestApp, type TestApp, type TestResponse } from './helpers/app.ts';
import { createWorkspace, registerUser } from './helpers/fixtures.ts';
import { startGoogleJwks, type GoogleJwks } from './helpers/jwks.ts';
import { startFakeStripe, type FakeStripe } from './fakes/stripe.ts';
import { startFakeOllama, type FakeOllama } from './fakes/ollama.ts';
import { signTwilioWebhook } from './fakes/twilio.ts';
import { signXWebhook } from './fakes/x.ts';
import { issuePurposeToken } from '../core/domain/accounts/tokens.ts';
import { base32Decode, totpAt } from '../core/domain/accounts/totp.ts';

const STRIPE_KEY = 'sk_test_openapi';
const STRIPE_WEBHOOK = 'whsec_openapi';

let app: TestApp;
let google: GoogleJwks;
let stripe: FakeStripe;
let ollama: FakeOllama;
test.before(async () => {
  [google, stripe, ollama] = await Promise.all([startGoogleJwks(), startFakeStripe({ secretKey: STRIPE_KEY }), startFakeOllama()]);
  app = await startTestApp({
    env: {
      GOOGLE_CLIENT_ID: google.clientId,
      GOOGLE_JWKS_URL: google.jwksUrl,
      STRIPE_SECRET_KEY: STRIPE_KEY,
      STRIPE_WEBHOOK_SECRET: STRIPE_WEBHOOK,
      STRIPE_PRICE_MINI: 'price_mini',
      STRIPE_PRICE_PRO: 'price_pro',
      STRIPE_API_URL: stripe.url,
      OLLAMA_URL: ollama.url,
    },
  });
});
test.after.always(async () => {
  await app?.close();
  await Promise.all([google?.close(), stripe?.close(), ollama?.close()]);
});

type Call = () => Promise<TestResponse>;

/** Every operation of the document, called in an order where each finds what it needs. */
async function operationCalls(): Promise<[string, Call][]> {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  // The password calls end every earlier session and hand back a new token: the calls after them use it.
  let access = ws.token;
  const req = (method: string, path: string, options: Parameters<TestApp['request']>[2] = {}) => app.request(method, path, { token: access, ...options });
  const member = await registerUser(app, 'Invited Agent');
  const conversation = (await req('POST', '/api/v1/conversations', { body: { business_id: ws.businessId, initial_message: 'Hello' } })).body;
  const widget = (await req('POST', '/api/v1/widget/create', { body: { domain: 'docs.example' } })).body;
  const session = (await app.request('POST', '/api/v1/visitor/sessions', { body: { widget_id: widget.id, name: 'Vera' } })).body;
  const visitor = session.visitor_token as string;
  await app.request('POST', '/api/v1/visitor/messages', { token: visitor, body: { content: 'Hi there' } });
  const customerNumber = (await app.sql('select number from customers where business_id = $1 limit 1', [ws.businessId]))[0].number;
  const channel = async (type: string, config: Record<string, string>) => {
    const created = await req('POST', '/api/v1/channels', { body: { type, config } });
    if (created.status !== 200) throw new Error(`${type} channel: ${created.text}`);
    await app.sql(`update channels set state = state || '{"webhook_secret":"hook-secret"}' where id = $1`, [created.body.id]);
    return created.body;
  };
  const telegram = await channel('telegram', { bot_token: '123:abc' });
  const whatsapp = await channel('whatsapp', { phone_number_id: '1555', access_token: 'EAA' });
  const instagram = await channel('instagram', { access_token: 'IGA', instagram_business_account_id: '1789' });
  const sms = await channel('sms', { account_sid: 'AC1', auth_token: 'twilio-token', from_number: '+15550001111' });
  const email = await channel('email', { address: 'help@docs.example', smtp_host: '127.0.0.1', smtp_port: '2525', smtp_user: 'u', smtp_password: 'p' });
  // An e-mail conversation (forward, reply recipients): the visitor customer, given an address.
  const customerUuid = (await app.sql('select id from customers where business_id = $1 limit 1', [ws.businessId]))[0].id;
  await app.sql(`update customers set email = 'vera@docs.example' where id = $1`, [customerUuid]);
  const emailConversation = (
    await req('POST', '/api/v1/conversations', { body: { business_id: ws.businessId, channel_id: email.id, customer_id: customerUuid } })
  ).body;
  await channel('x', { api_key: 'k', api_secret: 'x-secret', access_token: 'a', access_token_secret: 's', bearer_token: 'b' });
  let invited = '';
  let upload = '';
  let teamId = '';
  let labelId = '';
  let scheduledId = '';
  let cannedId = '';
  let slaPolicyId = '';
  const csatToken = (tag: string) => `${Buffer.from(ws.businessId.replace(/-/g, ''), 'hex').toString('base64url')}${tag.padEnd(24, 'x')}`;
  const survey = async (tag: string) => {
    await app.sql(`insert into csat_surveys (business_id, conversation_id, token, question) values ($1, $2, $3, 'How did we do?') on conflict do nothing`, [
      ws.businessId,
      (await app.sql(`insert into conversations (business_id, channel_type) values ($1, 'webchat') returning id`, [ws.businessId]))[0].id,
      csatToken(tag),
    ]);
    return csatToken(tag);
  };
  let apiKeyId = '';
  let webhookId = '';
  let testDeliveryId = '';
  const smsForm = { From: '+15552223333', To: '+15550001111', Body: 'hi', MessageSid: 'SM1', AccountSid: 'AC1' };
  const smsPath = `/api/v1/webhooks/sms/${sms.id}`;
  const xBody = JSON.stringify({ for_user_id: '42', direct_message_events: [] });
  const stripeEvent = JSON.stringify({ id: 'evt_docs', object: 'event', type: 'customer.created', data: { object: {} } });
  const meta = (object: string) => JSON.stringify({ object, entry: [] });
  const rawJson = (body: string, headers: Record<string, string> = {}) => ({
    token: undefined,
    rawBody: body,
    headers: { 'content-type': 'application/json', ...headers },
  });
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' }), 'shot.png');
  const twoFactor = { token: '', secret: '', recovery: '' };
  const calls: [string, Call][] = [
    ['get /healthz', () => app.request('GET', '/healthz')],
    ['get /readyz', () => app.request('GET', '/readyz')],
    ['get /docs', () => app.request('GET', '/docs')],
    ['get /docs/decisions', () => app.request('GET', '/docs/decisions')],
    ['get /widget.js', () => app.request('GET', '/widget.js')],
    [
      'post /api/v1/auth/register',
      () => app.request('POST', '/api/v1/auth/register', { body: { email: 'doc@example.com', full_name: 'Doc', password: 'password123' } }),
    ],
    ['post /api/v1/auth/login', () => app.request('POST', '/api/v1/auth/login', { body: { email: 'doc@example.com', password: 'password123' } })],
    ['post /api/v1/auth/google', async () => app.request('POST', '/api/v1/auth/google', { body: { id_token: await google.signIdToken() } })],
    ['get /api/v1/auth/me', () => req('GET', '/api/v1/auth/me')],
    ['post /api/v1/auth/verify-email/send', () => req('POST', '/api/v1/auth/verify-email/send')],
    [
      'post /api/v1/auth/verify-email',
      async () =>
        app.request('POST', '/api/v1/auth/verify-email', {
          body: { token: await issuePurposeToken(app.deps.config.jwtSecret, 'verify-email', ws.userId, 600, { email: ws.email }) },
        }),
    ],
    ['post /api/v1/business', async () => req('POST', '/api/v1/business', { token: (await registerUser(app)).token, body: { name: 'Second Co' } })],
    ['get /api/v1/business', () => req('GET', '/api/v1/business')],
    ['patch /api/v1/business', () => req('PATCH', '/api/v1/business', { body: { industry: 'Retail' } })],
    ['get /api/v1/business/plan', () => req('GET', '/api/v1/business/plan')],
    [
      'post /api/v1/team/invite',
      async () => {
        const res = await req('POST', '/api/v1/team/invite', { query: { email: member.email, role: 'agent' } });
        invited = res.body.team_member_id;
        return res;
      },
    ],
    ['get /api/v1/team/members', () => req('GET', '/api/v1/team/members')],
    [
      'post /api/v1/team/leave',
      async () => {
        const leaver = await registerUser(app);
        const added = await req('POST', '/api/v1/team/invite', { query: { email: leaver.email, role: 'agent' } });
        if (added.status !== 200) return added;
        return req('POST', '/api/v1/team/leave', { token: leaver.token });
      },
    ],
    ['patch /api/v1/team/status', () => req('PATCH', '/api/v1/team/status', { body: { status: 'live' } })],
    ['get /api/v1/team/pending-handoffs', () => req('GET', '/api/v1/team/pending-handoffs')],
    ['post /api/v1/team/assign/{conversation_id}', () => req('POST', `/api/v1/team/assign/${conversation.id}`, { query: { agent_id: member.userId } })],
    ['post /api/v1/conversations', () => req('POST', '/api/v1/conversations', { body: { business_id: ws.businessId } })],
    ['get /api/v1/conversations', () => req('GET', '/api/v1/conversations')],
    ['get /api/v1/conversations/{conversation_id}', () => req('GET', `/api/v1/conversations/${conversation.id}`)],
    [
      'post /api/v1/conversations/{conversation_id}/messages',
      () => req('POST', `/api/v1/conversations/${conversation.id}/messages`, { body: { content: 'Reply' } }),
    ],
    [
      'post /api/v1/conversations/{conversation_id}/merge',
      async () => {
        // Two conversations of one customer (the walk's own conversation stays as it is).
        const [customer] = await app.sql(`insert into customers (business_id, name) values ($1, 'Merge Me') returning id`, [ws.businessId]);
        const [a] = await app.sql(`insert into conversations (business_id, customer_id, channel_type) values ($1, $2, 'webchat') returning id`, [
          ws.businessId,
          customer.id,
        ]);
        const [b] = await app.sql(`insert into conversations (business_id, customer_id, channel_type) values ($1, $2, 'webchat') returning id`, [
          ws.businessId,
          customer.id,
        ]);
        return req('POST', `/api/v1/conversations/${a.id}/merge`, { body: { from_conversation_id: b.id } });
      },
    ],
    ['get /api/v1/conversations/{conversation_id}/messages', () => req('GET', `/api/v1/conversations/${conversation.id}/messages`)],
    ['get /api/v1/conversations/{conversation_id}/events', () => req('GET', `/api/v1/conversations/${conversation.id}/events`)],
    ['get /api/v1/conversations/{conversation_id}/reply-recipients', () => req('GET', `/api/v1/conversations/${emailConversation.id}/reply-recipients`)],
    [
      'post /api/v1/conversations/{conversation_id}/forward',
      () => req('POST', `/api/v1/conversations/${emailConversation.id}/forward`, { body: { to: ['boss@docs.example'], note: 'FYI' } }),
    ],
    ['put /api/v1/team/signature', () => req('PUT', '/api/v1/team/signature', { body: { signature: 'Doc\nSupport' } })],
    ['get /api/v1/team/signature', () => req('GET', '/api/v1/team/signature')],
    [
      'put /api/v1/conversations/{conversation_id}/snooze',
      () => req('PUT', `/api/v1/conversations/${conversation.id}/snooze`, { body: { until_customer_replies: true } }),
    ],
    ['delete /api/v1/conversations/{conversation_id}/snooze', () => req('DELETE', `/api/v1/conversations/${conversation.id}/snooze`)],
    [
      'put /api/v1/conversations/{conversation_id}/priority',
      () => req('PUT', `/api/v1/conversations/${conversation.id}/priority`, { body: { priority: 'high' } }),
    ],
    [
      'post /api/v1/conversations/bulk',
      () => req('POST', '/api/v1/conversations/bulk', { body: { ids: [conversation.id], action: 'priority', priority: 'urgent' } }),
    ],
    [
      'patch /api/v1/conversations/{conversation_id}/messages/{message_id}',
      async () => {
        const later = new Date(Date.now() + 3600_000).toISOString();
        scheduledId = (await req('POST', `/api/v1/conversations/${conversation.id}/messages`, { body: { content: 'Later', send_at: later } })).body.id;
        return req('PATCH', `/api/v1/conversations/${conversation.id}/messages/${scheduledId}`, { body: { content: 'Later, edited' } });
      },
    ],
    [
      'delete /api/v1/conversations/{conversation_id}/messages/{message_id}',
      () => req('DELETE', `/api/v1/conversations/${conversation.id}/messages/${scheduledId}`),
    ],
    [
      'post /api/v1/conversations/{conversation_id}/messages/{message_id}/retry',
      async () => {
        // A reply the platform refused (as the delivery drain leaves it).
        const refused = (await req('POST', `/api/v1/conversations/${conversation.id}/messages`, { body: { content: 'Refused once' } })).body.id;
        await app.sql(`update messages set delivery_status = 'failed', error = 'Refused' where id = $1`, [refused]);
        return req('POST', `/api/v1/conversations/${conversation.id}/messages/${refused}/retry`);
      },
    ],
    [
      'get /api/v1/mentions',
      async () => {
        // A note naming the owner, so the list has a Mention to check against the schema.
        const owner = (await req('GET', '/api/v1/team/members')).body.find((m: any) => m.user_id === ws.userId);
        await req('POST', `/api/v1/conversations/${conversation.id}/messages`, { body: { content: 'Note', private: true, mentions: [owner.id] } });
        return req('GET', '/api/v1/mentions');
      },
    ],
    ['patch /api/v1/mentions/{mention_id}/read', async () => req('PATCH', `/api/v1/mentions/${(await req('GET', '/api/v1/mentions')).body[0].id}/read`)],
    ['put /api/v1/conversations/{conversation_id}/assign/{agent_id}', () => req('PUT', `/api/v1/conversations/${conversation.id}/assign/1`)],
    ['put /api/v1/conversations/{conversation_id}/resolve', () => req('PUT', `/api/v1/conversations/${conversation.id}/resolve`)],
    ['put /api/v1/conversations/{conversation_id}/reopen', () => req('PUT', `/api/v1/conversations/${conversation.id}/reopen`)],
    ['put /api/v1/conversations/{conversation_id}/close', () => req('PUT', `/api/v1/conversations/${conversation.id}/close`)],
    [
      'post /api/v1/conversations/{conversation_id}/upload',
      async () => {
        const res = await fetch(`${app.url}/api/v1/conversations/${conversation.id}/upload`, {
          method: 'POST',
          headers: { authorization: `Bearer ${access}` },
          body: form,
        });
        const text = await res.text();
        const body = JSON.parse(text);
        upload = body.url;
        return { status: res.status, body, headers: res.headers, text };
      },
    ],
    ['get /api/v1/uploads/{storage_key}', () => app.request('GET', new URL(upload).pathname)],
    ['get /api/v1/customers', () => req('GET', '/api/v1/customers')],
    ['get /api/v1/customers/{id}', () => req('GET', `/api/v1/customers/${customerNumber}`)],
    [
      'patch /api/v1/customers/{id}',
      () => req('PATCH', `/api/v1/customers/${customerNumber}`, { body: { name: 'Vera V.', attributes: { plan: 'gold', orders: 3, vip: true } } }),
    ],
    ['get /api/v1/customers/{id}/export', () => req('GET', `/api/v1/customers/${customerNumber}/export`)],
    ['get /api/v1/customers/{id}/visit', () => req('GET', `/api/v1/customers/${customerNumber}/visit`)],
    ['get /api/v1/customers/export.csv', () => req('GET', '/api/v1/customers/export.csv')],
    [
      'post /api/v1/customers/import',
      async () => {
        const csv = new FormData();
        csv.set('file', new Blob(['name,email\nImported,imported@docs.example\nBad,not-an-address\n'], { type: 'text/csv' }), 'customers.csv');
        const res = await fetch(`${app.url}/api/v1/customers/import`, { method: 'POST', headers: { authorization: `Bearer ${access}` }, body: csv });
        const text = await res.text();
        return { status: res.status, body: JSON.parse(text), headers: res.headers, text };
      },
    ],
    ['post /api/v1/customers/{id}/notes', () => req('POST', `/api/v1/customers/${customerNumber}/notes`, { body: { body: 'Prefers e-mail' } })],
    ['get /api/v1/customers/{id}/notes', () => req('GET', `/api/v1/customers/${customerNumber}/notes`)],
    [
      'delete /api/v1/customers/{id}/notes/{note_id}',
      async () => {
        const note = await req('POST', `/api/v1/customers/${customerNumber}/notes`, { body: { body: 'To delete' } });
        return req('DELETE', `/api/v1/customers/${customerNumber}/notes/${note.body.id}`);
      },
    ],
    [
      'put /api/v1/settings/customer-attributes',
      () =>
        req('PUT', '/api/v1/settings/customer-attributes', {
          body: {
            attributes: [
              { key: 'plan', label: 'Plan', type: 'list', options: ['gold', 'silver'] },
              { key: 'orders', label: 'Orders', type: 'number' },
              { key: 'vip', label: 'VIP', type: 'boolean' },
            ],
          },
        }),
    ],
    ['get /api/v1/settings/customer-attributes', () => req('GET', '/api/v1/settings/customer-attributes')],
    [
      'post /api/v1/customers/{id}/merge',
      async () => {
        const [other] = await app.sql(`insert into customers (business_id, name, email) values ($1, 'Vera again', 'vera@docs.example') returning number`, [
          ws.businessId,
        ]);
        return req('POST', `/api/v1/customers/${customerNumber}/merge`, { body: { from_customer_id: Number(other.number) } });
      },
    ],
    [
      'delete /api/v1/customers/{id}',
      async () => {
        const [gone] = await app.sql(`insert into customers (business_id, name) values ($1, 'To erase') returning number`, [ws.businessId]);
        return req('DELETE', `/api/v1/customers/${gone.number}`);
      },
    ],
    ['get /api/v1/settings/retention', () => req('GET', '/api/v1/settings/retention')],
    ['patch /api/v1/settings/retention', () => req('PATCH', '/api/v1/settings/retention', { body: { days: 365 } })],
    ['get /api/v1/channels', () => req('GET', '/api/v1/channels')],
    ['get /api/v1/channel-types', () => req('GET', '/api/v1/channel-types')],
    ['post /api/v1/channels', () => req('POST', '/api/v1/channels', { body: { type: 'telegram', config: { bot_token: '456:def' } } })],
    ['patch /api/v1/channels/{channel_id}', () => req('PATCH', `/api/v1/channels/${telegram.id}`, { body: { is_active: true } })],
    ['post /api/v1/channels/{channel_id}/reconnect', () => req('POST', `/api/v1/channels/${sms.id}/reconnect`)],
    // Templates already synced (the cache answers; Graph is not asked).
    [
      'get /api/v1/channels/{channel_id}/templates',
      async () => {
        await app.sql(
          `insert into channel_templates (business_id, channel_id, name, language, category, status, body, parameter_count) values ($1, $2, 'order_update', 'en_US', 'UTILITY', 'APPROVED', 'Hi {{1}}', 1)`,
          [ws.businessId, whatsapp.id],
        );
        return req('GET', `/api/v1/channels/${whatsapp.id}/templates`);
      },
    ],
    ['put /api/v1/widget/update/{widget_id}', () => req('PUT', `/api/v1/widget/update/${widget.id}`, { body: { name: 'Docs' } })],
    ['get /api/v1/widget/{widget_id}', () => app.request('GET', `/api/v1/widget/${widget.id}`)],
    ['get /api/v1/widget/{widget_id}/channels', () => app.request('GET', `/api/v1/widget/${widget.id}/channels`)],
    ['get /api/v1/widget/{widget_id}/identity-secret', () => req('GET', `/api/v1/widget/${widget.id}/identity-secret`)],
    ['post /api/v1/widget/{widget_id}/identity-secret/rotate', () => req('POST', `/api/v1/widget/${widget.id}/identity-secret/rotate`)],
    ['post /api/v1/widget/create', () => req('POST', '/api/v1/widget/create', { body: { domain: 'second.example' } })],
    ['get /api/v1/widget', () => req('GET', '/api/v1/widget/')],
    ['post /api/v1/kb/articles', () => req('POST', '/api/v1/kb/articles', { body: { title: 'Refunds', content: 'Refunds take five days.' } })],
    ['get /api/v1/kb/articles', () => req('GET', '/api/v1/kb/articles')],
    ['get /api/v1/kb/search', () => req('GET', '/api/v1/kb/search', { query: { q: 'refund' } })],
    ['get /api/v1/search', () => req('GET', '/api/v1/search', { query: { q: 'hi', type: 'messages' } })],
    [
      'post /api/v1/labels',
      async () => {
        const res = await req('POST', '/api/v1/labels', { body: { name: 'Docs', color: '#123abc', description: 'For the docs' } });
        labelId = res.body.id;
        return res;
      },
    ],
    ['get /api/v1/labels', () => req('GET', '/api/v1/labels')],
    ['patch /api/v1/labels/{label_id}', () => req('PATCH', `/api/v1/labels/${labelId}`, { body: { color: '#abcdef' } })],
    ['put /api/v1/conversations/{conversation_id}/labels', () => req('PUT', `/api/v1/conversations/${conversation.id}/labels`, { body: { labels: ['Docs'] } })],
    ['delete /api/v1/labels/{label_id}', () => req('DELETE', `/api/v1/labels/${labelId}`)],
    [
      'post /api/v1/teams',
      async () => {
        const res = await req('POST', '/api/v1/teams', { body: { name: 'Docs team', description: 'For the docs' } });
        teamId = res.body.id;
        return res;
      },
    ],
    ['get /api/v1/teams', () => req('GET', '/api/v1/teams')],
    ['patch /api/v1/teams/{team_id}', () => req('PATCH', `/api/v1/teams/${teamId}`, { body: { name: 'Docs crew' } })],
    [
      'put /api/v1/teams/{team_id}/members',
      async () => {
        const owner = (await req('GET', '/api/v1/team/members')).body.find((m: any) => m.user_id === ws.userId);
        return req('PUT', `/api/v1/teams/${teamId}/members`, { body: { member_ids: [owner.id] } });
      },
    ],
    ['get /api/v1/teams/{team_id}/members', () => req('GET', `/api/v1/teams/${teamId}/members`)],
    ['put /api/v1/conversations/{conversation_id}/team', () => req('PUT', `/api/v1/conversations/${conversation.id}/team`, { body: { team_id: teamId } })],
    ['delete /api/v1/teams/{team_id}', () => req('DELETE', `/api/v1/teams/${teamId}`)],
    [
      'post /api/v1/canned-responses',
      async () => {
        const res = await req('POST', '/api/v1/canned-responses', { body: { short_code: 'hi', content: 'Hi {{customer.name}}' } });
        cannedId = res.body.id;
        return res;
      },
    ],
    ['get /api/v1/canned-responses', () => req('GET', '/api/v1/canned-responses', { query: { q: 'hi' } })],
    [
      'patch /api/v1/canned-responses/{canned_response_id}',
      () => req('PATCH', `/api/v1/canned-responses/${cannedId}`, { body: { content: 'Hello {{customer.name}}' } }),
    ],
    [
      'post /api/v1/canned-responses/{canned_response_id}/render',
      () => req('POST', `/api/v1/canned-responses/${cannedId}/render`, { body: { conversation_id: conversation.id } }),
    ],
    ['delete /api/v1/canned-responses/{canned_response_id}', () => req('DELETE', `/api/v1/canned-responses/${cannedId}`)],
    [
      'post /api/v1/api-keys',
      async () => {
        const res = await req('POST', '/api/v1/api-keys', { body: { name: 'Docs', scopes: ['read', 'admin'], password: 'password123' } });
        apiKeyId = res.body.id;
        return res;
      },
    ],
    ['get /api/v1/api-keys', () => req('GET', '/api/v1/api-keys')],
    ['delete /api/v1/api-keys/{api_key_id}', () => req('DELETE', `/api/v1/api-keys/${apiKeyId}`)],
    [
      'post /api/v1/webhooks',
      async () => {
        const res = await req('POST', '/api/v1/webhooks', { body: { url: 'http://127.0.0.1:9/hook', events: ['message.created'] } });
        webhookId = res.body.id;
        return res;
      },
    ],
    ['get /api/v1/webhooks', () => req('GET', '/api/v1/webhooks')],
    [
      'patch /api/v1/webhooks/{webhook_id}',
      () => req('PATCH', `/api/v1/webhooks/${webhookId}`, { body: { events: ['message.created', 'conversation.created'] } }),
    ],
    [
      'post /api/v1/webhooks/{webhook_id}/test',
      async () => {
        const res = await req('POST', `/api/v1/webhooks/${webhookId}/test`);
        testDeliveryId = res.body.delivery_id;
        return res;
      },
    ],
    [
      'post /api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver',
      () => req('POST', `/api/v1/webhooks/${webhookId}/deliveries/${testDeliveryId}/redeliver`),
    ],
    ['get /api/v1/webhooks/{webhook_id}/deliveries', () => req('GET', `/api/v1/webhooks/${webhookId}/deliveries`)],
    ['delete /api/v1/webhooks/{webhook_id}', () => req('DELETE', `/api/v1/webhooks/${webhookId}`)],
    ['get /api/v1/audit-log', () => req('GET', '/api/v1/audit-log')],
    ['delete /api/v1/kb/articles/{article_id}', async () => req('DELETE', `/api/v1/kb/articles/${(await req('GET', '/api/v1/kb/articles')).body[0].id}`)],
    ['get /api/v1/analytics/overview', () => req('GET', '/api/v1/analytics/overview')],
    ['get /api/v1/reports/overview', () => req('GET', '/api/v1/reports/overview', { query: { tz: 'Europe/Berlin' } })],
    ['get /api/v1/reports/agents', () => req('GET', '/api/v1/reports/agents')],
    ['get /api/v1/reports/channels', () => req('GET', '/api/v1/reports/channels')],
    ['get /api/v1/reports/labels', () => req('GET', '/api/v1/reports/labels')],
    ['get /api/v1/reports/csat', () => req('GET', '/api/v1/reports/csat')],
    ['get /api/v1/reports/sla', () => req('GET', '/api/v1/reports/sla', { query: { tz: 'Europe/Berlin' } })],
    ['get /api/v1/ai/settings', () => req('GET', '/api/v1/ai/settings')],
    ['put /api/v1/ai/settings', () => req('PUT', '/api/v1/ai/settings', { body: { auto_reply_enabled: true } })],
    ['get /api/v1/settings/assignment', () => req('GET', '/api/v1/settings/assignment')],
    ['patch /api/v1/settings/assignment', () => req('PATCH', '/api/v1/settings/assignment', { body: { enabled: true, max_open_per_agent: 5 } })],
    ['get /api/v1/settings/business-hours', () => req('GET', '/api/v1/settings/business-hours')],
    ['get /api/v1/settings/security', () => req('GET', '/api/v1/settings/security')],
    ['patch /api/v1/settings/security', () => req('PATCH', '/api/v1/settings/security', { body: { require_two_factor: false } })],
    [
      'patch /api/v1/settings/business-hours',
      () =>
        req('PATCH', '/api/v1/settings/business-hours', {
          body: { enabled: true, timezone: 'Europe/Berlin', week: { mon: [{ open: '09:00', close: '17:00' }] }, holidays: ['2026-12-25'] },
        }),
    ],
    [
      'post /api/v1/sla-policies',
      async () => {
        const res = await req('POST', '/api/v1/sla-policies', { body: { name: 'Standard', first_response_minutes: 60, resolution_minutes: 1440 } });
        slaPolicyId = res.body.id;
        return res;
      },
    ],
    ['get /api/v1/sla-policies', () => req('GET', '/api/v1/sla-policies')],
    ['get /api/v1/sla-policies/{policy_id}', () => req('GET', `/api/v1/sla-policies/${slaPolicyId}`)],
    ['patch /api/v1/sla-policies/{policy_id}', () => req('PATCH', `/api/v1/sla-policies/${slaPolicyId}`, { body: { business_hours_only: true } })],
    ['delete /api/v1/sla-policies/{policy_id}', () => req('DELETE', `/api/v1/sla-policies/${slaPolicyId}`)],
    ['get /api/v1/settings/csat', () => req('GET', '/api/v1/settings/csat')],
    ['patch /api/v1/settings/csat', () => req('PATCH', '/api/v1/settings/csat', { body: { enabled: true, question: 'How did we do?' } })],
    ['post /api/v1/csat/{token}', async () => app.request('POST', `/api/v1/csat/${await survey('api')}`, { body: { rating: 5, comment: 'Great' } })],
    ['get /csat/{token}', async () => app.request('GET', `/csat/${await survey('page')}`)],
    [
      'post /csat/{token}',
      async () =>
        app.request('POST', `/csat/${await survey('form')}`, {
          rawBody: 'rating=4&comment=Fine',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
    ],
    [
      'get /api/v1/billing/checkout-url',
      async () => req('GET', '/api/v1/billing/checkout-url', { token: (await createWorkspace(app)).token, query: { plan: 'pro' } }),
    ],
    [
      'post /api/v1/billing/webhook',
      () =>
        app.request(
          'POST',
          '/api/v1/billing/webhook',
          rawJson(stripeEvent, { 'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload: stripeEvent, secret: STRIPE_WEBHOOK }) }),
        ),
    ],
    [
      'get /api/v1/webhooks/whatsapp',
      () =>
        app.request('GET', '/api/v1/webhooks/whatsapp', {
          query: { 'hub.mode': 'subscribe', 'hub.verify_token': whatsapp.config.verify_token, 'hub.challenge': '8675309' },
        }),
    ],
    ['post /api/v1/webhooks/whatsapp', () => app.request('POST', '/api/v1/webhooks/whatsapp', rawJson(meta('whatsapp_business_account')))],
    [
      'get /api/v1/webhooks/instagram',
      () =>
        app.request('GET', '/api/v1/webhooks/instagram', {
          query: { 'hub.mode': 'subscribe', 'hub.verify_token': instagram.config.verify_token, 'hub.challenge': '42' },
        }),
    ],
    ['post /api/v1/webhooks/instagram', () => app.request('POST', '/api/v1/webhooks/instagram', rawJson(meta('instagram')))],
    [
      'post /api/v1/webhooks/telegram/{channel_id}',
      () =>
        app.request(
          'POST',
          `/api/v1/webhooks/telegram/${telegram.id}`,
          rawJson(JSON.stringify({ update_id: 1 }), { 'x-telegram-bot-api-secret-token': 'hook-secret' }),
        ),
    ],
    [
      'post /api/v1/webhooks/sms/{channel_id}',
      () =>
        app.request('POST', smsPath, {
          rawBody: new URLSearchParams(smsForm).toString(),
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'x-twilio-signature': signTwilioWebhook('twilio-token', app.deps.config.publicUrl + smsPath, smsForm),
          },
        }),
    ],
    [
      'post /api/v1/webhooks/email/{channel_id}',
      () =>
        app.request('POST', `/api/v1/webhooks/email/${email.id}`, {
          rawBody: 'From: Ann <ann@example.com>\r\nTo: help@docs.example\r\nSubject: Hi\r\nMessage-ID: <m1@example.com>\r\n\r\nHello\r\n',
          headers: { 'content-type': 'message/rfc822', 'x-parley-webhook-secret': 'hook-secret' },
        }),
    ],
    ['get /api/v1/webhooks/x', () => app.request('GET', '/api/v1/webhooks/x', { query: { crc_token: 'challenge' } })],
    [
      'post /api/v1/webhooks/x',
      () => app.request('POST', '/api/v1/webhooks/x', rawJson(xBody, { 'x-twitter-webhooks-signature': signXWebhook('x-secret', xBody) })),
    ],
    ['get /api/v1/visitor/messages', () => app.request('GET', '/api/v1/visitor/messages', { token: visitor })],
    ['post /api/v1/visitor/messages', () => app.request('POST', '/api/v1/visitor/messages', { token: visitor, body: { content: 'Thanks' } })],
    ['post /api/v1/visitor/sessions', () => app.request('POST', '/api/v1/visitor/sessions', { body: { widget_id: widget.id, visitor_token: visitor } })],
    [
      'post /api/v1/visitor/uploads',
      async () => {
        const res = await fetch(`${app.url}/api/v1/visitor/uploads`, { method: 'POST', headers: { authorization: `Bearer ${visitor}` }, body: form });
        const text = await res.text();
        return { status: res.status, body: JSON.parse(text), headers: res.headers, text };
      },
    ],
    ['delete /api/v1/channels/{channel_id}', () => req('DELETE', `/api/v1/channels/${telegram.id}`)],
    ['delete /api/v1/team/members/{member_id}', () => req('DELETE', `/api/v1/team/members/${invited}`)],
    // Two-factor, in order: setup, enable, new recovery codes, a sign-in with a recovery code, off.
    [
      'post /api/v1/auth/two-factor/setup',
      async () => {
        twoFactor.token = (await registerUser(app)).token;
        const res = await req('POST', '/api/v1/auth/two-factor/setup', { token: twoFactor.token });
        twoFactor.secret = res.body.secret;
        return res;
      },
    ],
    [
      'post /api/v1/auth/two-factor/enable',
      () =>
        req('POST', '/api/v1/auth/two-factor/enable', {
          token: twoFactor.token,
          body: { code: totpAt(base32Decode(twoFactor.secret)!, Date.now()), password: 'password123' },
        }),
    ],
    [
      'post /api/v1/auth/two-factor/recovery-codes',
      async () => {
        const res = await req('POST', '/api/v1/auth/two-factor/recovery-codes', { token: twoFactor.token, body: { password: 'password123' } });
        twoFactor.recovery = res.body.recovery_codes?.[0] ?? '';
        return res;
      },
    ],
    [
      'post /api/v1/auth/login/two-factor',
      async () => {
        const profile = await req('GET', '/api/v1/auth/me', { token: twoFactor.token });
        const first = await app.request('POST', '/api/v1/auth/login', { body: { email: profile.body.user.email, password: 'password123' } });
        return app.request('POST', '/api/v1/auth/login/two-factor', {
          body: { challenge_token: first.body.challenge_token, recovery_code: twoFactor.recovery },
        });
      },
    ],
    [
      'post /api/v1/auth/two-factor/disable',
      () => req('POST', '/api/v1/auth/two-factor/disable', { token: twoFactor.token, body: { password: 'password123' } }),
    ],
    ['post /api/v1/auth/password-reset', () => app.request('POST', '/api/v1/auth/password-reset', { body: { email: ws.email } })],
    [
      'post /api/v1/auth/password-reset/confirm',
      async () => {
        const [user] = await app.sql('select token_generation from users where id = $1', [ws.userId]);
        const token = await issuePurposeToken(app.deps.config.jwtSecret, 'password-reset', ws.userId, 600, {
          email: ws.email,
          gen: String(user.token_generation),
        });
        const res = await app.request('POST', '/api/v1/auth/password-reset/confirm', { body: { token, password: 'password123' } });
        access = res.body.access_token ?? access;
        return res;
      },
    ],
    [
      'post /api/v1/auth/password',
      async () => {
        const res = await req('POST', '/api/v1/auth/password', { body: { current_password: 'password123', new_password: 'password123' } });
        access = res.body.access_token ?? access;
        return res;
      },
    ],
    ['post /api/v1/auth/logout', () => req('POST', '/api/v1/auth/logout')],
    [
      'post /api/v1/auth/logout-all',
      async () => req('POST', '/api/v1/auth/logout-all', { token: (await registerUser(app)).token, body: { password: 'password123' } }),
    ],
  ];
  return calls;
}

test('every operation answers 200 with a body its documented 200 schema accepts', async (t) => {
  const document = (await app.request('GET', '/api/v1/openapi.json')).body;
  const resolved: any = await SwaggerParser.dereference(structuredClone(document));
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addFormat('int32', true).addFormat('int64', true);
  const calls = new Map(await operationCalls());
  const documented = Object.entries<any>(resolved.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method} ${path}`));
  t.deepEqual(
    documented.filter((op) => !calls.has(op)),
    [],
    'operations without a call in this test',
  );
  t.deepEqual(
    [...calls.keys()].filter((op) => !documented.includes(op)),
    [],
    'calls for operations the document lacks',
  );
  const failures: string[] = [];
  for (const [operation, call] of calls) {
    const [method, path] = operation.split(' ');
    const res = await call();
    const success = Number(Object.keys(resolved.paths[path][method].responses).find((status) => status.startsWith('2')));
    if (res.status !== success) {
      failures.push(`${operation}: ${res.status} ${res.text.slice(0, 300)}`);
      continue;
    }
    const content = resolved.paths[path][method].responses[String(success)].content ?? {};
    const [type, media] = Object.entries<any>(content)[0] ?? [];
    if (!media?.schema || type === 'application/octet-stream') continue;
    const value = type === 'application/json' ? res.body : res.text;
    const validate = ajv.compile(media.schema);
    if (!validate(value)) failures.push(`${operation}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(value).slice(0, 300)}`);
  }
  t.deepEqual(failures, []);
  t.is(calls.size, documented.length);
});
