import test from 'ava';
import { channelsByRoutingKey, proveAccount } from '../core/commands/channel-runtime.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, registerUser, type Workspace } from './helpers/fixtures.ts';
import { decryptJson } from '../core/crypto.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp({ env: { PUBLIC_URL: 'https://parley.example.com' } });
});
test.after.always(() => app?.close());

const registerJobs = (channelId: string) => app.sql(`select task_identifier, key from graphile_worker.jobs where key = $1`, [`register:${channelId}`]);

const registerJobCount = async (businessId: string) =>
  Number(
    (
      await app.sql(
        `select count(*) from graphile_worker._private_jobs j
         join graphile_worker._private_tasks t on t.id = j.task_id
         where t.identifier = 'register_channel' and (j.payload->>'channel_id')::uuid in (select id from channels where business_id = $1)`,
        [businessId],
      )
    )[0].count,
  );

const channelCount = async (businessId: string) => Number((await app.sql(`select count(*) from channels where business_id = $1`, [businessId]))[0].count);

const telegram = (token = '123456:ABC-DEF') => ({ type: 'telegram', config: { bot_token: token } });

async function createChannel(ws: Workspace, body: unknown) {
  const res = await app.request('POST', '/api/v1/channels/', { token: ws.token, body });
  if (res.status !== 200) throw new Error(`create channel failed: ${res.status} ${res.text}`);
  return res.body;
}

test('list needs a token, answers with and without the trailing slash, and shows the built-in webchat', async (t) => {
  const anon = await app.request('GET', '/api/v1/channels/');
  t.is(anon.status, 401);
  t.deepEqual(anon.body, { detail: 'Not authenticated' });

  const ws = await createWorkspace(app);
  for (const path of ['/api/v1/channels/', '/api/v1/channels']) {
    const res = await app.request('GET', path, { token: ws.token });
    t.is(res.status, 200, res.text);
    t.is(res.body.length, 1);
    t.like(res.body[0], {
      business_id: ws.businessId,
      type: 'webchat',
      config: {},
      is_active: true,
      status: 'connected',
      last_error: null,
      send_held_until: null,
      is_builtin: true,
      inbound_webhook: null,
    });
    t.deepEqual(Object.keys(res.body[0]).sort(), [
      'business_id',
      'config',
      'created_at',
      'default_team_id',
      'id',
      'inbound_webhook',
      'is_active',
      'is_builtin',
      'last_error',
      'send_held_until',
      'status',
      'type',
      'warnings',
      'webhook_url',
    ]);
    t.regex(res.body[0].created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  }

  const loner = await registerUser(app);
  const none = await app.request('GET', '/api/v1/channels/', { token: loner.token });
  t.is(none.status, 400);
  t.deepEqual(none.body, { detail: 'Organization not found' });
});

test('create stores the config encrypted and enqueues register_channel in the same transaction', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const res = await app.request('POST', '/api/v1/channels/', {
    token: ws.token,
    body: { type: 'telegram', config: { bot_token: ' 999:SECRET-token_x ', junk: 'dropped' } },
  });
  t.is(res.status, 200, res.text);
  t.like(res.body, {
    business_id: ws.businessId,
    type: 'telegram',
    config: { bot_token: '999:SECRET-token_x' },
    is_active: true,
    status: 'pending',
    last_error: null,
    is_builtin: false,
  });
  t.deepEqual(Object.keys(res.body.config), ['bot_token']);

  const row = (
    await app.sql(`select row_to_json(c)::text as raw, config_encrypted, routing_key, verify_token from channels c where id = $1`, [res.body.id])
  )[0];
  t.false(row.raw.includes('SECRET'), 'the raw row holds no plaintext token');
  t.regex(row.config_encrypted, /^v1\./);
  t.deepEqual(decryptJson(app.deps.config.encryptionKey, row.config_encrypted), { bot_token: '999:SECRET-token_x' });
  t.is(row.routing_key, '999', 'the bot id (not secret): one channel per bot');
  t.is(row.verify_token, null);

  t.deepEqual(await registerJobs(res.body.id), [{ task_identifier: 'register_channel', key: `register:${res.body.id}` }]);
  const payload = await app.sql(`select payload from graphile_worker._private_jobs where key = $1`, [`register:${res.body.id}`]);
  t.deepEqual(payload[0].payload, { channel_id: res.body.id });

  const list = await app.request('GET', '/api/v1/channels', { token: ws.token });
  t.deepEqual(
    list.body.map((c: any) => [c.type, c.config]),
    [
      ['webchat', {}],
      ['telegram', { bot_token: '999:SECRET-token_x' }],
    ],
  );
});

