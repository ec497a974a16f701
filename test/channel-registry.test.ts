/**
 * The connector registry is the one list of channel types: the database's check on
 * `channels.type` names the same set, the API's enums and `GET /api/v1/channel-types` list it,
 * and every type can be created with just the required fields its connector declares.
 */
import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { channelTypes, connectors } from '../connectors/index.ts';
import type { ConfigField } from '../connectors/types.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp({ env: { PUBLIC_URL: 'https://parley.example.com' } });
});
test.after.always(() => app?.close());

test("the SQL check on channels.type allows exactly the registry's types", async (t) => {
  const [row] = await app.sql(`
    select pg_get_constraintdef(c.oid) as definition from pg_constraint c
    where c.conrelid = 'channels'::regclass and c.contype = 'c' and pg_get_constraintdef(c.oid) like '%type%'`);
  t.truthy(row, 'channels has a check on type');
  const allowed = [...(row.definition as string).matchAll(/'([^']+)'::text/g)].map((m) => m[1]);
  t.deepEqual([...allowed].sort(), [...channelTypes].sort());
});

test('the registry names each type once, and every webhook and base-URL setting is its own', (t) => {
  t.is(new Set(channelTypes).size, channelTypes.length);
  const envs = connectors.flatMap((c) => (c.baseUrl ? [c.baseUrl.env] : []));
  t.is(new Set(envs).size, envs.length);
  for (const connector of connectors) {
    t.is(connector.internal === true, connector.webhook === undefined, `${connector.type}: a platform connector has a webhook, an internal one none`);
    t.is(new Set(connector.config.map((f) => f.key)).size, connector.config.length, `${connector.type}: config keys are unique`);
    const required = connector.config.map((f) => f.required);
    t.deepEqual(
      required,
      [...required].sort((a, b) => Number(b) - Number(a)),
      `${connector.type}: required fields come first (the 400 names them in order)`,
    );
  }
});

/** A value its rule accepts. */
function sample(field: ConfigField, type: string): string {
  if (field.rule === 'port') return '587';
  if (field.rule === 'email') return `help-${type}@shop.example`;
  if (field.rule === 'twilio_sid') return 'AC0123456789';
  // A Telegram-like token shape keeps every text field acceptable as a routing key too.
  return `1${type.length}:${field.key}-${type}`;
}

async function widgetOf(ws: Workspace): Promise<string> {
  const widget = await app.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: 'shop.example.com' } });
  if (widget.status !== 200) throw new Error(`widget create failed: ${widget.status} ${widget.text}`);
  // Creating a widget creates its channel: remove it, so the widget is free for the one created here.
  const channels = await app.request('GET', '/api/v1/channels', { token: ws.token });
  const own = channels.body.find((c: { is_builtin: boolean; id: string }) => !c.is_builtin);
  if (own) await app.request('DELETE', `/api/v1/channels/${own.id}`, { token: ws.token });
  return widget.body.id;
}

for (const connector of connectors) {
  test(`${connector.type}: created with the required fields its connector declares; missing them is 400`, async (t) => {
    const ws = await createWorkspace(app, { plan: 'Pro' });
    const config: Record<string, string> = {};
    for (const field of connector.config.filter((f) => f.required)) config[field.key] = field.widget ? await widgetOf(ws) : sample(field, connector.type);
    const created = await app.request('POST', '/api/v1/channels', { token: ws.token, body: { type: connector.type, config } });
    t.is(created.status, 200, created.text);
    t.is(created.body.type, connector.type);
    t.is(created.body.status, connector.internal ? 'connected' : 'pending');
    // An agent sees exactly the connector's secret fields masked.
    const agent = await addMember(app, ws.businessId, 'agent');
    const listed = (await app.request('GET', '/api/v1/channels', { token: agent.token })).body.find((c: { id: string }) => c.id === created.body.id);
    for (const field of connector.config.filter((f) => created.body.config[f.key] !== undefined)) {
      t.is(listed.config[field.key] === '********', field.secret === true, `${field.key} masked for agents exactly when secret`);
    }

    const required = connector.config.filter((f) => f.required).map((f) => f.key);
    if (required.length === 0) return;
    const bare = await app.request('POST', '/api/v1/channels', { token: ws.token, body: { type: connector.type, config: {} } });
    t.deepEqual([bare.status, bare.body], [400, { detail: `Missing required config fields: ${required.join(', ')}` }]);
  });
}

