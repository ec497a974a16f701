/**
 * The reply box as an agent uses it all day, in a real browser. Answering in quick succession: sending empties the reply box at
 * once, the next reply is written (and sent) while the first is still on its way, replies are
 * stored in the order they were sent, and what the agent types meanwhile is never wiped. A reply
 * that fails comes back into the box with the reason, with the ones sent after it (none goes out
 * before it). A half-written reply stays with its conversation until sent. The network is held
 * with Playwright's routing; the server is real.
 */
import test from 'ava';
import path from 'node:path';
import type { Browser, Page, Route } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, visitorWrites, type Workspace } from './helpers/fixtures.ts';
import { waitFor } from './helpers/worker.ts';
import { accessibleName, appPage, artifactDir, browserTest, DESKTOP, hasChromium, launchChromium, noteIfSkipped } from './helpers/browser.ts';

noteIfSkipped('app-browser-quick-replies');

let app: TestApp;
let browser: Browser;
let owner: Workspace;
let widgetId = '';
const shots = artifactDir('quick-replies');

test.before(async () => {
  if (!hasChromium) return;
  app = await startTestApp();
  owner = await createWorkspace(app, { name: 'Olive Owner' });
  widgetId = (await app.request('POST', '/api/v1/widget/create', { token: owner.token, body: { domain: 'shop.example.com' } })).body.id;
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

const visitorConversation = async (name: string) => (await visitorWrites(app, widgetId, name, 'Hello?')).conversationId;

/** Holds the browser's first reply (POST …/messages) until `release()`; the ones after it pass (or fail: `failFirst`). */
async function holdFirstReply(page: Page, options: { failFirst?: boolean } = {}) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const posted: string[] = [];
  await page.route('**/api/v1/conversations/*/messages', async (route: Route) => {
    if (route.request().method() !== 'POST') return route.continue();
    posted.push(JSON.parse(route.request().postData() ?? '{}').content);
    if (posted.length > 1) return route.continue();
    await released;
    if (options.failFirst)
      return route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ detail: 'The service is unavailable, try again' }) });
    return route.continue();
  });
  return { release, posted };
}

const stored = (conversationId: string) =>
  app.sql(`select content from messages where conversation_id = $1 and sender_type = 'agent' order by created_at, id`, [conversationId]);

browserTest(
  'quick replies: the box empties at once, the next is written while the first goes, they are stored in order, and typing is never wiped',
  async (t) => {
    const conversation = await visitorConversation('Quentin Quick');
    const { page, errors } = await appPage(browser, app.url, owner.token, DESKTOP);
    const network = await holdFirstReply(page);
    await page.goto(`${app.url}/app/inbox/${conversation}`);
    const reply = page.getByRole('textbox', { name: 'Reply' });
    await page.getByRole('log', { name: 'Messages' }).getByText('Hello?').waitFor();

    await reply.fill('First: let me look that up.');
    await reply.press('Enter');
    t.is(await reply.inputValue(), '', 'the box is empty while the first reply is on its way');
    await page.getByRole('status').filter({ hasText: 'Sending…' }).waitFor();
    await reply.fill('Second: found it, it ships today.');
    await reply.press('Enter');
    t.is(await reply.inputValue(), '');
    // The agent goes on writing a third while the first two are still out.
    await reply.fill('Third, still being written');
    await page.screenshot({ path: path.join(shots, 'sending.png') });
    t.deepEqual(network.posted, ['First: let me look that up.'], 'the second waits for the first');

    network.release();
    await waitFor(async () => (await stored(conversation)).length === 2, 10_000, 'both replies stored');
    t.deepEqual(
      (await stored(conversation)).map((r) => r.content),
      ['First: let me look that up.', 'Second: found it, it ships today.'],
    );
    await page.getByRole('log', { name: 'Messages' }).getByText('Second: found it').waitFor();
    await page.getByRole('status').filter({ hasText: 'Sending…' }).waitFor({ state: 'detached' });
    t.is(await reply.inputValue(), 'Third, still being written', 'what was typed meanwhile is still there');
    t.deepEqual(errors, []);
    await page.context().close();
  },
);

browserTest('a reply that fails comes back into the box with the reason, with the one sent after it; neither goes out', async (t) => {
  const conversation = await visitorConversation('Fiona Fail');
  const { page, errors } = await appPage(browser, app.url, owner.token, DESKTOP);
  const network = await holdFirstReply(page, { failFirst: true });
  await page.goto(`${app.url}/app/inbox/${conversation}`);
  const reply = page.getByRole('textbox', { name: 'Reply' });
  await page.getByRole('log', { name: 'Messages' }).getByText('Hello?').waitFor();

  await reply.fill('One');
  await reply.press('Enter');
  await reply.fill('Two');
  await reply.press('Enter');
  await reply.fill('Three (not sent yet)');
  network.release();
  const alert = page.getByRole('alert');
  await alert.filter({ hasText: 'Not sent' }).waitFor();
  t.regex(await alert.innerText(), /The service is unavailable, try again\. It is back in the box, with the one you sent after it\./);
  t.is(await reply.inputValue(), 'One\n\nTwo\n\nThree (not sent yet)');
  t.deepEqual(network.posted, ['One'], '"Two" never left the browser');
  t.deepEqual(await stored(conversation), []);
  await page.screenshot({ path: path.join(shots, 'failed.png') });
  t.deepEqual(errors, []);
  await page.context().close();
});