test('is_active false on create is kept', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const channel = await createChannel(ws, { ...telegram(), is_active: false });
  t.false(channel.is_active);
});

test('unknown type is 400 Invalid channel type (not 422), and nothing is written', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  for (const type of ['fax', 'Telegram', '']) {
    const res = await app.request('POST', '/api/v1/channels/', { token: ws.token, body: { type, config: {} } });
    t.is(res.status, 400, type);
    t.deepEqual(res.body, { detail: 'Invalid channel type' });
  }
  t.is(await channelCount(ws.businessId), 1);
  t.is(await registerJobCount(ws.businessId), 0);
});

test('body shape errors are 422', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const res = await app.request('POST', '/api/v1/channels/', { token: ws.token, body: { config: 'nope', is_active: 'yes' } });
  t.is(res.status, 422);
  t.deepEqual(res.body.detail.map((d: any) => [d.loc.join('.'), d.type]).sort(), [
    ['body.config', 'dict_type'],
    ['body.is_active', 'bool_type'],
    ['body.type', 'missing'],
  ]);
});

test('missing required config fields are 400 naming them, for every type', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const cases: [string, Record<string, unknown>, string][] = [
    ['telegram', {}, 'bot_token'],
    ['telegram', { bot_token: '   ' }, 'bot_token'],
    ['whatsapp', { access_token: 'a' }, 'phone_number_id'],
    ['instagram', {}, 'access_token, instagram_business_account_id'],
    ['x', { api_key: 'k', bearer_token: 'b' }, 'api_secret, access_token, access_token_secret'],
    ['sms', { account_sid: 'AC1' }, 'auth_token, from_number'],
    ['email', { address: 'help@shop.example' }, 'smtp_host, smtp_port, smtp_user, smtp_password'],
    ['email', { address: 'a@b.c', smtp_host: 'h', smtp_port: 587, smtp_user: 'u', smtp_password: 'p', imap_host: 'imap.b.c' }, 'imap_user, imap_password'],
    ['widget', {}, 'widget_id'],
  ];
  for (const [type, config, fields] of cases) {
    const res = await app.request('POST', '/api/v1/channels/', { token: ws.token, body: { type, config } });
    t.is(res.status, 400, `${type} ${JSON.stringify(config)}`);
    t.deepEqual(res.body, { detail: `Missing required config fields: ${fields}` });
  }
  // A missing config object is an empty one.
  const bare = await app.request('POST', '/api/v1/channels/', { token: ws.token, body: { type: 'telegram' } });
  t.deepEqual([bare.status, bare.body], [400, { detail: 'Missing required config fields: bot_token' }]);
  t.is(await channelCount(ws.businessId), 1);
  t.is(await registerJobCount(ws.businessId), 0);
});

test('invalid config values are 400 naming them', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['telegram', { bot_token: 12345 }, /bot_token \(must be a string\)/],
    ['email', { address: 'not-an-address', smtp_host: 'h', smtp_port: '99999', smtp_user: 'u', smtp_password: 'p' }, /address .*smtp_port/],
    ['sms', { account_sid: 'XX123', auth_token: 't', from_number: '+15550001' }, /account_sid/],
  ];
  for (const [type, config, detail] of cases) {
    const res = await app.request('POST', '/api/v1/channels/', { token: ws.token, body: { type, config } });
    t.is(res.status, 400, type);
    t.regex(res.body.detail, /^Invalid config fields: /);
    t.regex(res.body.detail, detail);
  }
});

