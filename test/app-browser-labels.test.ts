/**
 * Labels and canned responses in the agent app, in a real browser: the owner adds a label and a
 * canned response in Settings, labels a conversation from its header, filters the inbox by the
 * label, and inserts the canned reply (rendered for the conversation) by typing `/` in the reply
 * box; then the same screens at phone width. Screenshots go to test-artifacts/app/.
 */
import test from 'ava';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { hasFocus, appPage, artifactDir, browserTest, hasChromium, launchChromium, noteIfSkipped, PHONE, accessibilityViolations } from './helpers/browser.ts';

noteIfSkipped('app-browser-labels');

let app: TestApp;
let browser: Browser;
let owner: Workspace;
const shots = artifactDir('app');

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

async function conversationWith(name: string, email: string | null, text: string): Promise<string> {
  const [customer] = await app.sql(`insert into customers (business_id, name, email) values ($1, $2, $3) returning id`, [owner.businessId, name, email]);
  const created = await app.request('POST', '/api/v1/conversations', {
    token: owner.token,
    body: { business_id: owner.businessId, customer_id: customer.id, initial_message: text },
  });
  if (created.status !== 200) throw new Error(`conversation: ${created.status} ${created.text}`);
  return created.body.id;
}

browserTest('labels and canned responses: manage in settings, label and filter, insert with /', async (t) => {
  const casey = await conversationWith('Casey Customer', 'casey@example.com', 'We got your question about the invoice.');
  await conversationWith('Dana Doe', null, 'Thanks for the photos of the parcel.');
  const { page, context, errors } = await appPage(browser, app.url, owner.token);

  // Settings → Labels: add one.
  await page.goto(`${app.url}/app/settings/labels`);
  await page.getByText('No labels yet.').waitFor();
  const newLabel = page.getByRole('form', { name: 'New label' });
  await newLabel.getByLabel('Name').fill('Billing');
  await newLabel.getByLabel('Color').fill('#e5484d');
  await newLabel.getByLabel('Description').fill('Invoices, refunds and charges');
  await newLabel.getByRole('button', { name: 'Add label' }).click();
  await page.getByRole('list', { name: 'Labels' }).getByRole('listitem', { name: 'Billing' }).waitFor();
  await newLabel.getByLabel('Name').fill('VIP');
  await newLabel.getByRole('button', { name: 'Add label' }).click();
  await page.getByRole('list', { name: 'Labels' }).getByRole('listitem', { name: 'VIP' }).waitFor();
  await shoot(page, 'labels-settings-desktop');
  const [stored] = await app.sql(`select name, color, description from labels where business_id = $1 and name = 'Billing'`, [owner.businessId]);
  t.deepEqual(stored, { name: 'Billing', color: '#e5484d', description: 'Invoices, refunds and charges' });

  // Settings → Canned responses: add one with placeholders.
  await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Canned responses' }).click();
  const newCanned = page.getByRole('form', { name: 'New canned response' });
  await newCanned.getByLabel('Short code').fill('thanks');
  await newCanned.getByLabel('Content').fill('Hi {{customer.name}}, thanks for writing to {{business.name}}. {{agent.name}}');
  await newCanned.getByRole('button', { name: 'Add canned response' }).click();
  await page.getByRole('list', { name: 'Canned responses' }).getByRole('listitem', { name: '/thanks' }).waitFor();
  await newCanned.getByLabel('Short code').fill('refund');
  await newCanned.getByLabel('Content').fill('Your refund of {{order.total}} is on its way, {{customer.name}}.');
  await newCanned.getByRole('button', { name: 'Add canned response' }).click();
  await page.getByRole('list', { name: 'Canned responses' }).getByRole('listitem', { name: '/refund' }).waitFor();
  await shoot(page, 'canned-settings-desktop');

  // Label Casey's conversation from its header.
  await page.goto(`${app.url}/app/inbox/${casey}`);
  const header = page.locator('.thread-header');
  await header.getByRole('button', { name: '+ Label' }).click();
  await page.getByRole('group', { name: 'Labels of this conversation' }).getByRole('checkbox', { name: 'Billing' }).check();
  await header.locator('.thread-labels > .label-chip', { hasText: 'Billing' }).waitFor();
  await shoot(page, 'label-menu-desktop');
  await page.keyboard.press('Escape');
  // Closed by Escape from a checkbox inside it: the focus is back on the button that opened it.
  await page.getByRole('group', { name: 'Labels of this conversation' }).waitFor({ state: 'detached' });
  t.true(await hasFocus(header.getByRole('button', { name: 'Edit labels' })));
  const list = page.getByRole('list', { name: 'Conversations' });
  await list.locator(`[data-id="${casey}"] .label-chip`, { hasText: 'Billing' }).waitFor();
  const [labelled] = await app.sql(`select l.name from conversation_labels cl join labels l on l.id = cl.label_id where cl.conversation_id = $1`, [casey]);
  t.is(labelled.name, 'Billing');

  // Filter the inbox by the label: only Casey's conversation is left.
  await page.getByLabel('Label', { exact: true }).selectOption('Billing');
  await page.waitForURL(/label=Billing/);
  await list.getByRole('link', { name: /Dana Doe/ }).waitFor({ state: 'detached' });
  await list.getByRole('link', { name: /Casey Customer/ }).waitFor();
  t.is(await list.getByRole('listitem').count(), 1);

  // `/` at the start of the reply opens the picker; Enter inserts the rendered reply.
  const reply = page.getByRole('textbox', { name: 'Reply' });
  await reply.click();
  await page.keyboard.type('/th');
  const picker = page.getByRole('listbox', { name: 'Canned responses' });
  await picker.getByRole('option', { name: /\/thanks/ }).waitFor();
  t.is(await picker.getByRole('option').count(), 1, 'filtered by what follows /');
  t.false(await page.getByRole('dialog', { name: 'Search' }).isVisible(), 'typing / in the reply does not open search');
  await shoot(page, 'canned-picker-desktop');
  t.deepEqual(await accessibilityViolations(page), [], 'the open canned-response picker');
  await page.keyboard.press('Enter');
  const rendered = "Hi Casey Customer, thanks for writing to Olive Owner's Co. Olive Owner";
  await page.waitForFunction((want) => (globalThis as any).document.querySelector('textarea[aria-label="Reply"]')?.value === want, rendered);
  t.false(await picker.isVisible());
  await page.keyboard.press('Enter');
  await page.getByRole('log', { name: 'Messages' }).getByText(rendered).waitFor();

  // A slash later in the text is just text; Escape closes the picker and keeps what was typed.
  await reply.fill('/re');
  await picker.getByRole('option', { name: /\/refund/ }).waitFor();
  await page.keyboard.press('Escape');
  await picker.waitFor({ state: 'detached' });
  t.is(await reply.inputValue(), '/re');
  await reply.fill('');

  t.deepEqual(await accessibilityViolations(page), []);
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('labels and canned responses at phone width', async (t) => {
  const [{ id: casey }] = await app.sql(`select c.id from conversations c join customers cu on cu.id = c.customer_id where cu.name = 'Casey Customer'`);
  const { page, context, errors } = await appPage(browser, app.url, owner.token, PHONE);
  await page.goto(`${app.url}/app/inbox?label=Billing`);
  const list = page.getByRole('list', { name: 'Conversations' });
  await list.locator('.label-chip', { hasText: 'Billing' }).first().waitFor();
  await shoot(page, 'labels-inbox-phone');

  await list.getByRole('link', { name: /Casey Customer/ }).click();
  await page.locator('.thread-labels > .label-chip', { hasText: 'Billing' }).waitFor();
  await page.getByRole('button', { name: 'Edit labels' }).click();
  await page.getByRole('group', { name: 'Labels of this conversation' }).getByRole('checkbox', { name: 'VIP' }).check();
  await page.locator('.thread-labels > .label-chip', { hasText: 'VIP' }).waitFor();
  await shoot(page, 'label-menu-phone');
  await page.keyboard.press('Escape');
  const reply = page.getByRole('textbox', { name: 'Reply' });
  await reply.click();
  await page.keyboard.type('/');
  await page.getByRole('listbox', { name: 'Canned responses' }).getByRole('option').nth(1).waitFor();
  await shoot(page, 'canned-picker-phone');
  await page.getByRole('option', { name: /\/refund/ }).click();
  await page.waitForFunction(
    () => (globalThis as any).document.querySelector('textarea[aria-label="Reply"]')?.value === 'Your refund of {{order.total}} is on its way, Casey Customer.',
  );
  const [row] = await app.sql(`select count(*)::int as n from conversation_labels where conversation_id = $1`, [casey]);
  t.is(row.n, 2);

  await page.goto(`${app.url}/app/settings/labels`);
  await page.getByRole('list', { name: 'Labels' }).getByRole('listitem', { name: 'VIP' }).waitFor();
  await shoot(page, 'labels-settings-phone');
  await page.goto(`${app.url}/app/settings/canned-responses`);
  await page.getByRole('list', { name: 'Canned responses' }).getByRole('listitem', { name: '/thanks' }).waitFor();
  await shoot(page, 'canned-settings-phone');
  t.deepEqual(errors, []);
  await context.close();
});
