/**
 * The inbox's keyboard shortcuts in a real browser (app/inbox/Shortcuts.tsx, issue #22 item 5):
 * `j` and `k` open the next and previous conversation of the list (the route, the highlighted
 * row and the thread follow, and neither runs past either end), `x` ticks and unticks the open
 * conversation for the bulk bar, `?` opens and closes the list of shortcuts (and no shortcut acts
 * behind it), and none of them fires while the agent types in the composer. Screenshots go to
 * test-artifacts/shortcuts/.
 */
import test from 'ava';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { hasFocus, accessibilityViolations, appPage, artifactDir, browserTest, hasChromium, launchChromium, noteIfSkipped, PHONE } from './helpers/browser.ts';

noteIfSkipped('app-browser-shortcuts');

let app: TestApp;
let browser: Browser;
let owner: Workspace;
const shots = artifactDir('shortcuts');

const customers = [
  { name: 'Ada Arrow', text: 'Where is my parcel?' },
  { name: 'Ben Bracket', text: 'Can I change my address?' },
  { name: 'Cleo Caret', text: 'The invoice is wrong.' },
];

test.before(async () => {
  if (!hasChromium) return;
  app = await startTestApp();
  owner = await createWorkspace(app, { name: 'Olive Owner' });
  for (const c of customers) await conversationWith(c.name, c.text);
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(shots, `${name}.png`) });

async function conversationWith(name: string, text: string): Promise<string> {
  const [customer] = await app.sql(`insert into customers (business_id, name) values ($1, $2) returning id`, [owner.businessId, name]);
  const created = await app.request('POST', '/api/v1/conversations', {
    token: owner.token,
    body: { business_id: owner.businessId, customer_id: customer.id, initial_message: text },
  });
  if (created.status !== 200) throw new Error(`conversation: ${created.status} ${created.text}`);
  return created.body.id;
}

/** The list's rows top to bottom: each row's conversation id and customer name. */
async function rows(page: Page): Promise<{ id: string; name: string }[]> {
  return page
    .getByRole('list', { name: 'Conversations' })
    .locator('.conv-row')
    .evaluateAll((nodes) => nodes.map((n) => ({ id: n.getAttribute('data-id')!, name: n.querySelector('.conv-name')!.textContent! })));
}

/** The conversation is the open one: in the route, highlighted in the list (and only it), and shown in the thread. */
async function isOpen(page: Page, row: { id: string; name: string }): Promise<void> {
  await page.waitForURL(`**/app/inbox/${row.id}`);
  const list = page.getByRole('list', { name: 'Conversations' });
  await list.locator(`.conv-row[data-id="${row.id}"] a[aria-current="true"]`).waitFor();
  const text = customers.find((c) => c.name === row.name)!.text;
  await page.getByRole('log', { name: 'Messages' }).getByText(text).waitFor();
}

const current = (page: Page) => page.getByRole('list', { name: 'Conversations' }).locator('a[aria-current="true"]');
const tick = (page: Page, name: string) => page.getByRole('list', { name: 'Conversations' }).getByRole('checkbox', { name: `Select ${name}` });