test('every platform type is accepted with its required fields; ports become strings, optional IMAP defaults its port', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const x = await createChannel(ws, { type: 'x', config: { api_key: 'k', api_secret: 's', access_token: 'a', access_token_secret: 'as', bearer_token: 'b' } });
  t.is(x.status, 'pending');
  const sms = await createChannel(ws, { type: 'sms', config: { account_sid: 'AC123', auth_token: 'tok', from_number: '+15550001' } });
  t.deepEqual(sms.config, { account_sid: 'AC123', auth_token: 'tok', from_number: '+15550001' });
  const email = await createChannel(ws, {
    type: 'email',
    config: {
      address: 'Help@Shop.Example',
      smtp_host: 'smtp.shop.example',
      smtp_port: 587,
      smtp_user: 'u',
      smtp_password: 'p',
      imap_host: 'imap.shop.example',
      imap_user: 'u',
      imap_password: 'p',
    },
  });
  t.deepEqual(email.config, {
    address: 'help@shop.example',
    smtp_host: 'smtp.shop.example',
    smtp_port: '587',
    smtp_user: 'u',
    smtp_password: 'p',
    imap_host: 'imap.shop.example',
    imap_user: 'u',
    imap_password: 'p',
    imap_port: '993',
  });
  const webchat = await createChannel(ws, { type: 'webchat', config: { name: 'Help center' } });
  t.like(webchat, { status: 'connected', config: { name: 'Help center' }, is_builtin: false });
  t.deepEqual(await registerJobs(webchat.id), [], 'webchat has no platform to register with');
  for (const c of [x, sms, email]) t.is((await registerJobs(c.id)).length, 1);
});

test('whatsapp and instagram: verify_token generated when absent, setup instructions, plain routing columns', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const wa = await createChannel(ws, { type: 'whatsapp', config: { phone_number_id: '10987654321', access_token: 'EAAG-secret' } });
  t.regex(wa.config.verify_token, /^[A-Za-z0-9_-]{32}$/);
  t.deepEqual(wa.config._meta_setup_instructions, {
    callback_url: 'https://parley.example.com/api/v1/webhooks/whatsapp',
    verify_token: wa.config.verify_token,
  });
  t.is(wa.status, 'pending');

  const ig = await createChannel(ws, {
    type: 'instagram',
    config: { access_token: 'IGQ-secret', instagram_business_account_id: '1784', verify_token: 'my-token', app_secret: 'appsecret' },
  });
  t.deepEqual(ig.config, {
    access_token: 'IGQ-secret',
    instagram_business_account_id: '1784',
    verify_token: 'my-token',
    app_secret: 'appsecret',
    _meta_setup_instructions: { callback_url: 'https://parley.example.com/api/v1/webhooks/instagram', verify_token: 'my-token' },
  });

  const rows = await app.sql(`select type, routing_key, verify_token from channels where id = any($1) order by type`, [[wa.id, ig.id]]);
  t.deepEqual(rows, [
    { type: 'instagram', routing_key: '1784', verify_token: 'my-token' },
    { type: 'whatsapp', routing_key: '10987654321', verify_token: wa.config.verify_token },
  ]);
  const stored = (await app.sql(`select config_encrypted from channels where id = $1`, [wa.id]))[0].config_encrypted;
  t.false('_meta_setup_instructions' in decryptJson<Record<string, unknown>>(app.deps.config.encryptionKey, stored), 'instructions are output only');

  const list = await app.request('GET', '/api/v1/channels/', { token: ws.token });
  const listed = list.body.find((c: any) => c.id === wa.id);
  t.false('_meta_setup_instructions' in listed.config);
  t.is(listed.config.verify_token, wa.config.verify_token);
});

/** What a registration that proved the account leaves (the worker is not running in this file). */
const proven = (channelId: string) => app.sql(`update channels set routing_proven = true, status = 'connected' where id = $1`, [channelId]);

test('an account a channel proved it holds cannot be connected again (any business); before the proof it blocks nobody', async (t) => {
  const a = await createWorkspace(app, { plan: 'Pro' });
  const b = await createWorkspace(app, { plan: 'Pro' });
  const first = await createChannel(a, { type: 'whatsapp', config: { phone_number_id: 'PN-shared', access_token: 'x' } });
  // Unproven (its registration has not run): a phone number id is public, so naming it claims nothing.
  const meanwhile = await app.request('POST', '/api/v1/channels/', {
    token: b.token,
    body: { type: 'whatsapp', config: { phone_number_id: 'PN-shared', access_token: 'y' } },
  });
  t.is(meanwhile.status, 200, meanwhile.text);
  t.is((await app.request('DELETE', `/api/v1/channels/${meanwhile.body.id}`, { token: b.token })).status, 200);
  await proven(first.id);
  const again = await app.request('POST', '/api/v1/channels/', {
    token: b.token,
    body: { type: 'whatsapp', config: { phone_number_id: 'PN-shared', access_token: 'y' } },
  });
  t.is(again.status, 400);
  t.deepEqual(again.body, { detail: 'This WhatsApp phone number is already connected to a channel' });
  t.is(await channelCount(b.businessId), 1);
  t.is(await registerJobCount(b.businessId), 0);
});

