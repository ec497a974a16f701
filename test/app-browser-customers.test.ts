/**
 * The customer record in the agent app, in a real browser: the owner edits a customer's details
 * and attributes in the customer panel, merges a duplicate found by search, exports the data and
 * erases the customer; an agent sees no export or erase. Then the panel at phone width.
 * Screenshots go to test-artifacts/customers/.
 */
import test from 'ava';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, type Workspace } from './helpers/fixtures.ts';
import {
  appPage,
  artifactDir,
  browserTest,
  hasChromium,
  launchChromium,
  noteIfSkipped,
  PHONE,
  accessibilityViolations,
  accessibleControl,
} from './helpers/browser.ts';
import { waitFor } from './helpers/worker.ts';

noteIfSkipped('app-browser-customers');

let app: TestApp;
let browser: Browser;
let owner: Workspace;
const shots = artifactDir('customers');

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

async function conversationWith(name: string, email: string | null, text: string): Promise<{ conversation: string; customer: string; number: number }> {
  const [customer] = await app.sql(`insert into customers (business_id, name, email) values ($1, $2, $3) returning id, number`, [
    owner.businessId,
    name,
    email,
  ]);
  const created = await app.request('POST', '/api/v1/conversations', {
    token: owner.token,
    body: { business_id: owner.businessId, customer_id: customer.id, initial_message: text },
  });
  if (created.status !== 200) throw new Error(`conversation: ${created.status} ${created.text}`);
  return { conversation: created.body.id, customer: customer.id, number: Number(customer.number) };
}

