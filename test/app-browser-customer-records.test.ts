/**
 * The rest of customer records in the agent app, in a real browser: Settings → Customer
 * attributes (owner defines typed fields; an agent reads), the customer panel's typed attribute
 * editor and notes, the Customers page with its attribute filter and CSV export and import, the
 * widget's identity secret, and Redeliver on a webhook delivery (a fake receiver checks the
 * signature). Desktop and phone widths; screenshots in test-artifacts/customer-records/.
 */
import test from 'ava';
import path from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { startTestWorker, waitFor } from './helpers/worker.ts';
import { appPage, artifactDir, browserTest, hasChromium, launchChromium, noteIfSkipped, PHONE, accessibilityViolations } from './helpers/browser.ts';
import { startWebhookReceiver, type WebhookReceiver } from './fakes/webhook-receiver.ts';
import type { SupervisedRunner } from '../workers/supervisor.ts';

noteIfSkipped('app-browser-customer-records');

let app: TestApp;
let browser: Browser;
let owner: Workspace;
let receiver: WebhookReceiver;
let worker: SupervisedRunner;
const shots = artifactDir('customer-records');

test.before(async () => {
  if (!hasChromium) return;
  [app, receiver] = await Promise.all([startTestApp(), startWebhookReceiver()]);
  owner = await createWorkspace(app, { name: 'Olive Owner', plan: 'Pro' });
  worker = await startTestWorker(app, { only: ['dispatch_webhooks', 'deliver_webhook'] });
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await worker?.stop();
  await app?.close();
  await receiver?.close();
});

const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
/** Nothing is wider than the window (no sideways scrolling on a phone). */
/** The page's reads of the attribute definitions answer half a second late. */
const definitionsLate = (page: Page) =>
  page.route('**/api/v1/settings/customer-attributes', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 500));
    await route.continue();
  });

const overflow = (page: Page) => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth);

async function conversationWith(ws: Workspace, name: string, email: string, text: string) {
  const [customer] = await app.sql(`insert into customers (business_id, name, email) values ($1, $2, $3) returning id, number`, [ws.businessId, name, email]);
  const created = await app.request('POST', '/api/v1/conversations', {
    token: ws.token,
    body: { business_id: ws.businessId, customer_id: customer.id, initial_message: text },
  });
  if (created.status !== 200) throw new Error(created.text);
  return { conversation: created.body.id as string, customer: customer.id as string, number: Number(customer.number) };
}

browserTest('Settings → Customer attributes: the owner defines typed fields; an agent only reads them', async (t) => {
  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  await page.goto(`${app.url}/app/settings/customer-attributes`);
  const form = page.getByRole('form', { name: 'Customer attributes' });
  await form.getByText('No attributes defined').waitFor();
  const add = async (key: string, label: string, type: string, options?: string) => {
    await form.getByRole('button', { name: 'Add attribute' }).click();
    const n = await form.locator('.attr-def').count();
    await form.getByLabel(`Key of attribute ${n}`).fill(key);
    await form.getByLabel(`Label of attribute ${n}`).fill(label);
    await form.getByLabel(`Type of attribute ${n}`).selectOption(type);
    if (options) await form.getByLabel(`Options of attribute ${n}`).fill(options);
  };
  await add('plan', 'Plan', 'list', 'free, pro, enterprise');
  await add('orders', 'Orders', 'number');
  await add('renewal', 'Renewal date', 'date');
  await add('vip', 'VIP', 'boolean');
  await add('bad key', 'Broken', 'text');
  await form.getByRole('button', { name: 'Save' }).click();
  await form.getByRole('alert').waitFor();
  await form.getByRole('button', { name: 'Remove attribute bad key' }).click();
  await form.getByRole('button', { name: 'Save' }).click();
  await form.getByText('Saved.').waitFor();
  t.deepEqual((await app.request('GET', '/api/v1/settings/customer-attributes', { token: owner.token })).body.attributes, [
    { key: 'plan', label: 'Plan', type: 'list', options: ['free', 'pro', 'enterprise'] },
    { key: 'orders', label: 'Orders', type: 'number' },
    { key: 'renewal', label: 'Renewal date', type: 'date' },
    { key: 'vip', label: 'VIP', type: 'boolean' },
  ]);
  await shoot(page, 'attributes-settings-desktop');
  t.deepEqual(await accessibilityViolations(page), []);
  t.deepEqual(errors, []);
  await context.close();

  const agent = await addMember(app, owner.businessId, 'agent', { name: 'Andy Agent' });
  const phone = await appPage(browser, app.url, agent.token, PHONE);
  await phone.page.goto(`${app.url}/app/settings/customer-attributes`);
  await phone.page.getByText('Only the owner or an admin can change these.').waitFor();
  t.true(await phone.page.getByLabel('Key of attribute 1').isDisabled());
  t.is(await phone.page.getByRole('button', { name: 'Save' }).count(), 0);
  t.true((await overflow(phone.page)) <= 0);
  await shoot(phone.page, 'attributes-settings-phone');
  t.deepEqual(phone.errors, []);
  await phone.context.close();
});