test('one proven channel per Telegram bot and per SMS number across businesses: a second is 400 at create and at update, with no row or job', async (t) => {
  const a = await createWorkspace(app, { plan: 'Pro' });
  const b = await createWorkspace(app, { plan: 'Pro' });
  await proven((await createChannel(a, telegram('424242:FIRST-secret'))).id);
  await proven((await createChannel(a, { type: 'sms', config: { account_sid: 'AC42', auth_token: 't', from_number: '+1 555 424 2424' } })).id);
  // The bot id (before the colon) names the bot, whatever the rest of the token; a number matches however it is written.
  const bot = await app.request('POST', '/api/v1/channels/', { token: b.token, body: telegram('424242:REGENERATED-secret') });
  t.deepEqual([bot.status, bot.body], [400, { detail: 'This Telegram bot is already connected to a channel' }]);
  const number = await app.request('POST', '/api/v1/channels/', {
    token: b.token,
    body: { type: 'sms', config: { account_sid: 'AC43', auth_token: 'u', from_number: '+1-555-424-2424' } },
  });
  t.deepEqual([number.status, number.body], [400, { detail: 'This phone number is already connected to a channel' }]);
  t.is(await channelCount(b.businessId), 1);
  t.is(await registerJobCount(b.businessId), 0);
  const own = await createChannel(b, telegram('434343:OWN'));
  const moved = await app.request('PATCH', `/api/v1/channels/${own.id}`, { token: b.token, body: { config: { bot_token: '424242:FIRST-secret' } } });
  t.deepEqual([moved.status, moved.body], [400, { detail: 'This Telegram bot is already connected to a channel' }]);
});

test('proving an account: the channel holds it alone, unproven channels of it elsewhere end in error saying why; a second proof fails', async (t) => {
  const squatter = await createWorkspace(app, { plan: 'Pro' });
  const owner = await createWorkspace(app, { plan: 'Pro' });
  const squat = await createChannel(squatter, { type: 'sms', config: { account_sid: 'AC66', auth_token: 'fake', from_number: '+1 555 777 0000' } });
  const real = await createChannel(owner, { type: 'sms', config: { account_sid: 'AC77', auth_token: 'real', from_number: '+15557770000' } });
  const claim = await proveAccount(app.deps.db, { id: real.id, type: 'sms' }, '+15557770000', 'Another business proved it');
  t.true(claim.proven);
  t.deepEqual(
    claim.events.map((e) => [e.name, (e.payload as { channel_id?: string }).channel_id, (e.payload as { status?: string }).status]),
    [['channel_updated', squat.id, 'error']],
  );
  const [row] = await app.sql(`select status, last_error, routing_proven from channels where id = $1`, [squat.id]);
  t.deepEqual(row, { status: 'error', last_error: 'Another business proved it', routing_proven: false });
  t.true((await app.sql(`select routing_proven from channels where id = $1`, [real.id]))[0].routing_proven);
  const second = await proveAccount(app.deps.db, { id: squat.id, type: 'sms' }, '+15557770000', 'x');
  t.deepEqual(second, { proven: false, events: [] });
});

test("webhook routing: an account's proven channel alone receives its events; before any proof, every unproven one", async (t) => {
  const owner = await createWorkspace(app, { plan: 'Pro' });
  const stranger = await createWorkspace(app, { plan: 'Pro' });
  const real = await createChannel(owner, { type: 'whatsapp', config: { phone_number_id: 'PN-route', access_token: 'real' } });
  const squat = await createChannel(stranger, { type: 'whatsapp', config: { phone_number_id: 'PN-route', access_token: 'guess' } });
  const routed = async () => (await channelsByRoutingKey(app.deps.db, app.deps.config.encryptionKey, 'whatsapp', 'PN-route')).map((c) => c.id).sort();
  t.deepEqual(await routed(), [real.id, squat.id].sort(), 'nobody proved it yet');
  await proven(real.id);
  t.deepEqual(await routed(), [real.id], "a stranger's channel never sees (nor fails the signature of) the owner's events");
});

