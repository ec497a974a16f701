import test from 'ava';
import { startTestApp, type TestApp, type TestResponse } from './helpers/app.ts';
import { addMember, createWorkspace, registerUser, type Workspace } from './helpers/fixtures.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

const counts = async (businessId: string) =>
  (
    await app.sql(
      `select (select count(*)::int from widgets where business_id = $1) as widgets,
              (select count(*)::int from channels where business_id = $1 and type = 'widget') as widget_channels`,
      [businessId],
    )
  )[0];

async function createWidget(ws: Workspace, body: Record<string, unknown>) {
  const res = await app.request('POST', '/api/v1/widget/create', { token: ws.token, body });
  if (res.status !== 200) throw new Error(`create widget failed: ${res.status} ${res.text}`);
  return res.body;
}

const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

test('create applies the defaults, normalizes the domain and creates the widget channel', async (t) => {
  const ws = await createWorkspace(app);
  const res = await app.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: '  Shop.Example.COM ' } });
  t.is(res.status, 200, res.text);
  const { id, created_at, updated_at, ...rest } = res.body;
  t.regex(id, /^[0-9a-f-]{36}$/);
  t.regex(created_at, iso);
  t.regex(updated_at, iso);
  t.deepEqual(rest, {
    business_id: ws.businessId,
    name: 'Chat Widget',
    domain: 'shop.example.com',
    welcome_heading: 'Hi there!',
    welcome_tagline: 'We make it simple to connect with us. Ask us anything, or share your feedback.',
    primary_color: '#7650FF',
    show_online_badge: true,
    logo_url: null,
    config: {},
  });
  const channels = await app.request('GET', '/api/v1/channels/', { token: ws.token });
  const widgetChannels = channels.body.filter((c: any) => c.type === 'widget');
  t.is(widgetChannels.length, 1);
  t.like(widgetChannels[0], { config: { widget_id: id }, status: 'connected', is_active: true });
  const row = (await app.sql(`select routing_key from channels where id = $1`, [widgetChannels[0].id]))[0];
  t.is(row.routing_key, id);
  const jobs = await app.sql(`select 1 from graphile_worker.jobs where key = $1`, [`register:${widgetChannels[0].id}`]);
  t.is(jobs.length, 0, 'a widget channel has no platform to register with');
});

test('create takes every optional field', async (t) => {
  const ws = await createWorkspace(app);
  const body = {
    domain: 'full.example',
    name: 'Support',
    welcome_heading: 'Hello',
    welcome_tagline: 'Ask away',
    primary_color: '#abc',
    show_online_badge: false,
    logo_url: 'https://cdn.example/logo.png',
    config: { position: 'left', launcher: { size: 56 } },
  };
  const widget = await createWidget(ws, body);
  t.like(widget, body);
});

test('one widget per domain per business (400); other businesses may use the domain', async (t) => {
  const ws = await createWorkspace(app);
  await createWidget(ws, { domain: 'dup.example' });
  const again = await app.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: ' DUP.example' } });
  t.is(again.status, 400);
  t.deepEqual(again.body, { detail: 'A widget for this domain already exists' });
  t.deepEqual(await counts(ws.businessId), { widgets: 1, widget_channels: 1 });
  const other = await createWorkspace(app);
  t.is((await app.request('POST', '/api/v1/widget/create', { token: other.token, body: { domain: 'dup.example' } })).status, 200);
});

test('create: 401 without token, 400 without a business, 403 for admin and agent', async (t) => {
  t.is((await app.request('POST', '/api/v1/widget/create', { body: { domain: 'x.example' } })).status, 401);
  const loner = await registerUser(app);
  const none = await app.request('POST', '/api/v1/widget/create', { token: loner.token, body: { domain: 'x.example' } });
  t.deepEqual([none.status, none.body], [400, { detail: 'Organization not found' }]);
  const ws = await createWorkspace(app, { plan: 'Pro' });
  for (const role of ['admin', 'agent'] as const) {
    const member = await addMember(app, ws.businessId, role);
    const res = await app.request('POST', '/api/v1/widget/create', { token: member.token, body: { domain: `${role}.example` } });
    t.is(res.status, 403, role);
    t.deepEqual(res.body, { detail: 'Only the business owner can manage widgets' });
  }
  t.deepEqual(await counts(ws.businessId), { widgets: 0, widget_channels: 0 });
});