browserTest('customer panel: typed attributes from the definitions, and notes (add, page, delete)', async (t) => {
  const casey = await conversationWith(owner, 'Casey Customer', 'casey@example.com', 'Where is my order?');
  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  // The definitions answer late (as on a loaded server): the add form waits for them rather than
  // offering a free-text key first and swapping it for the picker under the agent's hands.
  await definitionsLate(page);
  await page.goto(`${app.url}/app/inbox/${casey.conversation}`);
  const panel = page.getByRole('complementary', { name: 'Customer' });
  await panel.getByRole('heading', { name: 'Casey Customer' }).waitFor();

  const attributes = panel.getByRole('region', { name: 'Attributes' });
  const add = attributes.getByRole('form', { name: 'Add attribute' });
  await add.getByLabel('Attribute name').selectOption('plan');
  await add.getByLabel('Attribute value').selectOption('pro');
  await add.getByRole('button', { name: 'Add' }).click();
  await attributes.locator('.attr-value', { hasText: 'pro' }).waitFor();
  await add.getByLabel('Attribute name').selectOption('renewal');
  await add.getByLabel('Attribute value').fill('2026-03-01');
  await add.getByRole('button', { name: 'Add' }).click();
  await attributes.getByText('2026-03-01').waitFor();
  await add.getByLabel('Attribute name').selectOption('orders');
  await add.getByLabel('Attribute value').fill('many');
  await add.getByRole('button', { name: 'Add' }).click();
  await attributes.getByText('The value is not a number').waitFor();
  await add.getByLabel('Attribute value').fill('12');
  await add.getByRole('button', { name: 'Add' }).click();
  await attributes.locator('.attr-value', { hasText: '12' }).waitFor();
  await attributes.locator('dt', { hasText: 'Renewal date' }).waitFor();
  const [stored] = await app.sql(`select attributes from customers where id = $1`, [casey.customer]);
  t.deepEqual(stored.attributes, { plan: 'pro', renewal: '2026-03-01', orders: 12 });

  // Notes: an older page exists beyond the first 20.
  for (let i = 1; i <= 21; i += 1)
    await app.request('POST', `/api/v1/customers/${casey.number}/notes`, { token: owner.token, body: { body: `Earlier note ${i}` } });
  await page.reload();
  const notes = panel.getByRole('region', { name: 'Notes' });
  await notes.getByText('Earlier note 21').waitFor();
  t.false(await notes.getByText('Earlier note 1', { exact: true }).isVisible());
  await notes.getByRole('button', { name: 'Show older notes' }).click();
  await notes.getByText('Earlier note 1', { exact: true }).waitFor();
  await notes.getByRole('textbox', { name: 'Customer note' }).fill('Prefers e-mail; call only after 5 pm.');
  await notes.getByRole('button', { name: 'Save note' }).click();
  await notes.getByRole('list', { name: 'Customer notes' }).getByRole('listitem').first().getByText('Prefers e-mail; call only after 5 pm.').waitFor();
  t.is((await app.sql(`select count(*)::int as n from customer_notes where customer_id = $1`, [casey.customer]))[0].n, 22);
  page.once('dialog', (d) => void d.accept());
  await notes
    .getByRole('button', { name: /^Delete note by Olive Owner/ })
    .first()
    .click();
  await notes.getByText('Prefers e-mail; call only after 5 pm.').waitFor({ state: 'detached' });
  await notes.getByRole('textbox', { name: 'Customer note' }).fill('Asked for a refund on the March invoice.');
  await notes.getByRole('button', { name: 'Save note' }).click();
  await notes.getByText('Asked for a refund on the March invoice.').waitFor();
  await add.getByRole('combobox', { name: 'Attribute name' }).waitFor();
  await attributes.scrollIntoViewIfNeeded();
  await shoot(page, 'panel-notes-desktop');
  t.deepEqual(await accessibilityViolations(page), []);
  t.deepEqual(errors, []);
  await context.close();

  // An agent: adds a note, cannot delete the owner's.
  const agent = await addMember(app, owner.businessId, 'agent', { name: 'Ada Agent' });
  const phone = await appPage(browser, app.url, agent.token, PHONE);
  await phone.page.goto(`${app.url}/app/inbox/${casey.conversation}`);
  await phone.page.getByRole('button', { name: 'Customer', exact: true }).click();
  const phoneNotes = phone.page.getByRole('complementary', { name: 'Customer' }).getByRole('region', { name: 'Notes' });
  await phoneNotes.getByText('Asked for a refund on the March invoice.').waitFor();
  t.is(await phoneNotes.getByRole('button', { name: /^Delete note by Olive Owner/ }).count(), 0);
  await phoneNotes.getByRole('textbox', { name: 'Customer note' }).fill('Called back, all good.');
  await phoneNotes.getByRole('button', { name: 'Save note' }).click();
  await phoneNotes.getByRole('button', { name: /^Delete note by Ada Agent/ }).waitFor();
  await phoneNotes.scrollIntoViewIfNeeded();
  await shoot(phone.page, 'panel-notes-phone');
  t.true((await overflow(phone.page)) <= 0);
  t.deepEqual(phone.errors, []);
  await phone.context.close();
});