test('Free plan: non-widget types are 402 feature_locked/integrations; no row, no job', async (t) => {
  const ws = await createWorkspace(app);
  for (const type of ['telegram', 'webchat', 'email']) {
    const res = await app.request('POST', '/api/v1/channels/', { token: ws.token, body: { type, config: { bot_token: 'x' } } });
    t.is(res.status, 402, type);
    t.like(res.body, { error: 'feature_locked', plan: 'Free', feature: 'integrations' });
    t.is(typeof res.body.message, 'string');
  }
  t.is(await channelCount(ws.businessId), 1);
  t.is(await registerJobCount(ws.businessId), 0);
});

test('Free plan: a widget channel is allowed', async (t) => {
  const ws = await createWorkspace(app);
  const widget = await app.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: 'free.example' } });
  t.is(widget.status, 200, widget.text);
  const channels = await app.request('GET', '/api/v1/channels/', { token: ws.token });
  const own = channels.body.find((c: any) => c.type === 'widget');
  t.like(own, { config: { widget_id: widget.body.id }, status: 'connected', is_active: true });
  // Deleting the widget's channel and connecting it again through the channels API.
  t.is((await app.request('DELETE', `/api/v1/channels/${own.id}`, { token: ws.token })).status, 200);
  const again = await app.request('POST', '/api/v1/channels/', { token: ws.token, body: { type: 'widget', config: { widget_id: widget.body.id } } });
  t.is(again.status, 200, again.text);
  t.like(again.body, { type: 'widget', status: 'connected', config: { widget_id: widget.body.id } });
  t.deepEqual(await registerJobs(again.body.id), []);
});

test('Mini plan: 3 channels besides the built-in webchat, the 4th is 402 limit_exceeded', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  for (let i = 0; i < 3; i++) await createChannel(ws, telegram(`${i}:TOKEN`));
  const jobs = await registerJobCount(ws.businessId);
  const res = await app.request('POST', '/api/v1/channels/', { token: ws.token, body: telegram('4:TOKEN') });
  t.is(res.status, 402);
  t.like(res.body, { error: 'limit_exceeded', plan: 'Mini', feature: 'channels', current: 3, limit: 3 });
  t.is(await channelCount(ws.businessId), 4);
  t.is(await registerJobCount(ws.businessId), jobs);
  // Inactive channels still count; deleting one frees a slot.
  const list = await app.request('GET', '/api/v1/channels/', { token: ws.token });
  const last = list.body[list.body.length - 1];
  t.is((await app.request('DELETE', `/api/v1/channels/${last.id}`, { token: ws.token })).status, 200);
  t.is((await app.request('POST', '/api/v1/channels/', { token: ws.token, body: telegram('5:TOKEN') })).status, 200);
});

