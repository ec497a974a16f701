/**
 * Identity verification in widget.js, in a real browser: the shop's server signs its signed-in
 * user (HMAC-SHA256 with the widget's identity secret) onto the tag's data-user-* attributes;
 * on a second device (a fresh browser context) the same identity shows the same conversation.
 * A visitor who wrote anonymously and then signs in (Parley.identify) keeps that conversation;
 * Parley.logout forgets them on that browser. A wrong hash changes nothing.
 */
import test from 'ava';
import { createHmac } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { waitFor } from './helpers/worker.ts';
import { browserTest, hasChromium, launchChromium, noteIfSkipped, startShop, type Shop } from './helpers/browser.ts';

noteIfSkipped('widget-identity-browser');

let app: TestApp;
let browser: Browser;
let shop: Shop | undefined;
let shopUrl = '';
let owner: Workspace;
let widgetId = '';
let secret = '';

const sign = (id: string) => createHmac('sha256', secret).update(id).digest('hex');

test.before(async () => {
  if (!hasChromium) return;
  app = await startTestApp();
  owner = await createWorkspace(app, { name: 'Sam Shop' });
  const widget = await app.request('POST', '/api/v1/widget/create', { token: owner.token, body: { domain: 'shop.example.com' } });
  widgetId = widget.body.id;
  secret = (await app.request('GET', `/api/v1/widget/${widgetId}/identity-secret`, { token: owner.token })).body.secret;
  // The shop's server: `?user=<id>` is a signed-in user (signed here, as the docs' snippet does), `?user=<id>&forged=1` a forged hash.
  shop = await startShop((url) => {
    const user = url.searchParams.get('user');
    const hash = user ? (url.searchParams.get('forged') ? sign(`${user}-not`) : sign(user)) : '';
    const identity = user ? ` data-user-id="${user}" data-user-name="User ${user}" data-user-hash="${hash}"` : '';
    return `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title></head><body><h1>Shop</h1>
<script src="${app.url}/widget.js" data-widget-id="${widgetId}"${identity} async></script></body></html>`;
  });
  shopUrl = shop.url;
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await shop?.close();
  await app?.close();
});

/** A browser of its own (a device) on the shop page; `sessions`: the status of each visitor session the widget started. */
async function device(query: string): Promise<{ page: Page; close: () => Promise<void>; errors: string[]; sessions: number[] }> {
  const context = await browser.newContext({ viewport: { width: 1000, height: 740 } });
  const page = await context.newPage();
  const errors: string[] = [];
  const sessions: number[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('response', (r) => r.url().endsWith('/api/v1/visitor/sessions') && sessions.push(r.status()));
  await page.goto(`${shopUrl}${query}`);
  await page.locator('#parley-widget .bubble').click();
  await page.locator('#parley-widget .panel').waitFor();
  return { page, close: () => context.close(), errors, sessions };
}

const messages = (page: Page) => page.locator('#parley-widget .msg[data-id]').allTextContents();

browserTest('the same signed-in user on two devices sees one conversation', async (t) => {
  const laptop = await device('?user=u-100');
  await laptop.page.locator('#parley-widget .input').fill('Sent from my laptop');
  await laptop.page.locator('#parley-widget .input').press('Enter');
  await laptop.page.locator('#parley-widget .msg.customer[data-id]').waitFor();

  const phone = await device('?user=u-100');
  await phone.page.locator('#parley-widget .msg.customer[data-id]', { hasText: 'Sent from my laptop' }).waitFor();
  await phone.page.locator('#parley-widget .input').fill('And from my phone');
  await phone.page.locator('#parley-widget .input').press('Enter');
  await laptop.page.locator('#parley-widget .msg.customer[data-id]', { hasText: 'And from my phone' }).waitFor();
  t.deepEqual(await messages(laptop.page), ['Sent from my laptop', 'And from my phone']);
  const customers = await app.sql(`select name, external_id from customers where business_id = $1 and external_id = 'u-100'`, [owner.businessId]);
  t.deepEqual(customers, [{ name: 'User u-100', external_id: 'u-100' }]);

  // A forged hash: the widget starts no identified session, and nobody sees u-100's chat.
  const forged = await device('?user=u-100&forged=1');
  await waitFor(async () => (forged.sessions.length ? true : null), 10_000, 'the identified session refused');
  t.deepEqual(forged.sessions, [401]);
  t.deepEqual(await messages(forged.page), []);
  t.deepEqual(phone.sessions, [200]);
  t.deepEqual(laptop.errors, []);
  t.deepEqual(phone.errors, []);
  await Promise.all([laptop.close(), phone.close(), forged.close()]);
});

browserTest('an anonymous visitor who signs in keeps their conversation; logout forgets them on that browser', async (t) => {
  const visit = await device('');
  await visit.page.locator('#parley-widget .input').fill('A question before I sign in');
  await visit.page.locator('#parley-widget .input').press('Enter');
  await visit.page.locator('#parley-widget .msg.customer[data-id]').waitFor();
  await visit.page.evaluate(
    ([hash]) => (globalThis as any).Parley.identify({ external_id: 'u-200', email: 'ria@example.com', name: 'Ria', user_hash: hash }),
    [sign('u-200')],
  );
  await waitFor(
    async () => ((await app.sql(`select 1 from customers where business_id = $1 and external_id = 'u-200'`, [owner.businessId])).length ? true : null),
    10_000,
    'identified',
  );
  await visit.page.locator('#parley-widget .msg.customer[data-id]', { hasText: 'A question before I sign in' }).waitFor();

  // Another device of Ria's sees the question asked before she signed in.
  const other = await device('?user=u-200');
  await other.page.locator('#parley-widget .msg.customer[data-id]', { hasText: 'A question before I sign in' }).waitFor();

  // Signing out on the first browser: the chat goes from the page, and a reload does not bring it back.
  await visit.page.evaluate(() => (globalThis as any).Parley.logout());
  await visit.page.locator('#parley-widget .msg[data-id]').first().waitFor({ state: 'detached' });
  await visit.page.reload();
  await visit.page.locator('#parley-widget .bubble').click();
  await visit.page.locator('#parley-widget .panel').waitFor();
  t.deepEqual(await messages(visit.page), []);
  t.deepEqual(visit.errors, []);
  await Promise.all([visit.close(), other.close()]);
});