browserTest('Customers page: filter by attribute, page through, export CSV, import CSV with per-row errors', async (t) => {
  for (let i = 1; i <= 55; i += 1)
    await app.sql(`insert into customers (business_id, name, email, attributes) values ($1, $2, $3, $4)`, [
      owner.businessId,
      `Bulk ${String(i).padStart(2, '0')}`,
      `bulk${i}@example.com`,
      JSON.stringify({ plan: i % 5 === 0 ? 'enterprise' : 'free', orders: i }),
    ]);
  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  await page.goto(`${app.url}/app/customers`);
  const list = page.getByRole('list', { name: 'Customers' });
  await list.getByRole('listitem', { name: 'Bulk 55' }).waitFor();
  t.is(await list.locator('.customer-row').count(), 50);
  await page.getByRole('button', { name: 'Show more' }).click();
  await list.getByRole('listitem', { name: 'Bulk 01' }).waitFor();

  const filter = page.getByRole('form', { name: 'Filter by attribute' });
  await filter.getByLabel('Filter attribute').selectOption('plan');
  await filter.getByLabel('Filter value').selectOption('enterprise');
  await filter.getByRole('button', { name: 'Filter' }).click();
  await page.getByText('Showing customers whose Plan is enterprise.').waitFor();
  await waitFor(async () => ((await list.locator('.customer-row').count()) === 11 ? true : null), 10_000, 'eleven enterprise customers');
  t.true(await list.getByRole('listitem', { name: 'Bulk 55' }).isVisible());
  t.is(await list.getByRole('listitem', { name: 'Bulk 54' }).count(), 0);
  await shoot(page, 'customers-filtered-desktop');

  // Export: a CSV download with the attribute columns.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  t.regex(download.suggestedFilename(), /^parley-customers-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = readFileSync((await download.path())!, 'utf8');
  t.true(csv.startsWith('id,uuid,name,email,phone,external_id,created_at,attr.plan,attr.orders,attr.renewal,attr.vip'), csv.slice(0, 200));
  t.true(csv.includes('Bulk 55'));

  // Import: one update, one new, one bad row.
  const file = path.join(tmpdir(), `parley-import-${Date.now()}.csv`);
  writeFileSync(
    file,
    'name,email,attr.plan,attr.orders\nBulk Fifty-Five,bulk55@example.com,pro,99\nNew Lead,lead@example.com,free,1\nBroken,broken@example.com,platinum,1\n',
  );
  await page.getByLabel('Import customers from a CSV file').setInputFiles(file);
  const result = page.getByRole('status', { name: 'Import result' });
  await result.getByText('Imported: 1 new, 1 updated, 1 problem (those rows were skipped).').waitFor();
  await result.getByText('Line 4, attr.plan: plan must be one of: free, pro, enterprise').waitFor();
  await shoot(page, 'customers-import-desktop');
  const [updated] = await app.sql(`select name, attributes from customers where business_id = $1 and email = 'bulk55@example.com'`, [owner.businessId]);
  t.deepEqual(updated, { name: 'Bulk Fifty-Five', attributes: { plan: 'pro', orders: 99 } });
  await page.getByRole('button', { name: 'Clear filter' }).click();
  await page.getByLabel('Search customers').fill('lead@');
  await list.getByRole('listitem', { name: 'New Lead' }).waitFor();
  t.deepEqual(await accessibilityViolations(page), []);
  t.deepEqual(errors, []);
  await context.close();

  // An agent: the list and filter, no export or import; phone width.
  const agent = await addMember(app, owner.businessId, 'agent', { name: 'Abe Agent' });
  const phone = await appPage(browser, app.url, agent.token, PHONE);
  // Late definitions again: the filter waits for them too.
  await definitionsLate(phone.page);
  await phone.page.goto(`${app.url}/app/customers`);
  await phone.page.getByRole('list', { name: 'Customers' }).locator('.customer-row').first().waitFor();
  t.is(await phone.page.getByRole('button', { name: 'Export CSV' }).count(), 0);
  t.is(await phone.page.getByLabel('Import customers from a CSV file').count(), 0);
  const phoneFilter = phone.page.getByRole('form', { name: 'Filter by attribute' });
  await phoneFilter.getByLabel('Filter attribute').selectOption('orders');
  await phoneFilter.getByLabel('Filter value').fill('12');
  await phoneFilter.getByRole('button', { name: 'Filter' }).click();
  const phoneList = phone.page.getByRole('list', { name: 'Customers' });
  // Bulk 12, and Casey from the panel test (12 orders there too).
  await waitFor(async () => ((await phoneList.locator('.customer-row').count()) === 2 ? true : null), 10_000, 'only the customers with 12 orders');
  t.true(await phoneList.getByRole('listitem', { name: 'Bulk 12' }).isVisible());
  t.true(await phoneList.getByRole('listitem', { name: 'Casey Customer' }).isVisible());
  t.true((await overflow(phone.page)) <= 0);
  await shoot(phone.page, 'customers-phone');
  t.deepEqual(phone.errors, []);
  await phone.context.close();
});