test('widget_id must be a widget of the business', async (t) => {
  const a = await createWorkspace(app, { plan: 'Pro' });
  const b = await createWorkspace(app, { plan: 'Pro' });
  const foreign = await app.request('POST', '/api/v1/widget/create', { token: b.token, body: { domain: 'b.example' } });
  for (const widgetId of [foreign.body.id, 'not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
    const res = await app.request('POST', '/api/v1/channels/', { token: a.token, body: { type: 'widget', config: { widget_id: widgetId } } });
    t.is(res.status, 400, widgetId);
    t.deepEqual(res.body, { detail: 'Widget not found' });
  }
  const own = await app.request('POST', '/api/v1/widget/create', { token: a.token, body: { domain: 'a.example' } });
  const dup = await app.request('POST', '/api/v1/channels/', { token: a.token, body: { type: 'widget', config: { widget_id: own.body.id } } });
  t.deepEqual([dup.status, dup.body], [400, { detail: 'This widget already has a channel' }]);
});

test('agents read with secrets masked and may not manage; admins may', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const agent = await addMember(app, ws.businessId, 'agent');
  const admin = await addMember(app, ws.businessId, 'admin');
  const wa = await createChannel(ws, { type: 'whatsapp', config: { phone_number_id: 'PN-mask', access_token: 'EAAG-mask', app_secret: 'shh' } });
  await createChannel(ws, {
    type: 'email',
    config: { address: 'a@b.example', smtp_host: 'smtp.b.example', smtp_port: '465', smtp_user: 'mailer', smtp_password: 'pw' },
  });

  const asAgent = await app.request('GET', '/api/v1/channels/', { token: agent.token });
  t.is(asAgent.status, 200);
  const byType = Object.fromEntries(asAgent.body.map((c: any) => [c.type, c.config]));
  t.deepEqual(byType.whatsapp, { phone_number_id: 'PN-mask', access_token: '********', verify_token: '********', app_secret: '********' });
  t.deepEqual(byType.email, { address: 'a@b.example', smtp_host: 'smtp.b.example', smtp_port: '465', smtp_user: 'mailer', smtp_password: '********' });
  t.false(asAgent.text.includes('EAAG-mask'));

  const asAdmin = await app.request('GET', '/api/v1/channels/', { token: admin.token });
  t.is(asAdmin.body.find((c: any) => c.type === 'whatsapp').config.access_token, 'EAAG-mask');

  const post = await app.request('POST', '/api/v1/channels/', { token: agent.token, body: telegram() });
  const patch = await app.request('PATCH', `/api/v1/channels/${wa.id}`, { token: agent.token, body: { is_active: false } });
  const del = await app.request('DELETE', `/api/v1/channels/${wa.id}`, { token: agent.token });
  for (const res of [post, patch, del]) {
    t.is(res.status, 403);
    t.deepEqual(res.body, { detail: 'Only the owner or an admin can manage channels' });
  }
  t.true((await app.request('GET', '/api/v1/channels/', { token: ws.token })).body.find((c: any) => c.id === wa.id).is_active);

  const byAdmin = await app.request('POST', '/api/v1/channels/', { token: admin.token, body: telegram('77:ADMIN') });
  t.is(byAdmin.status, 200, byAdmin.text);
  t.is(byAdmin.body.config.bot_token, '77:ADMIN');
});

test('patch merges config, re-enqueues registration on a config change, and returns the Channel', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const wa = await createChannel(ws, { type: 'whatsapp', config: { phone_number_id: 'PN-patch', access_token: 'old', app_secret: 'secret' } });
  await app.sql(`update channels set status = 'connected', state = '{"webhook_secret":"s","offset":41}' where id = $1`, [wa.id]);
  await app.sql(`delete from graphile_worker._private_jobs where key = $1`, [`register:${wa.id}`]);

  // Only is_active: no new job, status kept.
  const off = await app.request('PATCH', `/api/v1/channels/${wa.id}`, { token: ws.token, body: { is_active: false } });
  t.is(off.status, 200, off.text);
  t.like(off.body, { is_active: false, status: 'connected' });
  t.deepEqual(await registerJobs(wa.id), []);

  const res = await app.request('PATCH', `/api/v1/channels/${wa.id}`, {
    token: ws.token,
    body: { config: { access_token: 'new-access-token-value', app_secret: null } },
  });
  t.is(res.status, 200, res.text);
  t.like(res.body, { id: wa.id, type: 'whatsapp', is_active: false, status: 'pending', last_error: null });
  t.deepEqual(res.body.config, {
    phone_number_id: 'PN-patch',
    access_token: 'new-access-token-value',
    verify_token: wa.config.verify_token,
    _meta_setup_instructions: { callback_url: 'https://parley.example.com/api/v1/webhooks/whatsapp', verify_token: wa.config.verify_token },
  });
  t.deepEqual(await registerJobs(wa.id), [{ task_identifier: 'register_channel', key: `register:${wa.id}` }]);
  const row = (await app.sql(`select state, config_encrypted from channels where id = $1`, [wa.id]))[0];
  t.deepEqual(row.state, { webhook_secret: 's' }, "connector state is reset with the credentials, the channel's own webhook secret kept");
  t.false(row.config_encrypted.includes('new-access-token-value'));

  // Re-activation enqueues registration again.
  await app.sql(`delete from graphile_worker._private_jobs where key = $1`, [`register:${wa.id}`]);
  const on = await app.request('PATCH', `/api/v1/channels/${wa.id}`, { token: ws.token, body: { is_active: true } });
  t.like(on.body, { is_active: true, status: 'pending' });
  t.is((await registerJobs(wa.id)).length, 1);

  // Removing a required field is 400 naming it; nothing changes.
  const bad = await app.request('PATCH', `/api/v1/channels/${wa.id}`, { token: ws.token, body: { config: { access_token: null } } });
  t.deepEqual([bad.status, bad.body], [400, { detail: 'Missing required config fields: access_token' }]);
});

