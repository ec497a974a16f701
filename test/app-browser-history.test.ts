/**
 * A long conversation's whole history in the agent app: the thread opens on its latest 100
 * messages and "Show earlier messages" brings the 100 before them, again and again until the
 * first, with the messages in view staying where they were; a message arriving live then adds
 * itself below without dropping any of the earlier ones, and without pulling an agent who reads
 * further up away from where they are ("New messages ↓" takes them there). A search hit (or a mention) on an old
 * message opens the thread at that message, marked, however far back it is.
 * Screenshots go to test-artifacts/history/.
 */
import test from 'ava';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, visitorWrites, type Workspace } from './helpers/fixtures.ts';
import { appPage, artifactDir, browserTest, DESKTOP, hasChromium, launchChromium, noteIfSkipped, PHONE } from './helpers/browser.ts';

noteIfSkipped('app-browser-history');

/** Messages in the conversation before the visitor's latest one. */
const HISTORY = 229;

let app: TestApp;
let browser: Browser;
let owner: Workspace;
let widgetId = '';
const shots = artifactDir('history');

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

/** A visitor's conversation with HISTORY older messages (h1 … h229, a minute apart) before their latest one; its visitor's token. */
async function longConversation(name: string): Promise<{ id: string; visitor: string }> {
  const { conversationId, visitor } = await visitorWrites(app, widgetId, name, 'Latest question');
  await app.sql(
    `insert into messages (business_id, conversation_id, sender_type, content, created_at)
     select $1, $2, 'customer', 'h' || g, now() - interval '1 day' + g * interval '1 minute'
     from generate_series(1, $3) g`,
    [owner.businessId, conversationId, HISTORY],
  );
  return { id: conversationId, visitor };
}

for (const [label, viewport] of [
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const) {
  browserTest(`"Show earlier messages" goes back to a long conversation's first message, and a live one keeps them all (${label})`, async (t) => {
    const conversation = await longConversation(`Hana ${label}`);
    const { page, errors } = await appPage(browser, app.url, owner.token, viewport);
    await page.goto(`${app.url}/app/inbox/${conversation.id}`);
    const log = page.getByRole('log', { name: 'Messages' });
    const texts = () => log.locator('.msg-text').allTextContents();
    await log.getByText('Latest question').waitFor();
    // The latest 100: h131 … h229 and the latest question.
    let shown = await texts();
    t.is(shown.length, 100);
    t.is(shown[0], 'h131');
    const more = page.getByRole('button', { name: 'Show earlier messages' });

    // The 100 before: the message at the top stays where it was on the screen.
    await more.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(shots, `button-${label}.png`) });
    const top = log.getByText('h131', { exact: true });
    const before = (await top.boundingBox())!.y;
    await more.click();
    await log.getByText('h31', { exact: true }).waitFor({ state: 'attached' });
    shown = await texts();
    t.is(shown.length, 200);
    t.deepEqual(shown.slice(0, 2), ['h31', 'h32']);
    t.true(Math.abs((await top.boundingBox())!.y - before) <= 2, 'the message that was at the top has not moved');
    await page.screenshot({ path: path.join(shots, `earlier-${label}.png`) });

    // The rest, and no button once the first message is shown.
    await more.click();
    await log.getByText('h1', { exact: true }).waitFor({ state: 'attached' });
    await more.waitFor({ state: 'detached' });
    shown = await texts();
    t.is(shown.length, HISTORY + 1);
    t.deepEqual(shown, [...Array.from({ length: HISTORY }, (_, i) => `h${i + 1}`), 'Latest question'], 'every message once, in order');

    // A new message moves the latest 100 on: it shows below, and h130 (no longer among them)
    // stays. The agent reading near the top stays there, told of it; the button takes them down.
    const first = log.getByText('h1', { exact: true });
    await first.scrollIntoViewIfNeeded();
    const reading = (await first.boundingBox())!.y;
    await app.request('POST', '/api/v1/visitor/messages', { headers: { authorization: conversation.visitor }, body: { content: 'One more thing' } });
    await log.getByText('One more thing').waitFor({ state: 'attached' });
    shown = await texts();
    t.is(shown.length, HISTORY + 2);
    t.is(shown[0], 'h1');
    t.is(shown.at(-1), 'One more thing');
    const below = log.getByRole('button', { name: 'New messages ↓' });
    await below.waitFor();
    t.true(Math.abs((await first.boundingBox())!.y - reading) <= 2, 'not pulled down to the new message');
    await page.screenshot({ path: path.join(shots, `new-below-${label}.png`) });
    await below.click();
    await below.waitFor({ state: 'detached' });
    t.true(await log.getByText('One more thing').isVisible());
    t.true(await log.evaluate((box: any) => box.scrollHeight - box.scrollTop - box.clientHeight < 2), 'at the bottom');
    t.deepEqual(errors, []);
    await page.context().close();
  });
}

browserTest('a search hit on a message older than the latest 100 opens the thread scrolled to it, marked (desktop and phone)', async (t) => {
  const conversation = await longConversation('Ines Search');
  const [old] = await app.sql(`update messages set content = 'Order 99417 never arrived' where conversation_id = $1 and content = 'h12' returning id`, [
    conversation.id,
  ]);
  for (const [label, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    const { page, errors } = await appPage(browser, app.url, owner.token, viewport);
    await page.getByRole('list', { name: 'Conversations' }).waitFor();
    await page.keyboard.press('Control+k');
    const dialog = page.getByRole('dialog', { name: 'Search' });
    await dialog.getByRole('searchbox', { name: 'Search conversations, customers and messages' }).fill('99417');
    await dialog
      .getByRole('region', { name: 'Messages' })
      .getByRole('link', { name: /Ines Search/ })
      .click();
    await page.waitForURL(`**/app/inbox/${conversation.id}?status=any&message=${old.id}`);
    // Two pages back (h12 is the 12th of 230), then brought into view and marked.
    const log = page.getByRole('log', { name: 'Messages' });
    const found = log.locator(`[data-id="${old.id}"]`);
    await found.waitFor();
    t.regex((await found.getAttribute('class')) ?? '', /\bfound\b/);
    await page.waitForFunction(
      (id) => {
        const doc = (globalThis as any).document;
        const el = doc.querySelector(`[data-id="${id}"]`);
        const box = doc.querySelector('[role="log"]');
        if (!el || !box) return false;
        const r = el.getBoundingClientRect();
        const b = box.getBoundingClientRect();
        return r.top >= b.top && r.bottom <= b.bottom;
      },
      old.id,
      { timeout: 10_000 },
    );
    t.is(await log.locator('.msg-text').count(), HISTORY + 1, 'the pages back to it, and no further');
    await page.screenshot({ path: path.join(shots, `search-hit-${label}.png`) });
    t.deepEqual(errors, []);
    await page.context().close();
  }
});
