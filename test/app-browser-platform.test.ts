/**
 * API keys, webhooks and the audit log in the agent app, in a real browser: the owner creates a
 * key (shown once, then listed as prl_…), uses it, revokes it; adds a webhook endpoint on a fake
 * receiver, sends a test event and sees it delivered; reads the audit log; an agent sees none of
 * these sections. Then the same screens at phone width. Screenshots: test-artifacts/platform/.
 */
import test from 'ava';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { startTestWorker, waitFor } from './helpers/worker.ts';
import { appPage, artifactDir, browserTest, hasChromium, launchChromium, noteIfSkipped, PHONE, accessibilityViolations } from './helpers/browser.ts';
import { startWebhookReceiver, type WebhookReceiver } from './fakes/webhook-receiver.ts';
import type { SupervisedRunner } from '../workers/supervisor.ts';

noteIfSkipped('app-browser-platform');

let app: TestApp;
let browser: Browser;
let owner: Workspace;
let receiver: WebhookReceiver;
let worker: SupervisedRunner;
const shots = artifactDir('platform');

test.before(async () => {
  if (!hasChromium) return;
  [app, receiver] = await Promise.all([startTestApp(), startWebhookReceiver()]);
  owner = await createWorkspace(app, { name: 'Olive Owner' });
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
const overflow = (page: Page) => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth);

browserTest('api keys, webhooks and audit log: create, use, test, revoke, read', async (t) => {
  const { page, context, errors } = await appPage(browser, app.url, owner.token);

  // API keys: create one; the key is shown once, with a copy button.
  await page.goto(`${app.url}/app/settings/api-keys`);
  await page.getByText('No API keys yet.').waitFor();
  const form = page.getByRole('form', { name: 'New API key form' });
  await form.getByLabel('Name').fill('CRM sync');
  await form.getByRole('checkbox', { name: /^Write/ }).check();
  await form.getByLabel('Your password').fill('password123');
  await form.getByRole('button', { name: 'Create key' }).click();
  const shown = page.getByRole('status', { name: 'New API key' });
  const key = (await shown.getByLabel('API key', { exact: true }).textContent())!;
  t.regex(key, /^prl_[0-9a-f]{32}[A-Za-z0-9_-]{43}$/);
  await shown.getByRole('button', { name: 'Copy api key' }).waitFor();
  const item = page.getByRole('list', { name: 'API keys' }).getByRole('listitem', { name: 'CRM sync' });
  await item.waitFor();
  t.true((await item.textContent())!.includes(`prl_…${key.slice(-4)}`));
  t.true((await item.textContent())!.includes('never used'));
  await shoot(page, 'api-keys-desktop');
  t.is((await app.request('GET', '/api/v1/conversations', { token: key })).status, 200, 'the key works');
  await page.getByRole('button', { name: 'Done' }).click();
  t.is(await shown.count(), 0, 'shown once: gone after Done');
  await page.reload();
  await item.getByText(/last used/).waitFor();

  page.once('dialog', (dialog) => void dialog.accept());
  await item.getByRole('button', { name: 'Revoke CRM sync' }).click();
  await page.getByText('No API keys yet.').waitFor();
  t.is((await app.request('GET', '/api/v1/conversations', { token: key })).status, 401, 'revoked at once');

  // Webhooks: add an endpoint on the fake receiver, send a test event, see it delivered.
  await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Webhooks' }).click();
  await page.getByText('No webhook endpoints yet.').waitFor();
  const hookForm = page.getByRole('form', { name: 'New webhook' });
  const url = receiver.url('app');
  await hookForm.getByLabel('URL').fill(url);
  await hookForm.getByRole('checkbox', { name: 'handoff.requested' }).check();
  await hookForm.getByRole('button', { name: 'Add endpoint' }).click();
  const secret = (await page.getByRole('status', { name: 'New webhook secret' }).getByLabel('Signing secret', { exact: true }).textContent())!;
  t.regex(secret, /^whsec_/);
  receiver.secrets.set('/hooks/app', secret);
  await page.getByRole('button', { name: 'Done' }).click();
  const endpoint = page.getByRole('list', { name: 'Webhook endpoints' }).getByRole('listitem', { name: url });
  await endpoint.getByText('conversation.created, message.created, handoff.requested').waitFor();
  await endpoint.getByRole('button', { name: `Send test event to ${url}` }).click();
  // The worker sends it; then the refreshed log shows it delivered.
  await waitFor(async () => receiver.verified.some((r) => r.path === '/hooks/app'), 20_000, 'the test event');
  t.true(
    receiver.verified.some((r) => r.path === '/hooks/app' && r.json.type === 'webhook.test'),
    'delivered and signed',
  );
  await endpoint.getByRole('button', { name: `Refresh deliveries of ${url}` }).click();
  await endpoint
    .getByRole('list', { name: `Deliveries to ${url}` })
    .getByText('delivered')
    .waitFor();
  await shoot(page, 'webhooks-desktop');

  // Audit log: the key and the webhook are there, newest first.
  await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Audit log' }).click();
  const log = page.getByRole('list', { name: 'Audit log' });
  await log.getByRole('listitem', { name: 'Olive Owner added a webhook' }).waitFor();
  t.is(await log.getByRole('listitem').count(), 3);
  t.is(await log.getByRole('listitem').first().getAttribute('aria-label'), 'Olive Owner added a webhook');
  await log.getByRole('listitem', { name: 'Olive Owner revoked an API key' }).waitFor();
  await shoot(page, 'audit-log-desktop');
  t.deepEqual(await accessibilityViolations(page), []);
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('an agent does not see API keys, webhooks or the audit log', async (t) => {
  const agent = await addMember(app, owner.businessId, 'agent');
  const { page, context, errors } = await appPage(browser, app.url, agent.token);
  await page.goto(`${app.url}/app/settings/api-keys`);
  const nav = page.getByRole('navigation', { name: 'Settings' });
  await nav.getByRole('link', { name: 'Channels' }).waitFor();
  for (const name of ['API keys', 'Webhooks', 'Audit log']) t.is(await nav.getByRole('link', { name }).count(), 0, name);
  t.is(await page.getByRole('heading', { name: 'API keys' }).count(), 0);
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('api keys, webhooks and audit log at phone width', async (t) => {
  await app.request('POST', '/api/v1/api-keys', {
    token: owner.token,
    body: { name: 'A rather long integration name for the phone', scopes: ['read', 'write', 'admin'], password: 'password123' },
  });
  const { page, context, errors } = await appPage(browser, app.url, owner.token, PHONE);
  await page.goto(`${app.url}/app/settings/api-keys`);
  await page.getByRole('list', { name: 'API keys' }).getByRole('listitem').first().waitFor();
  t.true((await overflow(page)) <= 0, 'api keys fit the phone');
  await shoot(page, 'api-keys-phone');
  await page.goto(`${app.url}/app/settings/webhooks`);
  await page.getByRole('list', { name: 'Webhook endpoints' }).getByText('delivered').first().waitFor();
  t.true((await overflow(page)) <= 0, 'webhooks fit the phone');
  await shoot(page, 'webhooks-phone');
  await page.goto(`${app.url}/app/settings/audit-log`);
  await page.getByRole('list', { name: 'Audit log' }).getByRole('listitem').first().waitFor();
  t.true((await overflow(page)) <= 0, 'audit log fits the phone');
  await shoot(page, 'audit-log-phone');
  t.deepEqual(errors, []);
  await context.close();
});
