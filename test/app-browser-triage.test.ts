/**
 * Snooze, priority, bulk actions, Send later and keyboard shortcuts in the agent app, in a real
 * browser (issue #22 item 5): the owner marks a conversation urgent and filters by it, snoozes
 * it from the menu and finds it in the Snoozed view, wakes it, schedules a reply and edits and
 * cancels it, ticks two conversations and acts on both, and drives the inbox from the keyboard
 * (`?` lists the shortcuts); then the same screens at phone width; an inbox left open keeps its
 * relative times current. Screenshots go to
 * test-artifacts/triage/.
 */
import test from 'ava';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import {
  hasFocus,
  accessibleName,
  appPage,
  artifactDir,
  browserTest,
  hasChromium,
  launchChromium,
  liveConnectionGate,
  noteIfSkipped,
  PHONE,
  accessibilityViolations,
} from './helpers/browser.ts';
import { waitFor } from './helpers/worker.ts';

noteIfSkipped('app-browser-triage');

let app: TestApp;
let browser: Browser;
let owner: Workspace;
const shots = artifactDir('triage');

test.before(async () => {
  if (!hasChromium) return;
  app = await startTestApp();
  owner = await createWorkspace(app, { name: 'Olive Owner' });
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(shots, `${name}.png`) });
const row = async (id: string) => (await app.sql(`select status, priority, assignee_id, snoozed_at, snoozed_until from conversations where id = $1`, [id]))[0];

async function conversationWith(name: string, text: string): Promise<string> {
  const [customer] = await app.sql(`insert into customers (business_id, name) values ($1, $2) returning id`, [owner.businessId, name]);
  const created = await app.request('POST', '/api/v1/conversations', {
    token: owner.token,
    body: { business_id: owner.businessId, customer_id: customer.id, initial_message: text },
  });
  if (created.status !== 200) throw new Error(`conversation: ${created.status} ${created.text}`);
  return created.body.id;
}

/** The page is not wider than its viewport (nothing to scroll sideways). */
const fitsWidth = (page: Page) => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth <= (globalThis as any).innerWidth);