test('create: 422 for a bad color, a non-http logo, a missing or empty domain', async (t) => {
  const ws = await createWorkspace(app);
  const cases: [Record<string, unknown>, string, string][] = [
    [{ domain: 'a.example', primary_color: 'purple' }, 'body.primary_color', 'value_error'],
    [{ domain: 'a.example', primary_color: '#12345' }, 'body.primary_color', 'value_error'],
    [{ domain: 'a.example', logo_url: 'ftp://cdn.example/logo.png' }, 'body.logo_url', 'value_error'],
    [{ domain: 'a.example', logo_url: 'javascript:alert(1)' }, 'body.logo_url', 'value_error'],
    [{ domain: 'a.example', show_online_badge: 'yes' }, 'body.show_online_badge', 'bool_type'],
    [{}, 'body.domain', 'missing'],
    [{ domain: '   ' }, 'body.domain', 'string_too_short'],
  ];
  for (const [body, loc, type] of cases) {
    const res = await app.request('POST', '/api/v1/widget/create', { token: ws.token, body });
    t.is(res.status, 422, JSON.stringify(body));
    t.deepEqual(
      res.body.detail.map((d: any) => [d.loc.join('.'), d.type]),
      [[loc, type]],
      JSON.stringify(body),
    );
  }
  t.deepEqual(await counts(ws.businessId), { widgets: 0, widget_channels: 0 });
});

test('create counts the widget channel against the plan: Free allows 3, the 4th is 402 and leaves nothing behind', async (t) => {
  const ws = await createWorkspace(app);
  for (let i = 1; i <= 3; i++) await createWidget(ws, { domain: `site${i}.example` });
  const res = await app.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: 'site4.example' } });
  t.is(res.status, 402);
  t.like(res.body, { error: 'limit_exceeded', plan: 'Free', feature: 'channels', current: 3, limit: 3 });
  t.deepEqual(await counts(ws.businessId), { widgets: 3, widget_channels: 3 });
});

test('update: omitted fields keep their value, logo_url null removes the logo, config is replaced', async (t) => {
  const ws = await createWorkspace(app);
  const widget = await createWidget(ws, { domain: 'upd.example', logo_url: 'http://cdn.example/a.png', config: { a: 1 } });
  const res = await app.request('PUT', `/api/v1/widget/update/${widget.id}`, { token: ws.token, body: { name: 'Renamed', primary_color: '#000000' } });
  t.is(res.status, 200, res.text);
  t.like(res.body, { ...widget, name: 'Renamed', primary_color: '#000000', updated_at: res.body.updated_at });
  t.true(res.body.updated_at >= widget.updated_at);

  const cleared = await app.request('PUT', `/api/v1/widget/update/${widget.id}`, {
    token: ws.token,
    body: { logo_url: null, config: { b: true }, domain: ' NEW.example ' },
  });
  t.is(cleared.status, 200, cleared.text);
  t.like(cleared.body, { logo_url: null, config: { b: true }, domain: 'new.example', name: 'Renamed' });
  t.deepEqual(cleared.body.config, { b: true });

  const empty = await app.request('PUT', `/api/v1/widget/update/${widget.id}`, { token: ws.token, body: {} });
  t.is(empty.status, 200);
  t.like(empty.body, { domain: 'new.example', name: 'Renamed' });
});

