/**
 * Identity verification of website visitors (issue #20 item 3): the widget's secret (owner/admin,
 * rotate), an identified visitor signed with HMAC-SHA256 is the same customer on every device
 * with the same conversations, a wrong hash is 401 and changes nothing, the anonymous visitor of
 * the browser is merged in, attributes are checked against the definitions.
 */
import test from 'ava';
import { createHmac } from 'node:crypto';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, type Workspace } from './helpers/fixtures.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

const origin = { origin: 'https://shop.example' };
/** What the business's server computes (the snippet in docs/features.md). */
const sign = (secret: string, identifier: string) => createHmac('sha256', secret).update(identifier).digest('hex');

async function widgetOf(ws: Workspace): Promise<{ id: string; secret: string }> {
  const widget = await app.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: 'shop.example' } });
  if (widget.status !== 200) throw new Error(widget.text);
  const secret = await app.request('GET', `/api/v1/widget/${widget.body.id}/identity-secret`, { token: ws.token });
  return { id: widget.body.id, secret: secret.body.secret };
}

const session = (body: object) => app.request('POST', '/api/v1/visitor/sessions', { body, headers: origin });
const say = (token: string, content: string) => app.request('POST', '/api/v1/visitor/messages', { token, body: { content }, headers: origin });
const history = (token: string) => app.request('GET', '/api/v1/visitor/messages', { token, headers: origin });

test('the identity secret: made with the widget, shown to owner and admin only, rotated (old hashes refused), audited', async (t) => {
  const ws = await createWorkspace(app);
  const widget = await widgetOf(ws);
  t.regex(widget.secret, /^[0-9a-f]{64}$/);
  const admin = await addMember(app, ws.businessId, 'admin');
  const agent = await addMember(app, ws.businessId, 'agent');
  t.is((await app.request('GET', `/api/v1/widget/${widget.id}/identity-secret`, { token: admin.token })).body.secret, widget.secret);
  const refused = await app.request('GET', `/api/v1/widget/${widget.id}/identity-secret`, { token: agent.token });
  t.is(refused.status, 403);
  t.is((await app.request('POST', `/api/v1/widget/${widget.id}/identity-secret/rotate`, { token: agent.token })).status, 403);
  const row = await app.sql(`select identity_secret_encrypted from widgets where id = $1`, [widget.id]);
  t.false(row[0].identity_secret_encrypted.includes(widget.secret), 'stored encrypted');

  const identity = { external_id: 'user-1', user_hash: sign(widget.secret, 'user-1') };
  t.is((await session({ widget_id: widget.id, identity })).status, 200);
  const rotated = await app.request('POST', `/api/v1/widget/${widget.id}/identity-secret/rotate`, { token: admin.token });
  t.is(rotated.status, 200);
  t.not(rotated.body.secret, widget.secret);
  t.is((await session({ widget_id: widget.id, identity })).status, 401, 'the old secret no longer signs');
  t.is((await session({ widget_id: widget.id, identity: { external_id: 'user-1', user_hash: sign(rotated.body.secret, 'user-1') } })).status, 200);
  const [audit] = await app.sql(`select actor_user_id, target_id from audit_log where business_id = $1 and action = 'widget.identity_secret_rotated'`, [
    ws.businessId,
  ]);
  t.deepEqual(audit, { actor_user_id: admin.userId, target_id: widget.id });

  const other = await createWorkspace(app);
  t.is((await app.request('GET', `/api/v1/widget/${widget.id}/identity-secret`, { token: other.token })).status, 404);
  t.is((await app.request('POST', `/api/v1/widget/${widget.id}/identity-secret/rotate`, { token: other.token })).status, 404);
});

test('two devices with the same verified identity are the same customer and see the same conversations', async (t) => {
  const ws = await createWorkspace(app);
  const widget = await widgetOf(ws);
  const identity = { external_id: 'cust-42', email: 'Kim@Example.com', name: 'Kim', user_hash: sign(widget.secret, 'cust-42') };
  const laptop = await session({ widget_id: widget.id, identity });
  t.is(laptop.status, 200, laptop.text);
  t.false(laptop.body.resumed);
  const sent = await say(laptop.body.visitor_token, 'Hello from my laptop');
  t.is(sent.status, 200, sent.text);

  // Another device: no token of its own, the same identity.
  const phone = await session({ widget_id: widget.id, identity });
  t.is(phone.status, 200);
  t.true(phone.body.resumed);
  t.is(phone.body.visitor_id, laptop.body.visitor_id);
  t.is(phone.body.conversation_id, sent.body.conversation_id);
  t.deepEqual(
    (await history(phone.body.visitor_token)).body.map((m: any) => m.content),
    ['Hello from my laptop'],
  );
  await say(phone.body.visitor_token, 'And now from my phone');
  t.deepEqual(
    (await history(laptop.body.visitor_token)).body.map((m: any) => m.content),
    ['Hello from my laptop', 'And now from my phone'],
  );

  const customers = await app.sql(`select name, email, external_id from customers where business_id = $1`, [ws.businessId]);
  t.deepEqual(customers, [{ name: 'Kim', email: 'kim@example.com', external_id: 'cust-42' }]);
  const conversations = await app.sql(`select count(*)::int as n from conversations where business_id = $1`, [ws.businessId]);
  t.is(conversations[0].n, 1);

  // By e-mail when there is no external id (the hash is over the e-mail as sent).
  const byEmail = { email: 'lee@example.com', user_hash: sign(widget.secret, 'lee@example.com') };
  const a = await session({ widget_id: widget.id, identity: byEmail });
  const b = await session({ widget_id: widget.id, identity: byEmail });
  t.is(a.status, 200, a.text);
  t.is(b.body.visitor_id, a.body.visitor_id);
  t.not(a.body.visitor_id, laptop.body.visitor_id);
});