browserTest('j and k move through the list and stop at its ends; x ticks the open conversation; ? lists them', async (t) => {
  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  const list = page.getByRole('list', { name: 'Conversations' });
  for (const c of customers) await list.getByRole('link', { name: new RegExp(c.name) }).waitFor();
  const order = await rows(page);
  t.deepEqual(order.map((r) => r.name).sort(), customers.map((c) => c.name).sort());
  t.is(await current(page).count(), 0, 'nothing open at first');
  await page.getByText('Pick a conversation').waitFor();

  // j from nothing opens the first; then down the list; j on the last stays there.
  await page.keyboard.press('j');
  await isOpen(page, order[0]!);
  await shoot(page, 'j-first-desktop');
  await page.keyboard.press('j');
  await isOpen(page, order[1]!);
  await page.keyboard.press('j');
  await isOpen(page, order[2]!);
  t.true(await hasFocus(list.locator(`.conv-row[data-id="${order[2]!.id}"] a`)), 'the open row has the focus');
  await page.keyboard.press('j');
  // Past the end nothing moves: x, which acts on the open conversation, ticks the last one.
  await page.keyboard.press('x');
  await tick(page, order[2]!.name).and(page.locator(':checked')).waitFor();
  t.is(new URL(page.url()).pathname, `/app/inbox/${order[2]!.id}`);
  t.is(await current(page).count(), 1, 'one row highlighted');
  const bar = page.getByRole('toolbar', { name: 'Bulk actions' });
  await bar.getByText('1 selected').waitFor();
  t.true(await list.locator(`.conv-row[data-id="${order[2]!.id}"]`).evaluate((li) => li.classList.contains('ticked')));

  // k back up, ticking the middle one on the way: two ticked, the bar counts them.
  await page.keyboard.press('k');
  await isOpen(page, order[1]!);
  await page.keyboard.press('x');
  await bar.getByText('2 selected').waitFor();
  t.true(await tick(page, order[1]!.name).isChecked());
  t.false(await tick(page, order[0]!.name).isChecked());
  await shoot(page, 'x-ticked-desktop');
  // x again unticks the open conversation only.
  await page.keyboard.press('x');
  await bar.getByText('1 selected').waitFor();
  t.false(await tick(page, order[1]!.name).isChecked());
  t.true(await tick(page, order[2]!.name).isChecked());
  await page.keyboard.press('k');
  await isOpen(page, order[0]!);
  // k on the first stays there (x then ticks the first, not another).
  await page.keyboard.press('k');
  await page.keyboard.press('x');
  await bar.getByText('2 selected').waitFor();
  t.true(await tick(page, order[0]!.name).isChecked());
  t.false(await tick(page, order[1]!.name).isChecked());
  t.is(new URL(page.url()).pathname, `/app/inbox/${order[0]!.id}`);
  await bar.getByRole('button', { name: 'Clear' }).click();
  await bar.waitFor({ state: 'detached' });

  // ? opens the list of shortcuts; no shortcut acts behind it; ? again closes it.
  await page.keyboard.press('?');
  const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await dialog.waitFor();
  for (const what of ['Next conversation', 'Previous conversation', 'Select or unselect the open conversation']) await dialog.getByText(what).waitFor();
  t.deepEqual(await dialog.locator('kbd').allTextContents(), ['j', 'k', 'x', 'e', 'r', 's', '/', '?', 'Esc']);
  await shoot(page, 'help-desktop');
  await page.keyboard.press('j');
  await page.keyboard.press('x');
  await page.keyboard.press('?');
  await dialog.waitFor({ state: 'detached' });
  // Had j or x acted behind the dialog, the second row would be open or a row ticked.
  t.is(new URL(page.url()).pathname, `/app/inbox/${order[0]!.id}`);
  t.is(await bar.count(), 0, 'nothing ticked behind the dialog');
  // Escape closes it too.
  await page.keyboard.press('?');
  await dialog.waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });

  // Typing in the composer types the letters; no shortcut fires.
  const reply = page.getByRole('textbox', { name: 'Reply' });
  await reply.click();
  await page.keyboard.type('jkx?');
  t.is(await reply.inputValue(), 'jkx?');
  t.is(await dialog.count(), 0);
  t.is(await bar.count(), 0);
  t.is(new URL(page.url()).pathname, `/app/inbox/${order[0]!.id}`);
  // Out of the composer, j acts again.
  await reply.fill('');
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('j');
  await isOpen(page, order[1]!);
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('at phone width j opens a conversation full screen and ? lists the shortcuts', async (t) => {
  const { page, context, errors } = await appPage(browser, app.url, owner.token, PHONE);
  const list = page.getByRole('list', { name: 'Conversations' });
  await list.getByRole('link', { name: new RegExp(customers[0]!.name) }).waitFor();
  const order = await rows(page);
  await page.keyboard.press('j');
  await page.waitForURL(`**/app/inbox/${order[0]!.id}`);
  const text = customers.find((c) => c.name === order[0]!.name)!.text;
  await page.getByRole('log', { name: 'Messages' }).getByText(text).waitFor();
  await shoot(page, 'j-phone');
  await page.keyboard.press('?');
  await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
  t.true(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth <= (globalThis as any).innerWidth), 'the dialog fits the phone');
  await shoot(page, 'help-phone');
  t.deepEqual(errors, []);
  await context.close();
});

/** Whether the focused element is inside `selector` (the focus followed into an open dialog). */
const focusInside = (page: Page, selector: string) => page.evaluate((s) => Boolean((globalThis as any).document.activeElement?.closest(s)), selector);
/**
 * Whether nothing of the page outside `selector` has the focus. Tab past a modal <dialog>'s last
 * control goes to the browser's own controls (the address bar), seen from the page as the
 * focus on <body>, and the next Tab comes back to the dialog's first.
 */
const focusNotBehind = (page: Page, selector: string) =>
  page.evaluate((s) => {
    const doc = (globalThis as any).document;
    const el = doc.activeElement;
    return !el || el === doc.body || Boolean(el.closest(s));
  }, selector);
/** The focused element's text or label, to say where the focus is. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = (globalThis as any).document.activeElement;
    return el ? `${el.tagName.toLowerCase()} ${el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 40) ?? ''}` : 'nothing';
  });

browserTest('a dialog keeps the keyboard inside while open, closes on Escape and gives the focus back to where it was', async (t) => {
  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  const list = page.getByRole('list', { name: 'Conversations' });
  await list.getByRole('link', { name: new RegExp(customers[0]!.name) }).waitFor();
  const order = await rows(page);
  // j opens the first conversation and focuses its row: the place the focus must come back to.
  await page.keyboard.press('j');
  await isOpen(page, order[0]!);
  const row = list.locator(`.conv-row[data-id="${order[0]!.id}"] a`);
  const rowFocused = () => hasFocus(row);
  t.true(await rowFocused());

  for (const [open, name] of [
    ['?', 'Keyboard shortcuts'],
    ['Control+k', 'Search'],
  ] as const) {
    await page.keyboard.press(open);
    const dialog = page.getByRole('dialog', { name });
    await dialog.waitFor();
    t.true(await focusInside(page, 'dialog[open]'), `${name}: the focus moves into the dialog`);
    // Tab and Shift+Tab, more times than the dialog has controls: the focus never reaches the page behind it.
    let inside = 0;
    for (const key of ['Tab', 'Tab', 'Tab', 'Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab']) {
      await page.keyboard.press(key);
      t.true(await focusNotBehind(page, 'dialog[open]'), `${name}: after ${key} the focus is on ${await focused(page)}`);
      if (await focusInside(page, 'dialog[open]')) inside += 1;
    }
    t.true(inside >= 4, `${name}: the focus comes back into the dialog (${inside} of 9 presses)`);
    t.deepEqual(await accessibilityViolations(page), [], `${name}: WCAG 2.2 AA`);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    t.true(await rowFocused(), `${name}: closed, the focus is back on the conversation's row (it is on ${await focused(page)})`);
  }
  // The list behind the dialogs did not move.
  t.is(new URL(page.url()).pathname, `/app/inbox/${order[0]!.id}`);
  t.deepEqual(errors, []);
  await context.close();
});
