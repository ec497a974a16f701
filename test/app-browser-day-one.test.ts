/**
 * The agent app's day-one path in a real browser against the real server, database and
 * worker: a new user signs up, creates the workspace, creates a widget in settings and copies
 * its snippet; a visitor on a shop page of another origin writes through that widget; the
 * message appears live in the app; the agent answers from the app, the visitor sees it; the
 * agent resolves. Screenshots of each screen (desktop and phone) go to test-artifacts/app/.
 */
import test from 'ava';
import path from 'node:path';
import type { SupervisedRunner as Runner } from '../workers/supervisor.ts';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { startTestWorker, waitFor } from './helpers/worker.ts';
import {
  accessibleName,
  artifactDir,
  browserTest,
  DESKTOP,
  hasChromium,
  launchChromium,
  noteIfSkipped,
  PHONE,
  startShop,
  type Shop,
} from './helpers/browser.ts';

noteIfSkipped('app-browser-day-one');

let app: TestApp;
let worker: Runner;
let browser: Browser;
let shop: Shop | undefined;
let shopUrl = '';
/** What the shop's owner pasted into the page: the snippet copied from the app. */
let snippet = '';
const shots = artifactDir('app');

test.before(async () => {
  if (!hasChromium) return;
  app = await startTestApp();
  worker = await startTestWorker(app, { only: ['deliver_message', 'process_inbound'] });
  shop = await startShop(
    () => `<!doctype html><html><head><meta charset="utf-8"><title>Acme shop</title></head><body><h1>Acme shop</h1>${snippet}</body></html>`,
  );
  shopUrl = shop.url;
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await shop?.close();
  await worker?.stop();
  await app?.close();
});

const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(shots, `${name}.png`) });

browserTest('sign up, set up the widget, answer a visitor live, resolve', async (t) => {
  const context = await browser.newContext({ viewport: DESKTOP });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));

  // `/` is the app; signed out it asks to sign in, and offers to create an account.
  await page.goto(`${app.url}/`);
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  t.is(new URL(page.url()).pathname, '/app/signin');
  await shoot(page, 'signin-desktop');
  await page.getByRole('link', { name: 'Create an account' }).click();
  await page.getByLabel('Full name').fill('Dana Fields');
  await page.getByLabel('Email').fill('dana@acme.test');
  await page.getByLabel('Password').fill('correct horse');
  await shoot(page, 'signup-desktop');
  await page.getByRole('button', { name: 'Create account' }).click();

  await page.getByLabel('Workspace name').fill('Acme Support');
  await shoot(page, 'onboarding-desktop');
  await page.getByRole('button', { name: 'Create workspace' }).click();
  await page.getByText('No conversations waiting').waitFor();
  await shoot(page, 'inbox-empty-desktop');
  const [me] = await app.sql(
    `select u.id, b.name from users u join team_members m on m.user_id = u.id join businesses b on b.id = m.business_id where u.email = 'dana@acme.test'`,
  );
  t.is(me.name, 'Acme Support');

  // The reload keeps the session.
  await page.reload();
  await page.getByText('No conversations waiting').waitFor();

  // Settings → widget: create it for the shop's host and copy the snippet.
  await page.getByRole('link', { name: 'Add the chat widget to your site' }).click();
  await page.getByLabel('Website domain').fill('127.0.0.1');
  await page.getByLabel('Welcome heading').fill('Hello from Acme');
  await page.getByRole('figure', { name: 'Widget preview' }).getByText('Hello from Acme').waitFor();
  await shoot(page, 'widget-form-desktop');
  await page.getByRole('button', { name: 'Create widget' }).click();
  await page.getByRole('button', { name: 'Copy embed snippet' }).click();
  snippet = await page.evaluate(() => (globalThis as any).navigator.clipboard.readText() as Promise<string>);
  const [widget] = await app.sql(`select id from widgets where domain = '127.0.0.1'`);
  t.is(snippet, `<script src="${app.url}/widget.js" data-widget-id="${widget.id}" async></script>`);
  await shoot(page, 'day-one-widget-desktop');

  // Available, so the widget says so; then the inbox, waiting.
  await page.getByLabel('Your availability').selectOption('live');
  await page.getByRole('link', { name: 'Inbox', exact: true }).click();
  await page.getByText('No conversations waiting').waitFor();

  // A visitor on the shop (another origin) writes through the widget.
  const visitorContext = await browser.newContext({ viewport: { width: 1000, height: 760 } });
  const shopPage = await visitorContext.newPage();
  await shopPage.goto(shopUrl);
  await shopPage.locator('#parley-widget .bubble').click();
  await shopPage.locator('#parley-widget .heading', { hasText: 'Hello from Acme' }).waitFor();
  await shopPage.locator('#parley-widget .input').fill('Hi! Where is my parcel?');
  await shopPage.locator('#parley-widget .input').press('Enter');

  // It appears in the app without a reload, marked unread.
  const list = page.getByRole('list', { name: 'Conversations' });
  const row = list.getByRole('link', { name: /Hi! Where is my parcel\?/ });
  await row.waitFor();
  t.regex(await accessibleName(row), /\(unread\)/);
  await shoot(page, 'inbox-new-desktop');
  await row.click();
  const log = page.getByRole('log', { name: 'Messages' });
  await log.getByText('Hi! Where is my parcel?').waitFor();

  // The agent answers from the app (Enter sends); the visitor sees it live.
  await page.getByRole('textbox', { name: 'Reply' }).fill('It left our warehouse this morning.');
  await page.getByRole('textbox', { name: 'Reply' }).press('Enter');
  await shopPage.locator('#parley-widget .msg.agent', { hasText: 'It left our warehouse this morning.' }).waitFor();
  await log.locator('[data-status="sent"]').waitFor();
  await shoot(page, 'conversation-desktop');

  // Resolve: the conversation leaves the waiting list and can be reopened.
  await page.getByRole('button', { name: 'Resolve' }).click();
  await page.getByRole('button', { name: 'Reopen' }).waitFor();
  const [conversation] = await app.sql(`select status from conversations where channel_type = 'widget'`);
  t.is(conversation.status, 'resolved');
  await waitFor(async () => (await list.count()) === 0, 10_000, 'the resolved conversation to leave the list of waiting ones');

  // The same screens on a phone: one pane at a time, with a way back.
  await page.setViewportSize(PHONE);
  await page.goto(`${app.url}/app/inbox?status=resolved`);
  await shoot(page, 'inbox-phone');
  await page.getByRole('list', { name: 'Conversations' }).getByRole('link').first().click();
  await page.getByRole('log', { name: 'Messages' }).getByText('It left our warehouse').waitFor();
  await shoot(page, 'conversation-phone');
  await page.getByRole('link', { name: 'Back to conversations' }).click();
  await page.getByRole('list', { name: 'Conversations' }).waitFor();
  await page.goto(`${app.url}/app/settings/widget`);
  await page.getByRole('button', { name: 'Copy embed snippet' }).waitFor();
  await shoot(page, 'day-one-widget-phone');

  t.log(`screenshots in ${shots}`);
  t.deepEqual(errors, []);
  await visitorContext.close();
  await context.close();
});