browserTest('customer panel: edit details and attributes, merge a duplicate, export, erase', async (t) => {
  const casey = await conversationWith('Casey Customer', 'casey@example.com', 'About my invoice from March.');
  const dup = await conversationWith('C. Customer', null, 'Sent from WhatsApp: any news on the invoice?');
  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  await page.goto(`${app.url}/app/inbox/${casey.conversation}`);
  const panel = page.getByRole('complementary', { name: 'Customer' });
  await panel.getByRole('heading', { name: 'Casey Customer' }).waitFor();

  // Details.
  await panel.getByRole('button', { name: 'Edit', exact: true }).click();
  const form = panel.getByRole('form', { name: 'Edit customer' });
  await form.getByLabel('Name').fill('Casey Carter');
  await form.getByLabel('Phone').fill('+1 555 0100');
  await form.getByLabel('E-mail').fill('not-an-address');
  await form.getByRole('button', { name: 'Save' }).click();
  await form.getByRole('alert').getByText('Check the marked field.').waitFor();
  // The form checks nothing itself (noValidate): the API's reason is shown and read at its field.
  const refused = await accessibleControl(form.getByLabel('E-mail'));
  t.true(refused.invalid && refused.focused);
  t.is(refused.description, 'Value is not a valid email address');
  t.false((await accessibleControl(form.getByLabel('Phone'))).invalid);
  await form.getByLabel('E-mail').fill('casey@carter.example');
  await form.getByRole('button', { name: 'Save' }).click();
  await panel.getByRole('heading', { name: 'Casey Carter' }).waitFor();
  await panel.getByText('+1 555 0100').waitFor();
  // The inbox list follows (customer_updated).
  await page.getByRole('list', { name: 'Conversations' }).getByText('Casey Carter').waitFor({ timeout: 5000 });
  const [row] = await app.sql(`select name, email, phone from customers where id = $1`, [casey.customer]);
  t.deepEqual(row, { name: 'Casey Carter', email: 'casey@carter.example', phone: '+1 555 0100' });

  // Attributes: text, number, yes/no; then remove one.
  const attributes = panel.getByRole('region', { name: 'Attributes' });
  const add = attributes.getByRole('form', { name: 'Add attribute' });
  await add.getByLabel('Attribute name').fill('plan');
  await add.getByLabel('Attribute value').fill('Gold');
  await add.getByRole('button', { name: 'Add' }).click();
  await attributes.getByText('Gold').waitFor();
  await add.getByLabel('Attribute name').fill('orders');
  await add.getByLabel('Attribute type').selectOption('number');
  await add.getByLabel('Attribute value').fill('12');
  await add.getByRole('button', { name: 'Add' }).click();
  await attributes.locator('.attr-value', { hasText: '12' }).waitFor();
  await add.getByLabel('Attribute name').fill('vip');
  await add.getByLabel('Attribute type').selectOption('boolean');
  await add.getByLabel('Attribute value').selectOption('true');
  await add.getByRole('button', { name: 'Add' }).click();
  await attributes.locator('.attr-value', { hasText: 'Yes' }).waitFor();
  await add.getByLabel('Attribute name').fill('temp');
  await add.getByLabel('Attribute type').selectOption('text');
  await add.getByLabel('Attribute value').fill('remove me');
  await add.getByRole('button', { name: 'Add' }).click();
  await attributes.getByText('remove me').waitFor();
  await attributes.getByRole('button', { name: 'Remove temp' }).click();
  await attributes.getByText('remove me').waitFor({ state: 'detached' });
  const [stored] = await app.sql(`select attributes from customers where id = $1`, [casey.customer]);
  t.deepEqual(stored.attributes, { plan: 'Gold', orders: 12, vip: true });
  await shoot(page, 'panel-desktop');

  // Merge the duplicate, found by search.
  await panel.getByRole('button', { name: 'Merge a duplicate…' }).click();
  await panel.getByLabel('Find the duplicate').fill('C. Cust');
  await panel
    .getByRole('list', { name: 'Matching customers' })
    .getByRole('button', { name: /C\. Customer/ })
    .click();
  await panel.getByRole('group', { name: 'Confirm merge' }).waitFor();
  await shoot(page, 'merge-desktop');
  await panel.getByRole('group', { name: 'Confirm merge' }).getByRole('button', { name: 'Merge' }).click();
  await panel.getByText('Merged: 1 conversation moved to Casey Carter.').waitFor();
  await panel.getByText('Sent from WhatsApp: any news on the invoice?').waitFor();
  const [moved] = await app.sql(`select customer_id from conversations where id = $1`, [dup.conversation]);
  t.is(moved.customer_id, casey.customer);
  const [gone] = await app.sql(`select merged_into from customers where id = $1`, [dup.customer]);
  t.is(gone.merged_into, casey.customer);

  // Export: a JSON download.
  const [download] = await Promise.all([page.waitForEvent('download'), panel.getByRole('button', { name: 'Export data (JSON)' }).click()]);
  t.is(download.suggestedFilename(), `customer-${casey.number}.json`);
  const file = await download.path();
  const { readFileSync } = await import('node:fs');
  const exported = JSON.parse(readFileSync(file, 'utf8'));
  t.is(exported.customer.name, 'Casey Carter');
  t.is(exported.conversations.length, 2);

  // Erase, confirmed.
  await panel.getByRole('button', { name: 'Erase customer…' }).click();
  await panel.getByRole('group', { name: 'Confirm erasure' }).waitFor();
  await panel.getByRole('button', { name: 'Erase permanently' }).scrollIntoViewIfNeeded();
  await shoot(page, 'erase-desktop');
  await panel.getByRole('button', { name: 'Erase permanently' }).click();
  await waitFor(async () => (await app.sql(`select erasing_at from customers where id = $1`, [casey.customer]))[0]?.erasing_at, 10_000, 'erasure requested');
  await panel.getByRole('heading', { name: 'Visitor' }).waitFor();
  const [job] = await app.sql(`select 1 from graphile_worker._private_jobs where key = $1`, [`erase:${casey.customer}`]);
  t.truthy(job);

  t.deepEqual(await accessibilityViolations(page), []);
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('customer panel: an agent edits but cannot export or erase; the panel at phone width', async (t) => {
  const agent = await addMember(app, owner.businessId, 'agent', { name: 'Andy Agent' });
  const dana = await conversationWith('Dana Doe', 'dana@example.com', 'Thanks for the photos of the parcel.');
  await app.request('PATCH', `/api/v1/customers/${dana.number}`, {
    token: owner.token,
    body: { attributes: { plan: 'Silver', 'last-order': 'A-2024-000123456789-very-long-reference', orders: 3 } },
  });
  const { page, context, errors } = await appPage(browser, app.url, agent.token, PHONE);
  await page.goto(`${app.url}/app/inbox/${dana.conversation}`);
  await page.getByRole('button', { name: 'Customer', exact: true }).click();
  const panel = page.getByRole('complementary', { name: 'Customer' });
  await panel.getByRole('heading', { name: 'Dana Doe' }).waitFor();
  await panel.getByText('Silver').waitFor();
  t.true(await panel.getByRole('button', { name: 'Merge a duplicate…' }).isVisible());
  t.false(await panel.getByRole('button', { name: 'Export data (JSON)' }).isVisible());
  t.false(await panel.getByRole('button', { name: 'Erase customer…' }).isVisible());
  await shoot(page, 'panel-phone');
  const widths = await page.evaluate(() => {
    const doc = (globalThis as any).document;
    return { page: doc.documentElement.scrollWidth, panel: doc.querySelector('.customer-panel').scrollWidth };
  });
  t.true(widths.page <= PHONE.width, `page ${widths.page}px wide`);
  t.true(widths.panel <= PHONE.width, `panel ${widths.panel}px wide`);
  await panel.getByRole('button', { name: 'Edit', exact: true }).click();
  await panel.getByRole('form', { name: 'Edit customer' }).getByLabel('Name').fill('Dana D.');
  await panel.getByRole('form', { name: 'Edit customer' }).getByRole('button', { name: 'Save' }).click();
  await panel.getByRole('heading', { name: 'Dana D.' }).waitFor();
  await panel.getByRole('button', { name: 'Merge a duplicate…' }).click();
  await app.sql(`insert into customers (business_id, name, email) values ($1, 'Dana Duplicate', 'dana.d@example.com')`, [owner.businessId]);
  await panel.getByLabel('Find the duplicate').fill('Dana');
  const pick = panel.getByRole('list', { name: 'Matching customers' }).getByRole('button').first();
  await pick.waitFor();
  await pick.scrollIntoViewIfNeeded();
  await shoot(page, 'merge-phone');
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('Settings → Data retention: the owner sets a number of days, then forever again; an agent only reads it', async (t) => {
  const team = await createWorkspace(app, { name: 'Rhea Retention', plan: 'Pro' });
  for (const viewport of [undefined, PHONE]) {
    const { page, context, errors } = await appPage(browser, app.url, team.token, viewport);
    await page.goto(`${app.url}/app/settings/retention`);
    const form = page.getByRole('form', { name: 'Data retention' });
    await form.getByLabel('Keep them forever').waitFor();
    t.true(await form.getByLabel('Keep them forever').isChecked());
    await form.getByLabel('Delete them when their last message is older than').check();
    await form.getByLabel('Days').fill('90');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByText('Saved.').waitFor();
    t.deepEqual((await app.request('GET', '/api/v1/settings/retention', { token: team.token })).body, { days: 90 });
    await shoot(page, `retention-${viewport ? 'phone' : 'desktop'}`);
    await form.getByLabel('Keep them forever').check();
    await form.getByRole('button', { name: 'Save' }).click();
    await waitFor(
      async () => (await app.request('GET', '/api/v1/settings/retention', { token: team.token })).body.days === null || null,
      10_000,
      'forever again',
    );
    t.deepEqual(errors, []);
    await context.close();
  }
  const agent = await addMember(app, team.businessId, 'agent', { name: 'Ari Agent' });
  const { page, context } = await appPage(browser, app.url, agent.token);
  await page.goto(`${app.url}/app/settings/retention`);
  await page.getByText('Only the owner or an admin can change this.').waitFor();
  t.true(await page.getByLabel('Keep them forever').isDisabled());
  t.is(await page.getByRole('button', { name: 'Save' }).count(), 0);
  await context.close();
});