test('GET /api/v1/channel-types: every type with its label, setup text, fields and webhook mode', async (t) => {
  const anon = await app.request('GET', '/api/v1/channel-types');
  t.is(anon.status, 401);
  const ws = await createWorkspace(app);
  const res = await app.request('GET', '/api/v1/channel-types', { token: ws.token });
  t.is(res.status, 200, res.text);
  t.deepEqual(
    res.body.items.map((i: { type: string }) => i.type),
    [...channelTypes],
  );
  const telegram = res.body.items.find((i: { type: string }) => i.type === 'telegram');
  t.like(telegram, { label: 'Telegram', internal: false, webhook: 'channel' });
  t.deepEqual(telegram.fields, [{ key: 'bot_token', label: 'Bot token', required: true, secret: true, placeholder: '123456:ABC-DEF…', input: 'text' }]);
  t.true(telegram.steps.length > 0);
  const whatsapp = res.body.items.find((i: { type: string }) => i.type === 'whatsapp');
  t.is(whatsapp.webhook, 'shared');
  t.like(
    whatsapp.fields.find((f: { key: string }) => f.key === 'verify_token'),
    { required: false, secret: true, placeholder: 'Generated when empty' },
  );
  const email = res.body.items.find((i: { type: string }) => i.type === 'email');
  t.deepEqual(
    email.fields.filter((f: { input: string }) => f.input !== 'text').map((f: { key: string; input: string }) => [f.key, f.input]),
    [
      ['address', 'email'],
      ['smtp_port', 'number'],
      ['imap_port', 'number'],
      // The signature appended to replies takes several lines.
      ['signature', 'textarea'],
    ],
  );
  t.like(
    res.body.items.find((i: { type: string }) => i.type === 'widget'),
    { internal: true, webhook: 'none' },
  );
});

test('channel types name only real places: title_field is a config key, after_connect values are fields of a Channel', async (t) => {
  const ws = await createWorkspace(app);
  const res = await app.request('GET', '/api/v1/channel-types', { token: ws.token });
  const spec = (await app.request('GET', '/api/v1/openapi.json')).body;
  const channelFields = Object.keys(spec.components.schemas.Channel.properties);
  for (const item of res.body.items as {
    type: string;
    icon: { color: string; path: string };
    title_field: string | null;
    after_connect: { values: { source: string }[] } | null;
    fields: { key: string }[];
  }[]) {
    t.regex(item.icon.color, /^#[0-9A-F]{6}$/i, `${item.type}: icon colour`);
    t.regex(item.icon.path, /^M[\d\s.,MLHVCSQTAZmlhvcsqtaz-]+$/, `${item.type}: icon path`);
    if (item.title_field)
      t.true(
        item.fields.some((f) => f.key === item.title_field),
        `${item.type}: title_field ${item.title_field} is a config key`,
      );
    for (const { source } of item.after_connect?.values ?? []) {
      const [head, key] = source.split('.');
      t.true(channelFields.includes(head), `${item.type}: ${source} is on the Channel object`);
      if (head === 'config')
        t.true(
          item.fields.some((f) => f.key === key),
          `${item.type}: ${source} is a config key`,
        );
    }
  }
  // A WhatsApp channel's owner finds both setup values on the channel as soon as it exists.
  const pro = await createWorkspace(app, { plan: 'Pro' });
  const created = await app.request('POST', '/api/v1/channels', {
    token: pro.token,
    body: { type: 'whatsapp', config: { phone_number_id: '5550001', access_token: 'token' } },
  });
  t.is(created.status, 200, created.text);
  const channel = (await app.request('GET', '/api/v1/channels', { token: pro.token })).body.find((c: { id: string }) => c.id === created.body.id);
  const whatsapp = res.body.items.find((i: { type: string }) => i.type === 'whatsapp');
  t.deepEqual(
    whatsapp.after_connect.values.map((v: { source: string }) =>
      v.source.split('.').reduce((o: Record<string, unknown>, k: string) => o?.[k] as Record<string, unknown>, channel),
    ),
    ['https://parley.example.com/api/v1/webhooks/whatsapp', channel.config.verify_token],
  );
  t.regex(channel.config.verify_token, /^[\w-]{20,}$/);
});