test('patch without a config change keeps what registration learned (X routing key, state)', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const x = await createChannel(ws, { type: 'x', config: { api_key: 'k', api_secret: 's', access_token: 'a', access_token_secret: 'as', bearer_token: 'b' } });
  await app.sql(`update channels set routing_key = '4242', status = 'connected', state = '{"user_id":"4242"}' where id = $1`, [x.id]);
  const off = await app.request('PATCH', `/api/v1/channels/${x.id}`, { token: ws.token, body: { is_active: false, config: { api_key: 'k' } } });
  t.is(off.status, 200, off.text);
  const row = (await app.sql(`select routing_key, state, status from channels where id = $1`, [x.id]))[0];
  t.deepEqual(row, { routing_key: '4242', state: { user_id: '4242' }, status: 'connected' });
  // A new type forgets everything the old account had.
  const sms = await app.request('PATCH', `/api/v1/channels/${x.id}`, {
    token: ws.token,
    body: { type: 'sms', config: { account_sid: 'AC2', auth_token: 't', from_number: '+2' } },
  });
  t.is(sms.status, 200, sms.text);
  const after = (await app.sql(`select routing_key, state, status from channels where id = $1`, [x.id]))[0];
  t.deepEqual(after, { routing_key: '+2', state: {}, status: 'pending' }, "the new account's key (the number), not the X user id");
});

test('patch to another type starts from an empty config and follows the plan rules', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const tg = await createChannel(ws, telegram('31:TG'));
  const missing = await app.request('PATCH', `/api/v1/channels/${tg.id}`, { token: ws.token, body: { type: 'sms' } });
  t.deepEqual([missing.status, missing.body], [400, { detail: 'Missing required config fields: account_sid, auth_token, from_number' }]);
  const invalid = await app.request('PATCH', `/api/v1/channels/${tg.id}`, { token: ws.token, body: { type: 'pigeon' } });
  t.deepEqual([invalid.status, invalid.body], [400, { detail: 'Invalid channel type' }]);
  const sms = await app.request('PATCH', `/api/v1/channels/${tg.id}`, {
    token: ws.token,
    body: { type: 'sms', config: { account_sid: 'AC9', auth_token: 't', from_number: '+1555' } },
  });
  t.is(sms.status, 200, sms.text);
  t.deepEqual(sms.body.config, { account_sid: 'AC9', auth_token: 't', from_number: '+1555' });

  // A Free business's widget channel cannot become a platform channel.
  const free = await createWorkspace(app);
  await app.request('POST', '/api/v1/widget/create', { token: free.token, body: { domain: 'patch.example' } });
  const widgetChannel = (await app.request('GET', '/api/v1/channels/', { token: free.token })).body.find((c: any) => c.type === 'widget');
  const locked = await app.request('PATCH', `/api/v1/channels/${widgetChannel.id}`, { token: free.token, body: telegram() });
  t.is(locked.status, 402);
  t.like(locked.body, { error: 'feature_locked', feature: 'integrations' });
  const still = (await app.sql(`select type from channels where id = $1`, [widgetChannel.id]))[0];
  t.is(still.type, 'widget');
});

test('patch: the built-in webchat keeps its type and stays active, but its name may change', async (t) => {
  const ws = await createWorkspace(app);
  const builtin = (await app.request('GET', '/api/v1/channels/', { token: ws.token })).body[0];
  const retype = await app.request('PATCH', `/api/v1/channels/${builtin.id}`, { token: ws.token, body: telegram() });
  t.is(retype.status, 400);
  const off = await app.request('PATCH', `/api/v1/channels/${builtin.id}`, { token: ws.token, body: { is_active: false } });
  t.is(off.status, 400);
  const named = await app.request('PATCH', `/api/v1/channels/${builtin.id}`, { token: ws.token, body: { config: { name: 'Website chat' } } });
  t.is(named.status, 200, named.text);
  t.like(named.body, { type: 'webchat', is_builtin: true, status: 'connected', config: { name: 'Website chat' } });
});