browserTest('priority, snooze, Send later, bulk actions and shortcuts on a desktop', async (t) => {
  const casey = await conversationWith('Casey Customer', 'Your parcel is on its way.');
  const dana = await conversationWith('Dana Doe', 'We received your return.');
  const eli = await conversationWith('Eli Example', 'Thanks for the photos.');
  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  const list = page.getByRole('list', { name: 'Conversations' });
  await list.getByRole('link', { name: /Casey Customer/ }).waitFor();

  // Priority from the thread header: the row shows the mark, the filter finds it.
  await list.getByRole('link', { name: /Casey Customer/ }).click();
  const header = page.locator('.thread-header');
  await header.getByLabel('Priority').selectOption('urgent');
  await list.locator(`[data-id="${casey}"]`).getByRole('img', { name: 'Priority: Urgent' }).waitFor();
  t.is((await row(casey)).priority, 'urgent');
  await page.locator('.list-header').getByLabel('Priority').selectOption('urgent');
  await page.waitForURL(/priority=urgent/);
  await list.getByRole('link', { name: /Casey Customer/ }).waitFor();
  await list.getByRole('link', { name: /Dana Doe/ }).waitFor({ state: 'detached' });
  t.is(await list.getByRole('listitem').count(), 1);
  await shoot(page, 'priority-filter-desktop');
  await page.locator('.list-header').getByLabel('Priority').selectOption('');
  await list.getByRole('link', { name: /Dana Doe/ }).waitFor();

  // Snooze from the menu: it leaves the list and waits in the Snoozed view.
  await header.getByRole('button', { name: 'Snooze' }).click();
  const menu = page.getByRole('menu', { name: 'Snooze until' });
  for (const item of ['1 hour', 'Tomorrow 9:00', 'Next week', 'Until the customer replies'])
    await menu.getByRole('menuitem', { name: new RegExp(item) }).waitFor();
  await shoot(page, 'snooze-menu-desktop');
  t.deepEqual(await accessibilityViolations(page), [], 'the open snooze menu');
  // By keyboard, as a menu: the first item has the focus; arrows move (wrapping), Home and End jump;
  // Escape closes it with the focus back on the Snooze button.
  const focusedItem = () => page.evaluate(() => (globalThis as any).document.activeElement?.querySelector('span')?.textContent ?? null);
  await page.waitForFunction(() => (globalThis as any).document.activeElement?.getAttribute('role') === 'menuitem');
  t.is(await focusedItem(), '1 hour');
  await page.keyboard.press('ArrowDown');
  t.is(await focusedItem(), 'Tomorrow 9:00');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  t.is(await focusedItem(), 'Until the customer replies', 'Up from the first wraps to the last');
  await page.keyboard.press('Home');
  t.is(await focusedItem(), '1 hour');
  await page.keyboard.press('End');
  t.is(await focusedItem(), 'Until the customer replies');
  await page.keyboard.press('Escape');
  await menu.waitFor({ state: 'detached' });
  t.true(await hasFocus(header.getByRole('button', { name: 'Snooze' })), 'the focus is back on the Snooze button');
  await header.getByRole('button', { name: 'Snooze' }).click();
  await menu.getByRole('menuitem', { name: /Tomorrow 9:00/ }).click();
  await list.getByRole('link', { name: /Casey Customer/ }).waitFor({ state: 'detached' });
  const snoozed = await row(casey);
  t.truthy(snoozed.snoozed_at);
  const until: Date = snoozed.snoozed_until;
  t.is(until.getHours(), 9, "tomorrow at 9:00 in the browser's time zone");
  t.is(until.getMinutes(), 0);
  await header.getByText(/Snoozed until/).waitFor();
  await page.getByRole('tab', { name: 'Snoozed' }).click();
  await list.getByRole('link', { name: /Casey Customer/ }).waitFor();
  await list
    .locator(`[data-id="${casey}"]`)
    .getByText(/Snoozed until/)
    .waitFor();
  t.is(await list.getByRole('listitem').count(), 1);
  await shoot(page, 'snoozed-view-desktop');
  await header.getByRole('button', { name: 'Wake up' }).click();
  await list.getByRole('link', { name: /Casey Customer/ }).waitFor({ state: 'detached' });
  t.is((await row(casey)).snoozed_at, null);
  await page.getByRole('tab', { name: 'All' }).click();
  await list.getByRole('link', { name: /Casey Customer/ }).waitFor();

  // Send later: scheduled in the thread, edited, cancelled; another one left scheduled.
  const reply = page.getByRole('textbox', { name: 'Reply' });
  await reply.fill('We will check the tracking tomorrow morning.');
  await page.getByRole('button', { name: 'Send later' }).click();
  const later = page.getByRole('group', { name: 'Send later' });
  await later.getByRole('button', { name: 'Tomorrow 9:00' }).click();
  await shoot(page, 'send-later-desktop');
  await later.getByRole('button', { name: 'Schedule' }).click();
  const log = page.getByRole('log', { name: 'Messages' });
  const scheduled = log.locator('.msg.scheduled', { hasText: 'We will check the tracking tomorrow morning.' });
  await scheduled.getByText(/Scheduled for/).waitFor();
  const [stored] = await app.sql(`select id, delivery_status, send_at from messages where conversation_id = $1 and delivery_status = 'scheduled'`, [casey]);
  t.is(stored.send_at.getHours(), 9);
  t.is(await reply.inputValue(), '', 'the composer is cleared');
  await scheduled.getByRole('button', { name: 'Edit' }).click();
  await scheduled.getByLabel('Scheduled reply text').fill('We will check the tracking first thing tomorrow.');
  await scheduled.getByRole('button', { name: 'Save' }).click();
  const edited = log.locator('.msg.scheduled', { hasText: 'first thing tomorrow' });
  await edited.getByText(/Scheduled for/).waitFor();
  t.is((await app.sql(`select content from messages where id = $1`, [stored.id]))[0].content, 'We will check the tracking first thing tomorrow.');
  await shoot(page, 'scheduled-reply-desktop');
  await edited.getByRole('button', { name: 'Cancel sending' }).click();
  await edited.waitFor({ state: 'detached' });
  t.is((await app.sql(`select count(*)::int as n from messages where id = $1`, [stored.id]))[0].n, 0);

  // Bulk: tick Dana and Eli, set their priority, then resolve both.
  await list.getByRole('checkbox', { name: 'Select Dana Doe' }).check();
  await list.getByRole('checkbox', { name: 'Select Eli Example' }).check();
  const bar = page.getByRole('toolbar', { name: 'Bulk actions' });
  await bar.getByText('2 selected').waitFor();
  await shoot(page, 'bulk-bar-desktop');
  await bar.getByLabel('Set priority of selected').selectOption('high');
  await page.getByRole('status').filter({ hasText: '2 of 2 done' }).waitFor();
  t.is((await row(dana)).priority, 'high');
  t.is((await row(eli)).priority, 'high');
  await list.locator(`[data-id="${eli}"]`).getByRole('img', { name: 'Priority: High' }).waitFor();
  await list.getByRole('checkbox', { name: 'Select Dana Doe' }).check();
  await list.getByRole('checkbox', { name: 'Select Eli Example' }).check();
  await bar.getByRole('button', { name: 'Resolve' }).click();
  await list.getByRole('link', { name: /Dana Doe/ }).waitFor({ state: 'detached' });
  await list.getByRole('link', { name: /Eli Example/ }).waitFor({ state: 'detached' });
  t.deepEqual([(await row(dana)).status, (await row(eli)).status], ['resolved', 'resolved']);

  // Keyboard: ? lists the shortcuts; e assigns to me, s opens the snooze menu, r resolves.
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('?');
  const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await dialog.waitFor();
  for (const what of ['Next conversation', 'Assign the open conversation to me', 'Resolve the open conversation', 'Snooze the open conversation'])
    await dialog.getByText(what, { exact: false }).first().waitFor();
  await shoot(page, 'shortcuts-desktop');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  await page.keyboard.press('e');
  await waitFor(async () => (await row(casey)).assignee_id === owner.userId || null, 5000, 'assigned by e');
  await page.keyboard.press('s');
  await menu.waitFor();
  await page.keyboard.press('Escape');
  await menu.waitFor({ state: 'detached' });
  await page.keyboard.press('r');
  await waitFor(async () => (await row(casey)).status === 'resolved' || null, 5000, 'resolved by r');

  t.true(await fitsWidth(page));
  t.deepEqual(await accessibilityViolations(page), []);
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('the same at phone width: bulk bar, thread actions, Send later, shortcuts', async (t) => {
  const fay = await conversationWith('Fay Phone', 'Is my order shipped?');
  const gus = await conversationWith('Gus Phone', 'Can I change the address?');
  await app.request('PUT', `/api/v1/conversations/${gus}/priority`, { token: owner.token, body: { priority: 'urgent' } });
  const { page, context, errors } = await appPage(browser, app.url, owner.token, PHONE);
  const list = page.getByRole('list', { name: 'Conversations' });
  await list.getByRole('link', { name: /Fay Phone/ }).waitFor();
  await list.getByRole('checkbox', { name: 'Select Fay Phone' }).check();
  await list.getByRole('checkbox', { name: 'Select Gus Phone' }).check();
  await page.getByRole('toolbar', { name: 'Bulk actions' }).getByText('2 selected').waitFor();
  t.true(await fitsWidth(page), 'the bulk bar fits the phone');
  await shoot(page, 'bulk-bar-phone');
  await page.getByRole('toolbar', { name: 'Bulk actions' }).getByRole('button', { name: 'Clear' }).click();

  await list.getByRole('link', { name: /Fay Phone/ }).click();
  const header = page.locator('.thread-header');
  // On a phone the triage controls wait behind "Actions", so the messages keep the height.
  const snooze = header.getByRole('button', { name: 'Snooze' });
  await header.getByRole('button', { name: 'Actions' }).waitFor();
  t.false(await snooze.isVisible());
  await shoot(page, 'thread-phone');
  await header.getByRole('button', { name: 'Actions', expanded: false }).click();
  await snooze.click();
  await page.getByRole('menu', { name: 'Snooze until' }).waitFor();
  t.true(await fitsWidth(page), 'the snooze menu fits the phone');
  const menuBox = (await page.getByRole('menu', { name: 'Snooze until' }).boundingBox())!;
  t.true(menuBox.x >= 0 && menuBox.x + menuBox.width <= PHONE.width, `the whole snooze menu is on the screen: ${JSON.stringify(menuBox)}`);
  await shoot(page, 'snooze-menu-phone');
  await page.getByRole('menuitem', { name: /Until the customer replies/ }).click();
  await header.getByText('Snoozed until the customer replies').waitFor();
  t.like(await row(fay), { snoozed_until: null });
  t.truthy((await row(fay)).snoozed_at);

  await page.getByRole('textbox', { name: 'Reply' }).fill('I will write again on Monday.');
  await page.getByRole('button', { name: 'Send later' }).click();
  await page.getByRole('group', { name: 'Send later' }).getByRole('button', { name: 'Monday 9:00' }).click();
  t.true(await fitsWidth(page), 'Send later fits the phone');
  await shoot(page, 'send-later-phone');
  await page.getByRole('group', { name: 'Send later' }).getByRole('button', { name: 'Schedule' }).click();
  await page
    .getByRole('log', { name: 'Messages' })
    .locator('.msg.scheduled')
    .getByText(/Scheduled for/)
    .waitFor();
  t.true(await fitsWidth(page));
  await shoot(page, 'scheduled-reply-phone');

  await page.goto(`${app.url}/app/inbox?view=snoozed`);
  await list.getByRole('link', { name: /Fay Phone/ }).waitFor();
  await shoot(page, 'snoozed-view-phone');
  await page.locator('.list-header').getByRole('button', { name: 'Keyboard shortcuts' }).click();
  await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
  t.true(await fitsWidth(page));
  await shoot(page, 'shortcuts-phone');
  t.deepEqual(await accessibilityViolations(page), []);
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('an inbox left open keeps its times current: "now" becomes "5m", then "2h"', async (t) => {
  const context = await browser.newContext();
  await context.addInitScript((token) => localStorage.setItem('parley.token', token), owner.token);
  // No live connection: a jump of the page's clock would time it out, and its re-read on
  // reconnecting would redraw the list whatever the clock does (a page open for real keeps it up).
  await liveConnectionGate().hold(context);
  const page = await context.newPage();
  // The page's clock starts now and moves only when told (its timers with it).
  await page.clock.install({ time: new Date() });
  const waiting = await conversationWith('Wanda Waiting', 'Still waiting for an answer.');
  await page.goto(`${app.url}/app/inbox`);
  const time = page.getByRole('list', { name: 'Conversations' }).locator(`li[data-id="${waiting}"] .conv-time`);
  await time.waitFor();
  t.is(await time.innerText(), 'now');
  // Half a minute more than five: the page's clock may lag the server's by the seconds the page took to load.
  await page.clock.fastForward('05:30');
  await page.waitForFunction((el: any) => el.textContent === '5m', await time.elementHandle(), { timeout: 10_000 }).catch(() => {});
  t.is(await time.innerText(), '5m');
  await page.clock.fastForward('02:00:00');
  await page.waitForFunction((el: any) => el.textContent === '2h', await time.elementHandle(), { timeout: 10_000 }).catch(() => {});
  t.is(await time.innerText(), '2h');
  await context.close();
});

browserTest('"Mark unread" sends the agent back to the list with the conversation unread until it is opened again', async (t) => {
  // The agent answered last: read, by the usual rule.
  const later = await conversationWith('Lena Later', 'We will check the warehouse and write back.');
  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  const list = page.getByRole('list', { name: 'Conversations' });
  const link = list.locator(`li[data-id="${later}"]`).getByRole('link');
  await link.waitFor();
  t.notRegex(await accessibleName(link), /\(unread\)/);
  await link.click();
  await page.getByRole('region', { name: 'Conversation with Lena Later' }).getByRole('button', { name: 'Mark unread' }).click();
  await page.waitForURL((url) => url.pathname === '/app/inbox');
  t.regex(await accessibleName(link), /^Lena Later \(unread\)/);
  await page.reload();
  await link.waitFor();
  t.regex(await accessibleName(link), /^Lena Later \(unread\)/, 'still unread after a reload');
  await link.click();
  await page.getByRole('region', { name: 'Conversation with Lena Later' }).waitFor();
  await page.goto(`${app.url}/app/inbox`);
  await link.waitFor();
  t.notRegex(await accessibleName(link), /\(unread\)/, 'opened again: read');
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('a browser that refuses storage (private mode, a full quota) still opens, reads and drafts conversations', async (t) => {
  const id = await conversationWith('Sam Storage', 'Is my order on its way?');
  // The token is stored first (appPage's own init script); every write after it is refused.
  const refuse = async (context: BrowserContext) => {
    await context.addInitScript(() => {
      // localStorage and sessionStorage alike.
      Storage.prototype.setItem = () => {
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      };
    });
  };
  const { page, context, errors } = await appPage(browser, app.url, owner.token, undefined, refuse);
  const list = page.getByRole('list', { name: 'Conversations' });
  await list.locator(`li[data-id="${id}"]`).getByRole('link').click();
  const region = page.getByRole('region', { name: 'Conversation with Sam Storage' });
  await region.getByText('Is my order on its way?').waitFor();
  // Marking it read and keeping a draft write to storage: neither may break the thread.
  await region.getByRole('button', { name: 'Mark unread' }).click();
  await page.waitForURL((url) => url.pathname === '/app/inbox');
  await list.locator(`li[data-id="${id}"]`).getByRole('link').click();
  await page.getByRole('textbox', { name: 'Reply' }).fill('Yes, it left today.');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await region.getByText('Yes, it left today.').waitFor();
  t.is(await region.getByRole('alert').count(), 0, 'no error shown');
  // The e-mail banner's "Not now" remembers in sessionStorage, refused too.
  await page.getByRole('button', { name: 'Not now' }).click();
  await page.getByRole('button', { name: 'Not now' }).waitFor({ state: 'detached' });
  t.deepEqual(errors, []);
  await context.close();
});