test('update: a domain taken by another widget of the business is 400; keeping its own domain is fine', async (t) => {
  const ws = await createWorkspace(app);
  const a = await createWidget(ws, { domain: 'one.example' });
  await createWidget(ws, { domain: 'two.example' });
  const res = await app.request('PUT', `/api/v1/widget/update/${a.id}`, { token: ws.token, body: { domain: 'Two.example' } });
  t.deepEqual([res.status, res.body], [400, { detail: 'A widget for this domain already exists' }]);
  const same = await app.request('PUT', `/api/v1/widget/update/${a.id}`, { token: ws.token, body: { domain: 'one.example', name: 'x' } });
  t.is(same.status, 200, same.text);
});

test("update: 401, 400 without business, 403 non-owner, 404 unknown or another business's widget, 422 bad id or body", async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const other = await createWorkspace(app);
  const widget = await createWidget(ws, { domain: 'guard.example' });
  const theirs = await createWidget(other, { domain: 'theirs.example' });
  const path = `/api/v1/widget/update/${widget.id}`;

  t.is((await app.request('PUT', path, { body: { name: 'x' } })).status, 401);
  const loner = await registerUser(app);
  t.deepEqual((await app.request('PUT', path, { token: loner.token, body: { name: 'x' } })).body, { detail: 'Organization not found' });
  const admin = await addMember(app, ws.businessId, 'admin');
  const forbidden = await app.request('PUT', path, { token: admin.token, body: { name: 'x' } });
  t.is(forbidden.status, 403);

  for (const id of [theirs.id, '00000000-0000-4000-8000-000000000000']) {
    const res = await app.request('PUT', `/api/v1/widget/update/${id}`, { token: ws.token, body: { name: 'Hijack' } });
    t.deepEqual([res.status, res.body], [404, { detail: 'Widget not found' }]);
  }
  t.is((await app.sql(`select name from widgets where id = $1`, [theirs.id]))[0].name, 'Chat Widget');

  const badId = await app.request('PUT', '/api/v1/widget/update/nope', { token: ws.token, body: {} });
  t.is(badId.status, 422);
  t.deepEqual(badId.body.detail[0].loc, ['path', 'widget_id']);
  const badBody = await app.request('PUT', path, { token: ws.token, body: { primary_color: 'red', name: '' } });
  t.is(badBody.status, 422);
  t.deepEqual(badBody.body.detail.map((d: any) => d.loc.join('.')).sort(), ['body.name', 'body.primary_color']);
});

// ---------- GET /widget/ (the business's widgets)

test('list: every widget of the business, oldest first, as create and update return them, with and without the trailing slash', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const m = await createWidget(ws, { domain: 'm.example', name: 'Middle' });
  const z = await createWidget(ws, { domain: 'z.example', primary_color: '#123456' });
  const a = await createWidget(ws, { domain: 'a.example', config: { position: 'left' } });
  // Creation times that are neither creation nor id nor domain order: z, then m, then a.
  await app.sql(`update widgets set created_at = now() - interval '1 hour' where id = $1`, [z.id]);
  const zNow = (await app.request('GET', `/api/v1/widget/${z.id}`)).body;
  // A later change does not move a widget.
  const renamed = await app.request('PUT', `/api/v1/widget/update/${m.id}`, { token: ws.token, body: { name: 'Renamed' } });
  t.is(renamed.status, 200, renamed.text);
  const { is_online: _, business_hours: _hours, ...zWidget } = zNow;
  for (const path of ['/api/v1/widget/', '/api/v1/widget']) {
    const res = await app.request('GET', path, { token: ws.token });
    t.is(res.status, 200, `${path}: ${res.text}`);
    t.deepEqual(res.body, [zWidget, renamed.body, a], path);
  }
});

