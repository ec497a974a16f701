/**
 * Text in any script, in a real browser: a customer who writes Arabic (or Hebrew, Persian, Urdu)
 * reads and is read right to left. Every place that shows what a person wrote takes its
 * direction from the text itself (`dir="auto"`), so in the inbox an Arabic message's preview
 * starts with its first word (the ellipsis at its end, on the left), its bubble reads from the
 * right edge, and the reply box turns right to left as the agent types Arabic; in the widget the
 * same holds for the visitor. A long customer name ends in an ellipsis inside its message.
 * Screenshots go to test-artifacts/bidi/.
 */
import test from 'ava';
import path from 'node:path';
import type { SupervisedRunner as Runner } from '../workers/supervisor.ts';
import type { Browser, Locator, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, visitorWrites, type Workspace } from './helpers/fixtures.ts';
import { startTestWorker, waitFor } from './helpers/worker.ts';
import { appPage, artifactDir, browserTest, DESKTOP, hasChromium, launchChromium, noteIfSkipped, PHONE, startShop, type Shop } from './helpers/browser.ts';

noteIfSkipped('app-browser-bidi');

/** Long enough that the list's one-line preview cuts it. */
const ARABIC = 'مرحبا، أريد إرجاع الطلب رقم ٤٥٦٧ لأنه وصل تالفاً وأحتاج إلى استرداد المبلغ بالكامل في أقرب وقت ممكن';
const ARABIC_REPLY = 'شكراً لك، سنرسل لك ملصق الإرجاع اليوم.';
const LONG_NAME = 'Maximiliana Alexandrina Konstantinopoulou-Vanderbilt-Montgomery the Third';

let app: TestApp;
let worker: Runner;
let browser: Browser;
let owner: Workspace;
let widgetId = '';
/** One Arabic customer's conversation per screen size (the desktop test answers its own). */
const arabicConversations: Record<'desktop' | 'phone', string> = { desktop: '', phone: '' };
let shop: Shop | undefined;
let shopUrl = '';
const shots = artifactDir('bidi');