browserTest('a half-written reply stays with its conversation (another opened, a reload) until it is sent; signing out removes it', async (t) => {
  const first = await visitorConversation('Dora Draft');
  const second = await visitorConversation('Otto Other');
  // A session of its own: signing out at the end revokes it, not the token the other tests use.
  const signedIn = await app.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: 'password123' } });
  const { page, errors } = await appPage(browser, app.url, signedIn.body.access_token, DESKTOP);
  await page.goto(`${app.url}/app/inbox/${first}`);
  const reply = page.getByRole('textbox', { name: 'Reply' });
  const list = page.getByRole('list', { name: 'Conversations' });
  await page.getByRole('log', { name: 'Messages' }).getByText('Hello?').waitFor();
  await reply.fill('Half-written: your refund was approved and');

  // Another conversation: its own empty box; the first is marked as having a draft.
  await list.locator(`li[data-id="${second}"]`).getByRole('link').click();
  await page.getByRole('region', { name: 'Conversation with Otto Other' }).waitFor();
  t.is(await reply.inputValue(), '');
  const firstRow = list.locator(`li[data-id="${first}"]`);
  await firstRow.locator('.draft-pill').waitFor();
  t.regex(await accessibleName(firstRow.getByRole('link')), /\bDraft\b/);
  await page.screenshot({ path: path.join(shots, 'draft-in-list.png') });

  // Back, and after a reload: still there.
  await firstRow.getByRole('link').click();
  await page.getByRole('region', { name: 'Conversation with Dora Draft' }).waitFor();
  t.is(await reply.inputValue(), 'Half-written: your refund was approved and');
  await page.reload();
  await page.getByRole('log', { name: 'Messages' }).getByText('Hello?').waitFor();
  t.is(await reply.inputValue(), 'Half-written: your refund was approved and');

  // Sent: gone from the box, for good.
  await reply.fill('Your refund was approved and is on its way.');
  await reply.press('Enter');
  await page.getByRole('log', { name: 'Messages' }).getByText('Your refund was approved').waitFor();
  await page.reload();
  await page.getByRole('log', { name: 'Messages' }).getByText('Your refund was approved').waitFor();
  t.is(await reply.inputValue(), '');
  t.is(await list.locator('.draft-pill').count(), 0);

  // Signing out removes the drafts kept in this browser.
  await reply.fill('Something private for this customer');
  await list.locator(`li[data-id="${second}"]`).getByRole('link').click();
  await firstRow.locator('.draft-pill').waitFor();
  t.true(await page.evaluate(() => Object.keys((globalThis as any).localStorage).some((k: string) => k.startsWith('parley.draft.'))));
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  t.false(await page.evaluate(() => Object.keys((globalThis as any).localStorage).some((k: string) => k.startsWith('parley.draft.'))));
  t.deepEqual(errors, []);
  await page.context().close();
});

browserTest(
  'a private note that fails comes back as a note, even after the box was switched to Reply: it can never go to the customer by a second Enter',
  async (t) => {
    const conversation = await visitorConversation('Nora Note');
    const { page, errors } = await appPage(browser, app.url, owner.token, DESKTOP);
    const network = await holdFirstReply(page, { failFirst: true });
    await page.goto(`${app.url}/app/inbox/${conversation}`);
    await page.getByRole('log', { name: 'Messages' }).getByText('Hello?').waitFor();
    await page.getByRole('tab', { name: 'Private note' }).click();
    const note = page.getByRole('textbox', { name: 'Private note' });
    await note.fill('Internal: refund approved by finance, do not mention the amount');
    await note.press('Enter');
    // The agent turns to the customer while the note is on its way.
    await page.getByRole('tab', { name: 'Reply' }).click();
    await page.getByRole('textbox', { name: 'Reply' }).fill('Thanks for waiting');
    network.release();
    await page.getByRole('alert').filter({ hasText: 'Not sent' }).waitFor();
    const box = page.getByRole('textbox', { name: 'Private note' });
    t.is(await box.inputValue(), 'Internal: refund approved by finance, do not mention the amount\n\nThanks for waiting');
    t.is(await page.getByRole('textbox', { name: 'Reply' }).count(), 0, 'the box is a note again');
    t.deepEqual(await stored(conversation), []);
    t.deepEqual(errors, []);
    await page.context().close();
  },
);
