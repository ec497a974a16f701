/**
 * Settings that members read update live (issue 38, item 6: labels and teams): an agent's open label menu
 * says "No labels yet."; the owner creates a label; the agent's menu offers it without a reload
 * (the `settings_changed` event, published after the commit). At 1280 and 390 px, axe-clean.
 */
import test from 'ava';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, visitorWrites, type Account, type Workspace } from './helpers/fixtures.ts';
import { accessibilityViolations, appPage, artifactDir, browserTest, DESKTOP, hasChromium, launchChromium, noteIfSkipped, PHONE } from './helpers/browser.ts';

noteIfSkipped('app-browser-live-labels');

let app: TestApp;
let browser: Browser;
let owner: Workspace;
let agent: Account;
let conversationId = '';
const shots = artifactDir('first-day');

test.before(async () => {
  app = await startTestApp();
  owner = await createWorkspace(app, { name: 'Lia Owner' });
  agent = await addMember(app, owner.businessId, 'agent', { name: 'Ari Agent' });
  const widget = await app.request('POST', '/api/v1/widget/create', { token: owner.token, body: { domain: 'shop.example.com' } });
  conversationId = (await visitorWrites(app, widget.body.id, 'Vic Visitor', 'Hello?')).conversationId;
  if (hasChromium) browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

test.serial('creating, renaming or deleting a label publishes settings_changed to the business', async (t) => {
  const before = app.events.length;
  const created = await app.request('POST', '/api/v1/labels', { token: owner.token, body: { name: 'Shipping', color: '#3b82f6' } });
  t.is(created.status, 200, created.text);
  await app.request('PATCH', `/api/v1/labels/${created.body.id}`, { token: owner.token, body: { name: 'Delivery' } });
  await app.request('DELETE', `/api/v1/labels/${created.body.id}`, { token: owner.token });
  const events = app.events.slice(before).filter((e) => e.name === 'settings_changed');
  t.is(events.length, 3);
  for (const e of events) {
    t.deepEqual(e.rooms, [`business:${owner.businessId}`]);
    t.like(e.payload, { business_id: owner.businessId, setting: 'labels' });
  }
});

test.serial('creating, renaming, deleting a team or setting its members publishes settings_changed (teams)', async (t) => {
  const before = app.events.length;
  const created = await app.request('POST', '/api/v1/teams', { token: owner.token, body: { name: 'Billing' } });
  t.is(created.status, 200, created.text);
  t.is((await app.request('PATCH', `/api/v1/teams/${created.body.id}`, { token: owner.token, body: { name: 'Payments' } })).status, 200);
  const [membership] = await app.sql('select id from team_members where user_id = $1', [agent.userId]);
  const members = await app.request('PUT', `/api/v1/teams/${created.body.id}/members`, { token: owner.token, body: { member_ids: [membership.id] } });
  t.is(members.status, 200, members.text);
  t.is((await app.request('DELETE', `/api/v1/teams/${created.body.id}`, { token: owner.token })).status, 200);
  const events = app.events.slice(before).filter((e) => e.name === 'settings_changed');
  t.deepEqual(
    events.map((e) => (e.payload as { setting: string }).setting),
    ['teams', 'teams', 'teams', 'teams'],
  );
  // A refused change publishes nothing.
  const after = app.events.length;
  t.is((await app.request('POST', '/api/v1/teams', { token: agent.token, body: { name: 'Nope' } })).status, 403);
  t.is(app.events.slice(after).filter((e) => e.name === 'settings_changed').length, 0);
});

for (const [viewport, label, name] of [
  [DESKTOP, 'desktop', 'Refund'],
  [PHONE, 'phone', 'Warranty'],
] as const) {
  browserTest(`an agent's open label menu offers the label the owner just made, without a reload (${label})`, async (t) => {
    const { page, context, errors } = await appPage(browser, app.url, agent.token, viewport);
    await page.goto(`${app.url}/app/inbox/${conversationId}`);
    await page.getByRole('button', { name: '+ Label' }).click();
    const menu = page.getByRole('group', { name: 'Labels of this conversation' });
    await menu.waitFor();
    const made = await app.request('POST', '/api/v1/labels', { token: owner.token, body: { name, color: '#e5484d' } });
    t.is(made.status, 200, made.text);
    await menu.getByRole('checkbox', { name }).waitFor({ timeout: 10_000 });
    await page.screenshot({ path: path.join(shots, `live-labels-${label}.png`) });
    t.deepEqual(await accessibilityViolations(page), []);
    t.deepEqual(errors, []);
    await context.close();
  });
}