test('a wrong hash is 401 in the spec shape and changes nothing; malformed identities are 422; a widget without a secret refuses', async (t) => {
  const ws = await createWorkspace(app);
  const widget = await widgetOf(ws);
  const anon = await session({ widget_id: widget.id, name: 'Anon' });
  await say(anon.body.visitor_token, 'before signing in');
  const before = await app.sql(`select id, name, email, platform_user_id, merged_into from customers where business_id = $1 order by number`, [ws.businessId]);
  const wrong = [
    { external_id: 'user-1', user_hash: sign(widget.secret, 'user-2') },
    { external_id: 'user-1', user_hash: sign('not the secret', 'user-1') },
    { external_id: 'user-1', email: 'x@example.com', user_hash: sign(widget.secret, 'x@example.com') },
    { external_id: 'user-1', user_hash: 'nothex' },
  ];
  for (const identity of wrong) {
    const res = await session({ widget_id: widget.id, visitor_token: anon.body.visitor_token, identity: { ...identity, name: 'Mallory' } });
    t.is(res.status, 401, JSON.stringify(identity));
    t.deepEqual(res.body, { detail: 'Identity verification failed: user_hash is not the HMAC of this visitor' });
  }
  t.deepEqual(
    await app.sql(`select id, name, email, platform_user_id, merged_into from customers where business_id = $1 order by number`, [ws.businessId]),
    before,
  );

  const missing = await session({ widget_id: widget.id, identity: { name: 'No id', user_hash: 'ab' } });
  t.is(missing.status, 422);
  t.deepEqual(missing.body.detail[0].loc, ['body', 'identity', 'external_id']);
  t.is((await session({ widget_id: widget.id, identity: { external_id: 'x' } })).status, 422, 'no hash');

  await app.sql(`update widgets set identity_secret_encrypted = null where id = $1`, [widget.id]);
  const unset = await session({ widget_id: widget.id, identity: { external_id: 'user-1', user_hash: sign(widget.secret, 'user-1') } });
  t.is(unset.status, 401);
  t.regex(unset.body.detail, /not set up/);
});

test("identifying merges the browser's anonymous visitor (its conversation comes along), never another identified visitor", async (t) => {
  const ws = await createWorkspace(app);
  const widget = await widgetOf(ws);
  const anon = await session({ widget_id: widget.id });
  const first = await say(anon.body.visitor_token, 'asked before signing in');
  const identity = { external_id: 'u-7', name: 'Uma', user_hash: sign(widget.secret, 'u-7') };
  const signedIn = await session({ widget_id: widget.id, visitor_token: anon.body.visitor_token, identity });
  t.is(signedIn.status, 200, signedIn.text);
  t.is(signedIn.body.conversation_id, first.body.conversation_id);
  t.deepEqual(
    (await history(signedIn.body.visitor_token)).body.map((m: any) => m.content),
    ['asked before signing in'],
  );
  t.is((await history(anon.body.visitor_token)).status, 200, 'the old token still reaches the same customer');
  const [merge] = await app.sql(`select actor_type, actor_name from audit_log where business_id = $1 and action = 'customer.merged'`, [ws.businessId]);
  t.deepEqual(merge, { actor_type: 'system', actor_name: 'Website widget (identity verification)' });

  // Someone else signs in on the same browser: Uma's history stays hers.
  const other = { external_id: 'u-8', user_hash: sign(widget.secret, 'u-8') };
  const second = await session({ widget_id: widget.id, visitor_token: signedIn.body.visitor_token, identity: other });
  t.is(second.status, 200);
  t.is(second.body.conversation_id, null);
  t.deepEqual((await history(second.body.visitor_token)).body, []);
  t.is((await app.sql(`select count(*)::int as n from customers where business_id = $1 and merged_into is null`, [ws.businessId]))[0].n, 2);
});

test("identified visitors' attributes are checked against the definitions and fill the record; a member's edit of the name is kept", async (t) => {
  const ws = await createWorkspace(app);
  const widget = await widgetOf(ws);
  await app.request('PUT', '/api/v1/settings/customer-attributes', {
    token: ws.token,
    body: { attributes: [{ key: 'plan', label: 'Plan', type: 'list', options: ['free', 'pro'] }] },
  });
  const hash = sign(widget.secret, 'p-1');
  const bad = await session({ widget_id: widget.id, identity: { external_id: 'p-1', user_hash: hash, attributes: { plan: 'gold' } } });
  t.is(bad.status, 422);
  t.deepEqual(bad.body.detail[0].loc, ['body', 'identity', 'attributes', 'plan']);
  t.is((await app.sql(`select count(*)::int as n from customers where business_id = $1`, [ws.businessId]))[0].n, 0);
  const ok = await session({ widget_id: widget.id, identity: { external_id: 'p-1', name: 'Pat', user_hash: hash, attributes: { plan: 'pro' } } });
  t.is(ok.status, 200, ok.text);
  const [row] = await app.sql(`select number, name, attributes from customers where business_id = $1`, [ws.businessId]);
  t.deepEqual(row.attributes, { plan: 'pro' });
  await app.request('PATCH', `/api/v1/customers/${row.number}`, { token: ws.token, body: { name: 'Patricia (VIP)' } });
  await session({ widget_id: widget.id, identity: { external_id: 'p-1', name: 'Pat', user_hash: hash, attributes: { plan: 'free' } } });
  const [after] = await app.sql(`select name, attributes from customers where business_id = $1`, [ws.businessId]);
  t.deepEqual(after, { name: 'Patricia (VIP)', attributes: { plan: 'free' } });
});
