/**
 * Canned responses that read well whoever the customer is (issue 38, item 5): a placeholder
 * takes a fallback (`{{customer.name | default: "there"}}`) used when its value is empty, a
 * visitor's generated name counts as no name, and the `/` picker shows the chosen reply as it
 * will be inserted in this conversation before it is.
 */
import test from 'ava';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { fillPlaceholders } from '../core/commands/canned-responses.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { accessibilityViolations, appPage, artifactDir, browserTest, DESKTOP, hasChromium, launchChromium, PHONE } from './helpers/browser.ts';

let app: TestApp;
let owner: Workspace;
let browser: Browser | undefined;
let widgetId = '';
let cannedId = '';
const shots = artifactDir('first-day');
const TEMPLATE = 'Hi {{customer.first_name | default: "there"}}, sorry about that! {{agent.name}}';

test.before(async () => {
  app = await startTestApp();
  owner = await createWorkspace(app, { name: 'Rhea Owner' });
  const widget = await app.request('POST', '/api/v1/widget/create', { token: owner.token, body: { domain: '*' } });
  widgetId = widget.body.id;
  const canned = await app.request('POST', '/api/v1/canned-responses', { token: owner.token, body: { short_code: 'sorry', content: TEMPLATE } });
  if (canned.status !== 200) throw new Error(canned.text);
  cannedId = canned.body.id;
  if (hasChromium) browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

const values = { 'customer.name': null, 'customer.first_name': null, 'customer.email': null, 'agent.name': 'Ana', 'business.name': 'Acme' };

test('a fallback fills an empty or missing value; a value wins; unknown placeholders stay as typed', (t) => {
  t.is(fillPlaceholders('Hi {{customer.name | default: "there"}}!', values), 'Hi there!');
  t.is(fillPlaceholders("Hi {{ customer.name|default:'friend' }}!", values), 'Hi friend!');
  t.is(fillPlaceholders('Hi {{customer.name | default: "there"}}!', { ...values, 'customer.name': '   ' }), 'Hi there!');
  t.is(fillPlaceholders('Hi {{customer.name | default: "there"}}!', { ...values, 'customer.name': 'Maria Lopez' }), 'Hi Maria Lopez!');
  t.is(fillPlaceholders('Hi {{customer.name}}!', values), 'Hi !', 'no fallback: empty as before');
  t.is(fillPlaceholders('{{order.total | default: "0"}}', values), '{{order.total | default: "0"}}');
  // Filled in one pass: a value that looks like a fallback placeholder is not filled again.
  t.is(fillPlaceholders('{{agent.name}}', { ...values, 'agent.name': '{{customer.name | default: "x"}}' }), '{{customer.name | default: "x"}}');
});

async function visitorConversation(name?: string): Promise<string> {
  const session = await app.request('POST', '/api/v1/visitor/sessions', { body: { widget_id: widgetId, ...(name ? { name } : {}) } });
  const sent = await app.request('POST', '/api/v1/visitor/messages', {
    headers: { authorization: `Bearer ${session.body.visitor_token}` },
    body: { content: 'The parcel never came.' },
  });
  if (sent.status !== 200) throw new Error(sent.text);
  return sent.body.conversation_id;
}

const render = async (conversationId: string) =>
  (await app.request('POST', `/api/v1/canned-responses/${cannedId}/render`, { token: owner.token, body: { conversation_id: conversationId } })).body.content;

test('a visitor known only by a generated name is greeted with the fallback; their own first name once they give it', async (t) => {
  const anonymous = await visitorConversation();
  t.is(await render(anonymous), 'Hi there, sorry about that! Rhea Owner');
  const named = await visitorConversation('Maria Lopez');
  t.is(await render(named), 'Hi Maria, sorry about that! Rhea Owner');
});

browserTest('the / picker shows the reply as it will be inserted, then inserts it', async (t) => {
  const conversationId = await visitorConversation();
  for (const [viewport, label] of [
    [DESKTOP, 'desktop'],
    [PHONE, 'phone'],
  ] as const) {
    const { page, context, errors } = await appPage(browser!, app.url, owner.token, viewport);
    await page.goto(`${app.url}/app/inbox/${conversationId}`);
    const reply = page.getByRole('textbox', { name: 'Reply' });
    await reply.click();
    await page.keyboard.type('/sor');
    const picker = page.getByRole('listbox', { name: 'Canned responses' });
    await picker.getByRole('option', { name: /\/sorry/ }).waitFor();
    await page.locator('.canned-preview', { hasText: 'Inserts: Hi there, sorry about that! Rhea Owner' }).waitFor();
    await page.screenshot({ path: path.join(shots, `canned-preview-${label}.png`) });
    t.deepEqual(await accessibilityViolations(page), []);
    await page.keyboard.press('Enter');
    await page.waitForFunction(
      (want) => (globalThis as any).document.querySelector('textarea[aria-label="Reply"]')?.value === want,
      'Hi there, sorry about that! Rhea Owner',
    );
    t.deepEqual(errors, []);
    await context.close();
  }
});