test("list: another business's widgets are not listed; a business without widgets gets []", async (t) => {
  const ws = await createWorkspace(app);
  const mine = await createWidget(ws, { domain: 'mine.example' });
  const other = await createWorkspace(app);
  await createWidget(other, { domain: 'theirs.example' });
  await createWidget(other, { domain: 'mine.example' });
  const res = await app.request('GET', '/api/v1/widget/', { token: ws.token });
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body, [mine]);
  const empty = await createWorkspace(app);
  const none = await app.request('GET', '/api/v1/widget/', { token: empty.token });
  t.deepEqual([none.status, none.body], [200, []]);
});

test('list: owner, admin and agent may all read it', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const widgets = [await createWidget(ws, { domain: 'one.example' }), await createWidget(ws, { domain: 'two.example' })];
  const members = { owner: ws, admin: await addMember(app, ws.businessId, 'admin'), agent: await addMember(app, ws.businessId, 'agent') };
  for (const [role, member] of Object.entries(members)) {
    const res = await app.request('GET', '/api/v1/widget/', { token: member.token });
    t.is(res.status, 200, `${role}: ${res.text}`);
    t.deepEqual(res.body, widgets, role);
  }
});

test('list: 401 without a token, 400 for a caller without a business', async (t) => {
  for (const path of ['/api/v1/widget/', '/api/v1/widget']) {
    const anon = await app.request('GET', path);
    t.is(anon.status, 401, path);
    t.deepEqual(anon.body, { detail: 'Not authenticated' });
  }
  const loner = await registerUser(app);
  const none = await app.request('GET', '/api/v1/widget/', { token: loner.token });
  t.deepEqual([none.status, none.body], [400, { detail: 'Organization not found' }]);
});

test('public read: no token, is_online follows live members, CORS for any origin', async (t) => {
  const ws = await createWorkspace(app);
  const widget = await createWidget(ws, { domain: 'public.example' });
  const res = await app.request('GET', `/api/v1/widget/${widget.id}`, { headers: { origin: 'https://public.example' } });
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body, { ...widget, is_online: false, business_hours: { enabled: false, is_open: true, next_open_at: null, timezone: 'UTC' } });
  t.is(res.headers.get('access-control-allow-origin'), '*');

  await app.sql(`update team_members set status = 'live' where business_id = $1`, [ws.businessId]);
  t.true((await app.request('GET', `/api/v1/widget/${widget.id}`)).body.is_online);
  await app.sql(`update team_members set status = 'away' where business_id = $1`, [ws.businessId]);
  t.false((await app.request('GET', `/api/v1/widget/${widget.id}`)).body.is_online);

  const preflight = await app.request('OPTIONS', `/api/v1/widget/${widget.id}`, {
    headers: { origin: 'https://anywhere.example', 'access-control-request-method': 'GET' },
  });
  t.is(preflight.status, 204);
  t.is(preflight.headers.get('access-control-allow-origin'), '*');

  // The authenticated API does not open itself to arbitrary origins.
  const privateRoute = await app.request('GET', '/api/v1/channels/', { token: ws.token, headers: { origin: 'https://public.example' } });
  t.is(privateRoute.headers.get('access-control-allow-origin'), null);
});

test('public read: unknown and malformed ids are 404', async (t) => {
  for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
    for (const suffix of ['', '/channels']) {
      const res = await app.request('GET', `/api/v1/widget/${id}${suffix}`);
      t.deepEqual([res.status, res.body], [404, { detail: 'Widget not found' }], `${id}${suffix}`);
    }
  }
});