test.before(async () => {
  if (!hasChromium) return;
  app = await startTestApp();
  worker = await startTestWorker(app, { only: ['deliver_message', 'process_inbound'] });
  owner = await createWorkspace(app, { name: 'Olive Owner', plan: 'Pro' });
  const widget = await app.request('POST', '/api/v1/widget/create', { token: owner.token, body: { domain: 'shop.example.com' } });
  widgetId = widget.body.id;
  const write = async (name: string, content: string) => (await visitorWrites(app, widgetId, name, content)).conversationId;
  await write(LONG_NAME, 'Where is my parcel? I ordered it two weeks ago and the tracking page says nothing at all.');
  arabicConversations.desktop = await write('سارة أحمد', ARABIC);
  arabicConversations.phone = await write('ليلى حسن', ARABIC);
  shop = await startShop(
    () =>
      `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title></head><body><h1>Shop</h1><script src="${app.url}/widget.js" data-widget-id="${widgetId}" async></script></body></html>`,
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

/**
 * How an element shows its text: its direction, and where its FIRST character is drawn against
 * the element's own box (`inside`: not cut off; `fromRight`/`fromLeft`: its distance from the
 * box's right and left edges, in pixels).
 */
const layoutOf = (locator: Locator) =>
  locator.evaluate((el: any) => {
    const walker = el.ownerDocument.createTreeWalker(el, 4 /* NodeFilter.SHOW_TEXT */);
    let node = walker.nextNode();
    while (node && !node.textContent.trim()) node = walker.nextNode();
    const range = el.ownerDocument.createRange();
    range.setStart(node, 0);
    range.setEnd(node, 1);
    const char = range.getBoundingClientRect();
    const box = el.getBoundingClientRect();
    return {
      rtl: el.matches(':dir(rtl)') as boolean,
      inside: char.left >= box.left - 1 && char.right <= box.right + 1,
      fromRight: Math.round(box.right - char.right),
      fromLeft: Math.round(char.left - box.left),
    };
  });

for (const [label, viewport] of [
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const) {
  browserTest(`an Arabic message reads right to left in the list, the thread and the reply box; a long name stays inside its message (${label})`, async (t) => {
    const { page, errors } = await appPage(browser, app.url, owner.token, viewport);
    const list = page.getByRole('list', { name: 'Conversations' });
    const arabicRow = list.locator(`li[data-id="${arabicConversations[label]}"]`);
    await arabicRow.waitFor();

    // The list: the preview begins with the message's first word, at the right; the English one at the left.
    const preview = await layoutOf(arabicRow.locator('.conv-preview'));
    t.true(preview.rtl);
    t.true(preview.inside, `the first word of the Arabic preview is drawn inside its box: ${JSON.stringify(preview)}`);
    t.true(preview.fromRight <= 2, JSON.stringify(preview));
    const name = await layoutOf(arabicRow.locator('.conv-name'));
    t.true(name.rtl && name.inside);
    const english = await layoutOf(list.locator('li', { hasText: 'Where is my parcel' }).locator('.conv-preview'));
    t.false(english.rtl);
    t.true(english.inside && english.fromLeft <= 2, JSON.stringify(english));
    await shoot(page, `list-${label}`);

    // The thread: the bubble reads from its right edge.
    await arabicRow.getByRole('link').click();
    const log = page.getByRole('log', { name: 'Messages' });
    const bubble = log.locator('.msg-text', { hasText: 'مرحبا' });
    await bubble.waitFor();
    const text = await layoutOf(bubble);
    t.true(text.rtl);
    t.true(text.fromRight <= 2, JSON.stringify(text));

    // The reply box follows what the agent types: Arabic right to left, then English left to right.
    const reply = page.getByRole('textbox', { name: 'Reply' });
    await reply.fill(ARABIC_REPLY);
    t.true(await reply.evaluate((el: any) => el.matches(':dir(rtl)')));
    await shoot(page, `thread-typing-${label}`);
    await reply.fill('Thanks, we will send you the return label today.');
    t.false(await reply.evaluate((el: any) => el.matches(':dir(rtl)')));
    await reply.fill(ARABIC_REPLY);
    await reply.press('Enter');
    const sent = log.locator('.msg.agent .msg-text', { hasText: 'شكراً' });
    await sent.waitFor();
    t.true((await layoutOf(sent)).rtl);

    // A very long name: the message's author line ends in an ellipsis inside the message, not past the thread.
    // (On a phone the list and the thread are one pane at a time.)
    await page.goto(`${app.url}/app/inbox`);
    await list.locator('li', { hasText: 'Where is my parcel' }).getByRole('link').click();
    const author = log.locator('.msg-author', { hasText: 'Maximiliana' });
    await author.waitFor();
    const fits = await author.evaluate((el: any) => {
      const message = el.closest('.msg').getBoundingClientRect();
      const thread = el.closest('[role="log"]').getBoundingClientRect();
      const own = el.getBoundingClientRect();
      return { insideMessage: own.right <= message.right + 1, insideThread: own.right <= thread.right, cut: el.scrollWidth > el.clientWidth };
    });
    t.deepEqual(fits, { insideMessage: true, insideThread: true, cut: true });
    await shoot(page, `long-name-${label}`);
    t.deepEqual(errors, []);
    await page.context().close();
  });
}

browserTest('in the widget, an Arabic visitor reads and writes right to left', async (t) => {
  const context = await browser.newContext({ viewport: { width: 1000, height: 760 } });
  const page = await context.newPage();
  await page.goto(shopUrl);
  await page.locator('#parley-widget .bubble').click();
  const input = page.locator('#parley-widget .input');
  await input.fill(ARABIC);
  t.true(await input.evaluate((el: any) => el.matches(':dir(rtl)')));
  await input.press('Enter');
  const mine = page.locator('#parley-widget .msg.customer .text', { hasText: 'مرحبا' });
  await mine.waitFor();
  const visitorMessage = await layoutOf(mine);
  t.true(visitorMessage.rtl);
  t.true(visitorMessage.fromRight <= 2, JSON.stringify(visitorMessage));

  // The agent answers in Arabic; the widget shows it right to left too.
  // (The widget shows the message as it sends it: the stored one may be a moment behind.)
  const row = await waitFor(
    async () => {
      const [found] = await app.sql(`select conversation_id from messages where content = $1 and conversation_id <> all($2::uuid[])`, [
        ARABIC,
        Object.values(arabicConversations),
      ]);
      return found;
    },
    10_000,
    "the widget visitor's message stored",
  );
  const answered = await app.request('POST', `/api/v1/conversations/${row.conversation_id}/messages`, { token: owner.token, body: { content: ARABIC_REPLY } });
  t.is(answered.status, 200);
  const theirs = page.locator('#parley-widget .msg.agent .text', { hasText: 'شكراً' });
  await theirs.waitFor();
  const agentMessage = await layoutOf(theirs);
  t.true(agentMessage.rtl);
  t.true(agentMessage.fromRight <= 2, JSON.stringify(agentMessage));
  await page.screenshot({ path: path.join(shots, 'widget.png') });
  await context.close();
});
