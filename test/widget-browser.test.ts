/**
 * The website widget in a real browser: a shop page on its own origin embeds /widget.js, a
 * visitor writes in, the agent inbox sees it over REST, the agent's reply shows in the widget
 * live, and after a reload the visitor still has the conversation.
 *
 * Needs Debian's chromium at /usr/bin/chromium (`apt-get install -y chromium`), driven by
 * playwright-core (which never downloads a browser of its own). Without it the test is
 * skipped, said so in the output.
 */
import test from 'ava';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SupervisedRunner as Runner } from '../workers/supervisor.ts';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { startTestWorker, waitFor } from './helpers/worker.ts';
import { accessibilityViolations, accessibleName, browserTest, hasChromium, launchChromium, noteIfSkipped, startShop, type Shop } from './helpers/browser.ts';

noteIfSkipped('widget-browser');

let app: TestApp;
let worker: Runner;
let browser: Browser;
let shop: Shop | undefined;
let shopUrl = '';
const screenshots = mkdtempSync(path.join(os.tmpdir(), 'parley-widget-'));

let owner: Workspace;
let widgetId = '';

test.before(async () => {
  if (!hasChromium) return;
  app = await startTestApp();
  worker = await startTestWorker(app, { only: ['deliver_message', 'process_inbound'] });
  owner = await createWorkspace(app, { name: 'Alice Agent' });
  await app.request('PATCH', '/api/v1/team/status', { token: owner.token, body: { status: 'live' } });
  const widget = await app.request('POST', '/api/v1/widget/create', {
    token: owner.token,
    body: {
      domain: 'shop.example.com',
      primary_color: '#0E7C66',
      welcome_heading: 'Hello from Acme',
      welcome_tagline: 'Questions about your order? Ask away.',
    },
  });
  if (widget.status !== 200) throw new Error(`create widget failed: ${widget.status} ${widget.text}`);
  widgetId = widget.body.id;

  // The shop: another origin than the API, as on a customer's website (`?widget=` embeds another widget).
  const page = (
    id: string,
  ) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Acme shop</title></head>
<body style="font-family: sans-serif; background: #f3f4f6; margin: 40px">
<main><h1>Acme shop</h1><p>Fine goods since 1890.</p></main>
<script src="${app.url}/widget.js" data-widget-id="${id}" async></script>
</body></html>`;
  shop = await startShop((url) => {
    const other = url.searchParams.get('widget');
    return page(other && /^[0-9a-f-]{36}$/.test(other) ? other : widgetId);
  });
  shopUrl = shop.url;

  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await shop?.close();
  await worker?.stop();
  await app?.close();
});

async function widgetConversation(): Promise<any> {
  return waitFor(
    async () => {
      const inbox = await app.request('GET', '/api/v1/conversations/', { token: owner.token, query: { channel_type: 'widget' } });
      return inbox.body.length === 1 && inbox.body[0].last_message ? inbox.body[0] : null;
    },
    20_000,
    'the widget conversation in the inbox',
  );
}

const backgroundOf = (page: Page, selector: string) =>
  page.locator(selector).evaluate((node) => (globalThis as any).getComputedStyle(node).backgroundColor as string);

browserTest('a visitor writes in from a shop page, the agent answers over REST, the widget shows the reply live', async (t) => {
  const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(shopUrl);

  // The bubble in the widget's colour; the panel with the widget's texts and the online badge.
  const bubble = page.locator('#parley-widget .bubble');
  await bubble.waitFor();
  t.is(await backgroundOf(page, '#parley-widget .bubble'), 'rgb(14, 124, 102)');
  await bubble.click();
  await page.locator('#parley-widget .panel').waitFor();
  t.is(await page.locator('#parley-widget .heading').textContent(), 'Hello from Acme');
  t.is(await page.locator('#parley-widget .tagline').textContent(), 'Questions about your order? Ask away.');
  t.is(await page.locator('#parley-widget .status').textContent(), "We're online");

  // The visitor writes; the message is stored and the inbox has a widget conversation.
  await page.locator('#parley-widget .input').fill('Hi! Where is my parcel?');
  await page.locator('#parley-widget .input').press('Enter');
  await page.locator('#parley-widget .msg.customer[data-id]').waitFor();
  const conversation = await widgetConversation();
  t.like(conversation, { channel_type: 'widget', status: 'open', last_message: { sender_type: 'customer', content: 'Hi! Where is my parcel?' } });

  // The agent answers over REST; the widget shows it without a reload.
  const reply = await app.request('POST', `/api/v1/conversations/${conversation.id}/messages`, {
    token: owner.token,
    body: { content: 'It left our warehouse this morning.' },
  });
  t.is(reply.status, 200, reply.text);
  const shown = page.locator('#parley-widget .msg.agent', { hasText: 'It left our warehouse this morning.' });
  await shown.waitFor();
  t.is(await shown.getAttribute('data-id'), reply.body.id);
  await page.screenshot({ path: path.join(screenshots, 'widget-open.png') });
  // It sits on a business's own website: WCAG 2.2 AA, open and closed (docs/decisions.md#accessibility).
  t.deepEqual(await accessibilityViolations(page), [], 'the open widget');

  // A reload keeps the visitor: the conversation is shown again and replies still arrive.
  await page.reload();
  await page.locator('#parley-widget .bubble').click();
  await page.locator('#parley-widget .msg.agent', { hasText: 'It left our warehouse' }).waitFor();
  t.deepEqual(await page.locator('#parley-widget .msg').allTextContents(), ['Hi! Where is my parcel?', 'It left our warehouse this morning.']);
  const later = await app.request('POST', `/api/v1/conversations/${conversation.id}/messages`, { token: owner.token, body: { content: 'Anything else?' } });
  t.is(later.status, 200);
  await page.locator('#parley-widget .msg.agent', { hasText: 'Anything else?' }).waitFor();
  const customers = await app.request('GET', '/api/v1/customers', { token: owner.token });
  t.is(customers.body.length, 1, 'the reload resumed the same visitor');

  // Closed, an answer raises the unread badge on the bubble.
  await page.locator('#parley-widget .close').click();
  await app.request('POST', `/api/v1/conversations/${conversation.id}/messages`, { token: owner.token, body: { content: 'We are here if you need us.' } });
  await page.locator('#parley-widget .unread', { hasText: '1' }).waitFor();
  await page.screenshot({ path: path.join(screenshots, 'widget-closed.png') });
  t.deepEqual(await accessibilityViolations(page), [], 'the closed widget with its unread badge');
  t.is(await accessibleName(page.locator('#parley-widget .bubble')), 'Open chat, 1 new message', 'the badge is said, not only shown');
  t.log(`screenshots in ${screenshots}`);
  t.deepEqual(pageErrors, []);
  await context.close();
});

browserTest('on a phone the open panel fills the screen', async (t) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 760 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  await page.goto(shopUrl);
  await page.locator('#parley-widget .bubble').tap();
  const panel = page.locator('#parley-widget .panel');
  await panel.waitFor();
  t.deepEqual(await panel.boundingBox(), { x: 0, y: 0, width: 390, height: 760 });
  t.false(await page.locator('#parley-widget .bubble').isVisible(), 'the bubble does not cover the composer');
  await page.screenshot({ path: path.join(screenshots, 'widget-phone.png') });
  t.deepEqual(await accessibilityViolations(page), [], 'the open widget on a phone');
  await page.locator('#parley-widget .close').tap();
  await panel.waitFor({ state: 'hidden' });
  t.true(await page.locator('#parley-widget .bubble').isVisible(), 'closing brings the bubble back');
  await context.close();
});

browserTest('a visitor attaches a screenshot: it shows in the widget as a picture and reaches the agent as an attachment', async (t) => {
  const team = await createWorkspace(app, { name: 'Fiona Files' });
  const created = await app.request('POST', '/api/v1/widget/create', { token: team.token, body: { domain: '127.0.0.1' } });
  t.is(created.status, 200, created.text);
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwAFCwJ/lxjv3QAAAABJRU5ErkJggg==', 'base64');
  for (const [name, viewport] of [
    ['desktop', { width: 1100, height: 760 }],
    ['phone', { width: 390, height: 760 }],
  ] as const) {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${shopUrl}?widget=${created.body.id}`);
    await page.locator('#parley-widget .bubble').click();
    const chooser = page.waitForEvent('filechooser');
    await page.locator('#parley-widget .attach').click();
    await (await chooser).setFiles({ name: `broken-${name}.png`, mimeType: 'image/png', buffer: png });
    const picture = page.locator('#parley-widget .msg.customer[data-id] img.picture');
    await picture.waitFor();
    await page.waitForFunction(
      () => ((globalThis as any).document.querySelector('#parley-widget').shadowRoot.querySelector('img.picture')?.naturalWidth ?? 0) > 0,
    );
    await page.screenshot({ path: path.join(screenshots, `widget-attachment-${name}.png`) });
    t.deepEqual(pageErrors, []);
    await context.close();
  }
  const conversations = await waitFor(
    async () => {
      const list = await app.request('GET', '/api/v1/conversations/', { token: team.token });
      return list.body.length === 2 ? list.body : null;
    },
    20_000,
    "two visitors' conversations",
  );
  const thread = await app.request('GET', `/api/v1/conversations/${conversations[0].id}/messages`, { token: team.token });
  t.like(thread.body.at(-1).attachments[0], { content_type: 'image/png', size: png.length });
  t.regex(thread.body.at(-1).attachments[0].filename, /^broken-(desktop|phone)\.png$/);
});