test('public channel list: active channels of the owning business, config always empty', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const widget = await createWidget(ws, { domain: 'list.example' });
  const tg = await app.request('POST', '/api/v1/channels/', { token: ws.token, body: { type: 'telegram', config: { bot_token: '42:VERY-SECRET' } } });
  const off = await app.request('POST', '/api/v1/channels/', {
    token: ws.token,
    body: { type: 'sms', config: { account_sid: 'AC1', auth_token: 'TWILIO-SECRET', from_number: '+1' }, is_active: false },
  });
  t.is(off.status, 200, off.text);
  const other = await createWorkspace(app);
  await createWidget(other, { domain: 'elsewhere.example' });

  const res = await app.request('GET', `/api/v1/widget/${widget.id}/channels`, { headers: { origin: 'https://list.example' } });
  t.is(res.status, 200, res.text);
  t.is(res.headers.get('access-control-allow-origin'), '*');
  t.deepEqual(res.body.map((c: any) => c.type).sort(), ['telegram', 'webchat', 'widget']);
  for (const c of res.body) {
    t.deepEqual(c.config, {});
    t.is(c.business_id, ws.businessId);
    t.deepEqual(Object.keys(c).sort(), ['business_id', 'config', 'created_at', 'id', 'is_active', 'type']);
  }
  t.true(res.body.some((c: any) => c.id === tg.body.id));
  t.false(res.text.includes('SECRET'));
});

test('the OpenAPI document describes the widget routes', async (t) => {
  const doc = await app.request('GET', '/api/v1/openapi.json');
  t.deepEqual(doc.body.paths['/api/v1/widget'].get.security, [{ bearerAuth: [] }, { apiKey: ['read'] }]);
  t.is(doc.body.paths['/api/v1/widget'].get.responses['200'].content['application/json'].schema.items.$ref, '#/components/schemas/Widget');
  t.truthy(doc.body.paths['/api/v1/widget/create'].post);
  t.truthy(doc.body.paths['/api/v1/widget/update/{widget_id}'].put);
  t.deepEqual(doc.body.paths['/api/v1/widget/{widget_id}'].get.security, []);
  t.truthy(doc.body.paths['/api/v1/widget/{widget_id}/channels'].get);
});

test('list: keyset pages of `limit` oldest first with X-Next-Cursor; a bad cursor or limit is 422', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const made = [];
  for (let i = 0; i < 5; i++) made.push((await createWidget(ws, { domain: `page${i}.example` })).id);
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res: TestResponse = await app.request('GET', '/api/v1/widget', { token: ws.token, query: { limit: 2, ...(cursor ? { cursor } : {}) } });
    t.is(res.status, 200, res.text);
    t.true(res.body.length <= 2);
    seen.push(...res.body.map((w: any) => w.id));
    cursor = res.headers.get('x-next-cursor');
    pages += 1;
  } while (cursor);
  t.deepEqual(seen, made);
  t.is(pages, 3);
  for (const query of [
    { cursor: 'garbage' },
    { limit: 0 },
    { limit: 201 },
    { cursor: Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000000Z', '12'])).toString('base64url') },
  ]) {
    const res = await app.request('GET', '/api/v1/widget', { token: ws.token, query: query as Record<string, string | number | undefined> });
    t.is(res.status, 422, JSON.stringify(query));
  }
});

test('a business has at most 20 widgets (400, nothing written); config is at most 16 KB as JSON (422)', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  for (let i = 0; i < 20; i++) await createWidget(ws, { domain: `site${i}.example` });
  const refused = await app.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: 'one-more.example' } });
  t.deepEqual([refused.status, refused.body], [400, { detail: 'A business may have at most 20 widgets' }]);
  t.deepEqual(await counts(ws.businessId), { widgets: 20, widget_channels: 20 });

  const other = await createWorkspace(app);
  const big = { blob: 'x'.repeat(16 * 1024) };
  const tooBig = await app.request('POST', '/api/v1/widget/create', { token: other.token, body: { domain: 'big.example', config: big } });
  t.is(tooBig.status, 422);
  t.deepEqual(
    tooBig.body.detail.map((d: any) => [d.loc.join('.'), d.type]),
    [['body.config', 'too_long']],
  );
  const fits = await createWidget(other, { domain: 'fits.example', config: { blob: 'x'.repeat(16 * 1024 - 20) } });
  const update = await app.request('PUT', `/api/v1/widget/update/${fits.id}`, { token: other.token, body: { config: big } });
  t.is(update.status, 422);
});