test("patch and delete: unknown or another business's channel is 404, a malformed id 422", async (t) => {
  const a = await createWorkspace(app, { plan: 'Mini' });
  const b = await createWorkspace(app, { plan: 'Mini' });
  const theirs = await createChannel(b, telegram('9:B'));
  for (const id of [theirs.id, '00000000-0000-4000-8000-000000000000']) {
    const patch = await app.request('PATCH', `/api/v1/channels/${id}`, { token: a.token, body: { is_active: false } });
    t.deepEqual([patch.status, patch.body], [404, { detail: 'Channel not found' }]);
    const del = await app.request('DELETE', `/api/v1/channels/${id}`, { token: a.token });
    t.deepEqual([del.status, del.body], [404, { detail: 'Channel not found' }]);
  }
  t.true((await app.sql(`select is_active from channels where id = $1`, [theirs.id]))[0].is_active);
  const listA = await app.request('GET', '/api/v1/channels/', { token: a.token });
  t.false(listA.body.some((c: any) => c.id === theirs.id));

  const malformed = await app.request('PATCH', '/api/v1/channels/123', { token: a.token, body: {} });
  t.is(malformed.status, 422);
  t.deepEqual(malformed.body.detail[0].loc, ['path', 'channel_id']);
  t.is(malformed.body.detail[0].type, 'uuid_parsing');
  t.is((await app.request('DELETE', '/api/v1/channels/123', { token: a.token })).status, 422);
  t.is((await app.request('PATCH', `/api/v1/channels/${theirs.id}`, { body: {} })).status, 401);
  t.is((await app.request('DELETE', `/api/v1/channels/${theirs.id}`)).status, 401);
  t.is((await app.request('POST', '/api/v1/channels/', { body: telegram() })).status, 401);
});

test('delete keeps conversations (channel_id becomes null); the built-in webchat cannot be deleted', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const tg = await createChannel(ws, telegram('33:DEL'));
  const conv = (
    await app.sql(`insert into conversations (business_id, channel_id, channel_type) values ($1, $2, 'telegram') returning id`, [ws.businessId, tg.id])
  )[0];
  const res = await app.request('DELETE', `/api/v1/channels/${tg.id}`, { token: ws.token });
  t.is(res.status, 200, res.text);
  t.is(typeof res.body.message, 'string');
  t.deepEqual(await app.sql(`select channel_id, channel_type from conversations where id = $1`, [conv.id]), [{ channel_id: null, channel_type: 'telegram' }]);
  t.is((await app.sql(`select count(*)::int as n from channels where id = $1`, [tg.id]))[0].n, 0);
  t.is((await app.request('DELETE', `/api/v1/channels/${tg.id}`, { token: ws.token })).status, 404);

  const builtin = (await app.request('GET', '/api/v1/channels/', { token: ws.token })).body.find((c: any) => c.is_builtin);
  const refused = await app.request('DELETE', `/api/v1/channels/${builtin.id}`, { token: ws.token });
  t.deepEqual([refused.status, refused.body], [400, { detail: 'The built-in webchat channel cannot be deleted' }]);
});

test('a config that cannot be decrypted shows as an error, never a 500', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Mini' });
  const tg = await createChannel(ws, telegram('35:CORRUPT'));
  await app.sql(`update channels set config_encrypted = 'v1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.AAAA' where id = $1`, [tg.id]);
  const list = await app.request('GET', '/api/v1/channels/', { token: ws.token });
  t.is(list.status, 200);
  t.like(
    list.body.find((c: any) => c.id === tg.id),
    { config: {}, status: 'error' },
  );
  // Entering the credentials again repairs it.
  const fixed = await app.request('PATCH', `/api/v1/channels/${tg.id}`, { token: ws.token, body: { config: { bot_token: '36:NEW' } } });
  t.is(fixed.status, 200, fixed.text);
  t.like(fixed.body, { config: { bot_token: '36:NEW' }, status: 'pending' });
});

test('the OpenAPI document describes the channel routes', async (t) => {
  const doc = await app.request('GET', '/api/v1/openapi.json');
  t.truthy(doc.body.paths['/api/v1/channels'].get);
  t.truthy(doc.body.paths['/api/v1/channels'].post.responses['402']);
  t.truthy(doc.body.paths['/api/v1/channels/{channel_id}'].patch);
  t.truthy(doc.body.paths['/api/v1/channels/{channel_id}'].delete);
});