browserTest('Settings → Website widget: the identity secret, shown and rotated', async (t) => {
  const widget = await app.request('POST', '/api/v1/widget/create', { token: owner.token, body: { domain: 'shop.example' } });
  for (const viewport of [undefined, PHONE]) {
    const { page, context, errors } = await appPage(browser, app.url, owner.token, viewport);
    await page.goto(`${app.url}/app/settings/widget`);
    const box = page.getByRole('region', { name: 'Identity verification for shop.example' });
    await box.getByRole('button', { name: 'Show secret' }).click();
    const before = (await box.getByLabel('Identity secret', { exact: true }).textContent())!;
    t.regex(before, /^[0-9a-f]{64}$/);
    page.once('dialog', (d) => void d.accept());
    await box.getByRole('button', { name: 'Rotate secret' }).click();
    await box.getByText('A new secret is in use').waitFor();
    const after = (await box.getByLabel('Identity secret', { exact: true }).textContent())!;
    t.not(after, before);
    t.is((await app.request('GET', `/api/v1/widget/${widget.body.id}/identity-secret`, { token: owner.token })).body.secret, after);
    await box.scrollIntoViewIfNeeded();
    await shoot(page, `widget-identity-${viewport ? 'phone' : 'desktop'}`);
    if (viewport) t.true((await overflow(page)) <= 0);
    t.deepEqual(errors, []);
    await context.close();
  }
});

browserTest('Settings → Webhooks: Redeliver sends the same event again, signed, and lists it', async (t) => {
  const hook = await app.request('POST', '/api/v1/webhooks', {
    token: owner.token,
    body: { url: receiver.url('app-redeliver'), events: ['conversation.created'] },
  });
  receiver.secrets.set('/hooks/app-redeliver', hook.body.secret);
  await app.request('POST', '/api/v1/conversations', { token: owner.token, body: { business_id: owner.businessId, initial_message: 'Hello' } });
  const received = () => receiver.verified.filter((r) => r.path === '/hooks/app-redeliver');
  await waitFor(async () => (received().length >= 1 ? true : null), 20_000, 'first delivery');
  for (const viewport of [undefined, PHONE]) {
    const { page, context, errors } = await appPage(browser, app.url, owner.token, viewport);
    await page.goto(`${app.url}/app/settings/webhooks`);
    const deliveries = page.getByRole('list', { name: `Deliveries to ${receiver.url('app-redeliver')}` });
    await deliveries.getByText('delivered').first().waitFor();
    const count = received().length;
    await deliveries
      .getByRole('button', { name: /^Redeliver conversation\.created/ })
      .last()
      .click();
    await waitFor(async () => (received().length > count ? true : null), 20_000, 'redelivered');
    t.is(received().at(-1)!.json.id, received()[0]!.json.id, 'the same event id');
    await page.getByRole('button', { name: `Refresh deliveries of ${receiver.url('app-redeliver')}` }).click();
    await deliveries
      .getByText(/redelivery/)
      .first()
      .waitFor();
    await waitFor(
      async () => {
        await page.getByRole('button', { name: `Refresh deliveries of ${receiver.url('app-redeliver')}` }).click();
        return (await deliveries.locator('.delivery-pending').count()) === 0 ? true : null;
      },
      20_000,
      'all delivered',
    );
    await deliveries.scrollIntoViewIfNeeded();
    await shoot(page, `webhook-redeliver-${viewport ? 'phone' : 'desktop'}`);
    if (viewport) t.true((await overflow(page)) <= 0);
    t.deepEqual(errors, []);
    await context.close();
  }
  t.is(receiver.refused.filter((r) => r.path === '/hooks/app-redeliver').length, 0);
});