browserTest("a visitor's quick messages reach the agent in the order written, even when the first one's request is slow", async (t) => {
  const team = await createWorkspace(app, { name: 'Quincy Quick' });
  const created = await app.request('POST', '/api/v1/widget/create', { token: team.token, body: { domain: '127.0.0.1' } });
  const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
  const page = await context.newPage();
  // The first message's request is held in the browser until released; the second is not.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const posted: string[] = [];
  await page.route('**/api/v1/visitor/messages', async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    posted.push(JSON.parse(route.request().postData() ?? '{}').content);
    if (posted.length === 1) await released;
    return route.continue();
  });
  await page.goto(`${shopUrl}?widget=${created.body.id}`);
  await page.locator('#parley-widget .bubble').click();
  const input = page.locator('#parley-widget .input');
  await input.fill('Hi!');
  await input.press('Enter');
  await input.fill('My parcel arrived broken.');
  await input.press('Enter');
  await page.locator('#parley-widget .msg', { hasText: 'My parcel arrived broken.' }).waitFor();
  // Once the first is on its way (after the session starts), let it through: had the second not
  // waited for it, it would be stored first.
  await waitFor(async () => posted.length > 0, 10_000, "the first message's request");
  release();
  const stored = await waitFor(
    async () => {
      const rows = await app.sql(`select content from messages where business_id = $1 and sender_type = 'customer' order by created_at, id`, [team.businessId]);
      return rows.length === 2 ? rows.map((r) => r.content) : null;
    },
    10_000,
    "both of the visitor's messages stored",
  );
  t.deepEqual(stored, ['Hi!', 'My parcel arrived broken.']);
  await context.close();
});
