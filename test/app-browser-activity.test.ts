/**
 * The conversation's activity history in the agent app (issue "Events drive the desk" item 4):
 * who assigned, labelled, snoozed, resolved and reopened it shows as quiet lines among the
 * messages, in time order, and a change made by a teammate appears without a reload. Desktop
 * and phone, axe clean. Screenshots go to test-artifacts/activity/.
 */
import test from 'ava';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { accessibilityViolations, appPage, artifactDir, browserTest, hasChromium, launchChromium, noteIfSkipped, PHONE } from './helpers/browser.ts';

noteIfSkipped('app-browser-activity');

let app: TestApp;
let browser: Browser;
let owner: Workspace;
const shots = artifactDir('activity');

test.before(async () => {
  if (!hasChromium) return;
  app = await startTestApp();
  owner = await createWorkspace(app, { name: 'Olive Owner', plan: 'Pro' });
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(shots, `${name}.png`) });

browserTest('activity lines among the messages, live, on a desktop and a phone', async (t) => {
  const ben = await addMember(app, owner.businessId, 'agent', { name: 'Ben Agent', status: 'live' });
  const [customer] = await app.sql(`insert into customers (business_id, name) values ($1, 'Casey Customer') returning id`, [owner.businessId]);
  const created = await app.request('POST', '/api/v1/conversations', {
    token: owner.token,
    body: { business_id: owner.businessId, customer_id: customer.id, initial_message: 'Your parcel is on its way.' },
  });
  t.is(created.status, 200, created.text);
  const id = created.body.id;
  await app.request('POST', '/api/v1/labels', { token: owner.token, body: { name: 'shipping' } });
  t.is((await app.request('POST', `/api/v1/team/assign/${id}`, { token: owner.token, query: { agent_id: ben.userId } })).status, 200);
  t.is((await app.request('PUT', `/api/v1/conversations/${id}/labels`, { token: owner.token, body: { labels: ['shipping'] } })).status, 200);

  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  await page.goto(`${app.url}/app/inbox/${id}?status=any`);
  const log = page.getByRole('log', { name: 'Messages' });
  await log.getByText('Olive Owner assigned this to Ben Agent').waitFor();
  await log.getByText('Olive Owner added shipping').waitFor();
  const lines = await log.locator('.activity-line, .msg').allInnerTexts();
  t.true(lines[0]!.includes('Your parcel is on its way.'), 'the message first, then what happened after it');
  // A teammate resolves it: the line arrives live.
  t.is((await app.request('PUT', `/api/v1/conversations/${id}/resolve`, { token: ben.token })).status, 200);
  await log.getByText('Ben Agent resolved this').waitFor();
  t.deepEqual(await accessibilityViolations(page), []);
  await shoot(page, 'desktop');
  await context.close();

  const phone = await appPage(browser, app.url, owner.token, PHONE);
  await phone.page.goto(`${app.url}/app/inbox/${id}?status=any`);
  await phone.page.getByRole('log', { name: 'Messages' }).getByText('Ben Agent resolved this').waitFor();
  t.deepEqual(await accessibilityViolations(phone.page), []);
  await shoot(phone.page, 'phone');
  await phone.context.close();
  t.deepEqual([...errors, ...phone.errors], []);
});
