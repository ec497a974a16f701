/**
 * Every screen of the agent app in a real browser, on a desktop and on a phone, with a
 * channel connected through its form (never raw JSON) and its registration shown live (also
 * when it ended before the page's live connection was up).
 * Screenshots go to test-artifacts/app/ (look at them: they are the product's face).
 */
import test from 'ava';
import path from 'node:path';
import type { SupervisedRunner as Runner } from '../workers/supervisor.ts';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { startTestWorker, waitFor } from './helpers/worker.ts';
import {
  hasFocus,
  appPage,
  artifactDir,
  browserTest,
  DESKTOP,
  hasChromium,
  launchChromium,
  liveConnectionGate,
  noteIfSkipped,
  PHONE,
  accessibilityViolations,
} from './helpers/browser.ts';
import { startFakeTelegram, type FakeTelegram } from './fakes/telegram.ts';
import { channelUpdated } from '../core/commands/channel-runtime.ts';
import { publishEvents } from '../core/events/live.ts';
import { startFakeOllama, type FakeOllama } from './fakes/ollama.ts';

noteIfSkipped('app-browser-screens');

let app: TestApp;
let fake: FakeTelegram;
let ollama: FakeOllama;
let worker: Runner;
let browser: Browser;
let owner: Workspace;
const shots = artifactDir('app');

test.before(async () => {
  if (!hasChromium) return;
  fake = await startFakeTelegram();
  ollama = await startFakeOllama();
  app = await startTestApp({ env: { TELEGRAM_API_URL: fake.url, OLLAMA_URL: ollama.url } });
  worker = await startTestWorker(app, { only: ['deliver_message', 'process_inbound', 'register_channel', 'index_article'] });
  owner = await createWorkspace(app, { name: 'Olive Owner', plan: 'Pro' });
  // Something to look at: a visitor's question, an agent's answer, an article.
  const widget = await app.request('POST', '/api/v1/widget/create', { token: owner.token, body: { domain: 'shop.example.com' } });
  await app.request('POST', '/api/v1/widget/create', {
    token: owner.token,
    body: { domain: 'help.example.com', name: 'Help centre', primary_color: '#0F766E' },
  });
  const session = await app.request('POST', '/api/v1/visitor/sessions', {
    body: { widget_id: widget.body.id, name: 'Marta Visitor', email: 'marta@example.com' },
  });
  const visitor = { authorization: `Bearer ${session.body.visitor_token}` };
  const first = await app.request('POST', '/api/v1/visitor/messages', { headers: visitor, body: { content: 'Do you ship to Norway?' } });
  await app.request('POST', `/api/v1/conversations/${first.body.conversation_id}/messages`, {
    token: owner.token,
    body: { content: 'We do! Delivery takes 3–5 working days.' },
  });
  await app.request('POST', '/api/v1/visitor/messages', { headers: visitor, body: { content: 'Great, and returns?' } });
  await app.request('POST', '/api/v1/kb/articles', {
    token: owner.token,
    body: { title: 'Shipping to Europe', content: 'We ship to every EU and EEA country in 3–5 working days.', tags: ['shipping'] },
  });
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await worker?.stop();
  await app?.close();
  await fake?.close();
  await ollama?.close();
});

const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(shots, `${name}.png`) });

browserTest('a channel is connected through its form and its registration shows live', async (t) => {
  const botToken = fake.addBot({ username: 'acme_help_bot' });
  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  await page.goto(`${app.url}/app/settings/channels`);
  await page.getByRole('button', { name: 'Telegram' }).click();
  await page.getByLabel('Bot token').fill(botToken);
  await shoot(page, 'channel-form-desktop');
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  const card = page.getByRole('listitem', { name: 'Telegram' });
  await card.getByText('Connected').waitFor();
  const [row] = await app.sql(`select status from channels where type = 'telegram' and business_id = $1`, [owner.businessId]);
  t.is(row.status, 'connected');
  await shoot(page, 'channels-desktop');
  t.deepEqual(errors, []);
  await context.close();
});

browserTest("a channel's registration that ends before the live connection is up shows once it is", async (t) => {
  const team = await createWorkspace(app, { name: 'Cleo Channels', plan: 'Pro' });
  const gate = liveConnectionGate();
  const { page, context, errors } = await appPage(browser, app.url, team.token, DESKTOP, gate.hold);
  await page.goto(`${app.url}/app/settings/channels`);
  await page.getByRole('heading', { name: 'Connect a channel' }).waitFor();
  await waitFor(async () => gate.opening(), 10_000, 'the app opening its live connection');
  // Connected elsewhere (another tab, the API) and registered, all before this tab's socket is up.
  const created = await app.request('POST', '/api/v1/channels', {
    token: team.token,
    body: { type: 'telegram', config: { bot_token: fake.addBot({ username: 'cleo_help_bot' }) } },
  });
  t.is(created.status, 200, created.text);
  await waitFor(
    async () => app.events.some((e) => e.name === 'channel_updated' && e.payload.channel_id === created.body.id && e.payload.status === 'connected'),
    20_000,
    'the registration',
  );
  const card = page.getByRole('listitem', { name: /Telegram/ });
  t.is(await card.count(), 0, 'not shown while the connection is held');
  gate.release();
  await card.getByText('Connected').waitFor({ timeout: 10_000 });
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('a channel the platform asked to slow down says until when replies wait, and stops saying so then (desktop, then phone)', async (t) => {
  const team = await createWorkspace(app, { name: 'Hal Held', plan: 'Pro' });
  const created = await app.request('POST', '/api/v1/channels', {
    token: team.token,
    body: { type: 'telegram', config: { bot_token: fake.addBot({ username: 'hal_help_bot' }) } },
  });
  t.is(created.status, 200, created.text);
  // As the delivery drain records a 429 with Retry-After (test/delivery-order.test.ts sends one).
  await app.sql(`update channels set send_held_until = now() + interval '10 minutes' where id = $1`, [created.body.id]);
  for (const [device, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    const { page, context, errors } = await appPage(browser, app.url, team.token, viewport);
    // The page's clock, to move past the hold without waiting for it.
    await page.clock.install();
    await page.goto(`${app.url}/app/settings/channels`);
    const card = page.getByRole('listitem', { name: /Telegram/ });
    const notice = card.getByText('Telegram asked Parley to slow down: replies on this channel wait until');
    await notice.waitFor();
    await shoot(page, `channel-held-${device}`);
    // The hold's end sends no event: the notice goes at that time, without a reload.
    await page.clock.fastForward('10:01');
    await notice.waitFor({ state: 'detached' });
    t.deepEqual(errors, []);
    await context.close();
  }

  // A hold that starts while the page is open (an hour in, by its clock) ends on time too.
  await app.sql('update channels set send_held_until = null where id = $1', [created.body.id]);
  const { page, context, errors } = await appPage(browser, app.url, team.token);
  await page.clock.install();
  await page.goto(`${app.url}/app/settings/channels`);
  const card = page.getByRole('listitem', { name: /Telegram/ });
  await card.waitFor();
  // An hour on (timers not run, so the live connection stays up).
  await page.clock.setSystemTime(Date.now() + 60 * 60 * 1000);
  await app.sql(`update channels set send_held_until = now() + interval '70 minutes' where id = $1`, [created.body.id]);
  await publishEvents(app.deps, [channelUpdated({ id: created.body.id, business_id: team.businessId }, 'connected')]);
  const notice = card.getByText('Telegram asked Parley to slow down: replies on this channel wait until');
  await notice.waitFor();
  await page.clock.fastForward('10:01');
  await notice.waitFor({ state: 'detached' });
  t.deepEqual(errors, []);
  await context.close();
});

/** `list` in consecutive groups of at most `size`. */
function inGroups<T>(list: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, (i + 1) * size));
}

/** `title`: the page's part of the tab's title (app/shell/title.ts). */
const SCREENS: { name: string; path: string; heading: string; title: string }[] = [
  { name: 'inbox', path: '/app/inbox', heading: 'Inbox', title: 'Inbox' },
  { name: 'channels', path: '/app/settings/channels', heading: 'Channels', title: 'Channels · Settings' },
  { name: 'widget', path: '/app/settings/widget', heading: 'Website widget', title: 'Website widget · Settings' },
  { name: 'knowledge', path: '/app/settings/knowledge', heading: 'Knowledge base', title: 'Knowledge base · Settings' },
  { name: 'team', path: '/app/settings/team', heading: 'Team', title: 'Team · Settings' },
  { name: 'plan', path: '/app/settings/plan', heading: 'Plan', title: 'Plan & billing · Settings' },
  { name: 'ai', path: '/app/settings/ai', heading: 'AI agent', title: 'AI agent · Settings' },
  { name: 'account', path: '/app/settings/account', heading: 'Your account', title: 'Your account · Settings' },
  { name: 'labels', path: '/app/settings/labels', heading: 'Labels', title: 'Labels · Settings' },
  { name: 'customer-attributes', path: '/app/settings/customer-attributes', heading: 'Customer attributes', title: 'Customer attributes · Settings' },
  { name: 'canned-responses', path: '/app/settings/canned-responses', heading: 'Canned responses', title: 'Canned responses · Settings' },
  { name: 'teams', path: '/app/settings/teams', heading: 'Teams', title: 'Teams · Settings' },
  { name: 'assignment', path: '/app/settings/assignment', heading: 'Assignment', title: 'Assignment · Settings' },
  { name: 'business-hours', path: '/app/settings/business-hours', heading: 'Business hours', title: 'Business hours · Settings' },
  { name: 'sla', path: '/app/settings/sla', heading: 'SLA policies', title: 'SLA policies · Settings' },
  { name: 'csat', path: '/app/settings/csat', heading: 'Customer satisfaction', title: 'Satisfaction · Settings' },
  { name: 'api-keys', path: '/app/settings/api-keys', heading: 'API keys', title: 'API keys · Settings' },
  { name: 'webhooks', path: '/app/settings/webhooks', heading: 'Webhooks', title: 'Webhooks · Settings' },
  { name: 'audit-log', path: '/app/settings/audit-log', heading: 'Audit log', title: 'Audit log · Settings' },
  { name: 'security', path: '/app/settings/security', heading: 'Security', title: 'Security · Settings' },
  { name: 'retention', path: '/app/settings/retention', heading: 'Data retention', title: 'Data retention · Settings' },
  { name: 'analytics', path: '/app/analytics', heading: 'Analytics', title: 'Analytics' },
  { name: 'reports', path: '/app/reports', heading: 'Reports', title: 'Reports' },
  { name: 'customers', path: '/app/customers', heading: 'Customers', title: 'Customers' },
  { name: 'mentions', path: '/app/mentions', heading: 'Mentions', title: 'Mentions' },
];

for (const [device, viewport] of [
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const) {
  // A few screens a test, so no test runs long (ava gives up after 60 s without a result).
  for (const screens of inGroups(SCREENS, 5)) {
    browserTest(`screens render on a ${device}: ${screens.map((s) => s.name).join(', ')}`, async (t) => {
      const { page, context, errors } = await appPage(browser, app.url, owner.token, viewport);
      for (const screen of screens) {
        await page.goto(`${app.url}${screen.path}`);
        await page.getByRole('heading', { name: screen.heading, exact: false }).first().waitFor();
        await page.waitForLoadState('networkidle');
        await shoot(page, `${screen.name}-${device}`);
        // WCAG 2.2 AA, checked by axe-core (docs/decisions.md#accessibility); the tab names the page (2.4.2).
        t.deepEqual(await accessibilityViolations(page), [], `${screen.name} on a ${device}`);
        t.is(await page.title(), `${screen.title} · Parley`);
      }
      t.deepEqual(errors, []);
      await context.close();
    });
  }

  browserTest(`the conversation renders on a ${device}`, async (t) => {
    const { page, context, errors } = await appPage(browser, app.url, owner.token, viewport);
    // The conversation with its customer panel (desktop) or alone with a way back (phone).
    await page.goto(`${app.url}/app/inbox`);
    await page
      .getByRole('list', { name: 'Conversations' })
      .getByRole('link', { name: /Marta Visitor/ })
      .click();
    await page.getByRole('log', { name: 'Messages' }).getByText('Great, and returns?').waitFor();
    t.is(await page.getByRole('complementary', { name: 'Customer' }).isVisible(), device === 'desktop');
    await shoot(page, `thread-${device}`);
    t.deepEqual(await accessibilityViolations(page), [], `the conversation on a ${device}`);
    // Opened within the app: the tab names the conversation, and screen readers are told where they are.
    await page.waitForFunction(() => (globalThis as any).document.title === 'Marta Visitor · Inbox · Parley');
    t.is(await page.locator('[data-route-announcer]').textContent(), 'Marta Visitor · Inbox');
    if (device === 'phone') {
      // The customer's details are one tap away.
      await page.getByRole('button', { name: 'Customer' }).click();
      await page.getByRole('complementary', { name: 'Customer' }).getByText('marta@example.com').waitFor();
      await shoot(page, 'customer-phone');
      t.deepEqual(await accessibilityViolations(page), [], 'the customer panel on a phone');
      await page.getByRole('button', { name: 'Hide details' }).click();
      await page.getByRole('complementary', { name: 'Customer' }).waitFor({ state: 'hidden' });
    }
    t.deepEqual(errors, []);
    await context.close();
  });
}

/** 320 px wide: a small phone, or a desktop zoomed to 400% (WCAG 1.4.10). */
const NARROW = { width: 320, height: 640 };
const fits = (page: Page) => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth <= (globalThis as any).innerWidth);

for (const screens of inGroups(SCREENS, 9)) {
  browserTest(`at 320 px (a small phone, a desktop at 400%) these screens fit: ${screens.map((s) => s.name).join(', ')}`, async (t) => {
    const { page, context, errors } = await appPage(browser, app.url, owner.token, NARROW);
    for (const screen of screens) {
      await page.goto(`${app.url}${screen.path}`);
      await page.getByRole('heading', { name: screen.heading, exact: false }).first().waitFor();
      await page.waitForLoadState('networkidle');
      t.true(await fits(page), `${screen.name} is no wider than 320 px`);
    }
    t.deepEqual(errors, []);
    await context.close();
  });
}

browserTest('at 320 px the bar keeps every item on the screen and apart, and a conversation keeps room for its messages', async (t) => {
  const viewport = NARROW;
  const { page, context, errors } = await appPage(browser, app.url, owner.token, viewport);
  await page.goto(`${app.url}/app/settings/team`);
  await page.getByRole('heading', { name: 'Team' }).first().waitFor();
  t.true(await fits(page));
  // The bottom bar: every destination on the screen, none over another (WCAG 1.4.10: no content lost).
  const boxes = await page.locator('.sidebar .nav-item, .sidebar-foot .availability').evaluateAll((items) =>
    items
      .map((el) => {
        const r = el.getBoundingClientRect();
        return { left: r.left, right: r.right, width: r.width, name: el.getAttribute('aria-label') ?? el.textContent?.trim() };
      })
      // Not shown on a phone (Reports: reached from Analytics).
      .filter((b) => b.width > 0),
  );
  t.true(boxes.length >= 7, `the bar's items: ${boxes.map((b) => b.name).join(', ')}`);
  for (const [i, box] of boxes.entries()) {
    t.true(box.left >= 0 && box.right <= viewport.width, `${box.name} is on the screen`);
    if (i > 0) t.true(box.left >= boxes[i - 1]!.right - 0.5, `${box.name} does not overlap ${boxes[i - 1]!.name}`);
  }
  await shoot(page, 'settings-320');
  // A conversation: the header keeps to a few lines, so the messages have most of the height left.
  await page.goto(`${app.url}/app/inbox`);
  await page
    .getByRole('list', { name: 'Conversations' })
    .getByRole('link', { name: /Marta Visitor/ })
    .click();
  const log = page.getByRole('log', { name: 'Messages' });
  await log.getByText('Great, and returns?').waitFor();
  const header = (await page.locator('.thread-header').boundingBox())!;
  t.true(header.height <= 170, `the thread's header is ${header.height} px high`);
  t.true((await log.boundingBox())!.height >= 150, 'the messages keep at least 150 px');
  t.true(await fits(page));
  t.deepEqual(await accessibilityViolations(page), [], 'the conversation at 320 px');
  await shoot(page, 'thread-320');
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('the signed-out pages (sign in, sign up, forgotten password) meet WCAG 2.2 AA on a desktop and a phone', async (t) => {
  for (const viewport of [DESKTOP, PHONE]) {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    for (const [path, heading, title] of [
      ['/app/signin', 'Sign in to Parley', 'Sign in · Parley'],
      ['/app/signup', 'Create your account', 'Create your account · Parley'],
      ['/app/forgot-password', 'Reset your password', 'Reset your password · Parley'],
    ]) {
      await page.goto(`${app.url}${path}`);
      await page.getByRole('heading', { name: heading }).waitFor();
      await page.waitForFunction((want) => (globalThis as any).document.title === want, title);
      t.deepEqual(await accessibilityViolations(page), [], `${path} at ${viewport.width}px`);
    }
    await context.close();
  }
});

browserTest('the widget page shows every widget of the business, oldest first, read in one request', async (t) => {
  const { context } = await appPage(browser, app.url, owner.token);
  // A page of its own: the first one's inbox may still be reading (its channels among them).
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const reads: string[] = [];
  page.on('request', (request) => {
    const { pathname } = new URL(request.url());
    if (/^\/api\/v1\/(widget|channels)\b/.test(pathname)) reads.push(`${request.method()} ${pathname}`);
  });
  await page.goto(`${app.url}/app/settings/widget`);
  const cards = page.getByRole('listitem', { name: /^Widget for / });
  await cards.first().waitFor();
  await page.waitForLoadState('networkidle');
  const domains = (await app.sql(`select domain from widgets where business_id = $1 order by created_at, id`, [owner.businessId])).map((r) => r.domain);
  t.true(domains.length >= 2);
  t.deepEqual(
    await cards.evaluateAll((items) => items.map((li) => li.getAttribute('aria-label'))),
    domains.map((d) => `Widget for ${d}`),
  );
  t.deepEqual(reads, ['GET /api/v1/widget/']);
  t.deepEqual(errors, []);
  await context.close();
});

/** The smallest PNG: one purple pixel. */
const PIXEL_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwAFCwJ/lxjv3QAAAABJRU5ErkJggg==', 'base64');

browserTest('a handed-over conversation: AI and system messages apart, the reason shown, an image sent inline', async (t) => {
  const widget = await app.request('POST', '/api/v1/widget/create', { token: owner.token, body: { domain: 'handoff.example.com' } });
  const session = await app.request('POST', '/api/v1/visitor/sessions', { body: { widget_id: widget.body.id, name: 'Hana Handoff' } });
  const asked = await app.request('POST', '/api/v1/visitor/messages', {
    headers: { authorization: `Bearer ${session.body.visitor_token}` },
    body: { content: 'My order arrived broken.' },
  });
  t.is(asked.status, 200, `${widget.text} ${session.text} ${asked.text}`);
  const id = asked.body.conversation_id;
  // As the AI agent leaves it: its own answer, a note, and the handoff.
  await app.sql(
    `insert into messages (business_id, conversation_id, sender_type, content, delivery_status, created_at)
     values ($1, $2, 'ai', 'Sorry to hear that! Let me find someone who can help.', 'sent', now() + interval '1 second'),
            ($1, $2, 'system', 'Handed over to the team', null, now() + interval '2 seconds')`,
    [owner.businessId, id],
  );
  await app.sql(
    `update conversations set status = 'pending', handoff_reason = 'Damaged goods need a human decision', handoff_requested_at = now() where id = $1`,
    [id],
  );

  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  await page.goto(`${app.url}/app/inbox/${id}`);
  await page.getByText('Damaged goods need a human decision').waitFor();
  const log = page.getByRole('log', { name: 'Messages' });
  t.is(await log.locator('.msg.ai').getByText('Let me find someone').count(), 1);
  t.is(await log.locator('.msg.customer').getByText('My order arrived broken.').count(), 1);
  t.is(await log.locator('.msg-system').getByText('Handed over to the team').count(), 1);

  await page.getByLabel('Attach files').setInputFiles({ name: 'damage.png', mimeType: 'image/png', buffer: PIXEL_PNG });
  await page.getByRole('list', { name: 'Attachments' }).getByText('damage.png').waitFor();
  await page.getByRole('textbox', { name: 'Reply' }).fill('Could you confirm this is the item?');
  await page.getByRole('textbox', { name: 'Reply' }).press('Enter');
  const image = log.getByRole('img', { name: 'damage.png' });
  await image.waitFor();
  await page.waitForFunction(() => ((globalThis as any).document.querySelector('.msg.agent img')?.naturalWidth ?? 0) > 0);
  const [sent] = await app.sql(`select attachments from messages where conversation_id = $1 and sender_type = 'agent'`, [id]);
  t.like(sent.attachments[0], { filename: 'damage.png', content_type: 'image/png' });
  await shoot(page, 'handoff-desktop');
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('knowledge base: an article is added, indexed, found by a search, and deleted', async (t) => {
  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  await page.goto(`${app.url}/app/settings/knowledge`);
  const form = page.getByRole('form', { name: 'New article' });
  await form.getByLabel('Title').fill('Returns and refunds');
  await form.getByLabel('Content').fill('Return any item within 30 days for a full refund. Refunds reach your card in 5 days.');
  await form.getByLabel('Tags').fill('returns, refunds');
  await form.getByRole('button', { name: 'Add article' }).click();
  const article = page.getByRole('list', { name: 'Articles' }).getByRole('listitem', { name: 'Returns and refunds' });
  await article.getByText('Indexed').waitFor();
  await page.getByRole('searchbox', { name: 'Search the knowledge base' }).fill('how do refunds work');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.getByRole('search').getByText('Returns and refunds').waitFor();
  await shoot(page, 'knowledge-search-desktop');
  page.once('dialog', (dialog) => void dialog.accept());
  await article.getByRole('button', { name: 'Delete Returns and refunds' }).click();
  await article.waitFor({ state: 'detached' });
  const rows = await app.sql(`select 1 from kb_articles where title = 'Returns and refunds'`);
  t.is(rows.length, 0);
  t.deepEqual(errors, []);
  await context.close();
});

browserTest("an image a visitor links from another site is shown as a link, never loaded; Parley's own uploads still show inline", async (t) => {
  const team = await createWorkspace(app, { name: 'Tia Tracker', plan: 'Pro' });
  const [customer] = await app.sql(`insert into customers (business_id, name) values ($1, 'Pixel Sender') returning id`, [team.businessId]);
  const [conversation] = await app.sql(
    `insert into conversations (business_id, customer_id, channel_type, last_message_at) values ($1, $2, 'webchat', now()) returning id`,
    [team.businessId, customer.id],
  );
  await app.sql(
    `insert into messages (business_id, conversation_id, sender_type, content, attachments) values ($1, $2, 'customer', 'See my screenshot', $3::jsonb)`,
    [
      team.businessId,
      conversation.id,
      JSON.stringify([{ url: 'https://tracker.example/pixel.png?agent=1', filename: 'screenshot.png', content_type: 'image/png', size: 68 }]),
    ],
  );
  const { page, context, errors } = await appPage(browser, app.url, team.token);
  const thirdParty: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).host === 'tracker.example') thirdParty.push(request.url());
  });
  await page.goto(`${app.url}/app/inbox/${conversation.id}`);
  const link = page.getByRole('link', { name: /screenshot\.png/ });
  await link.waitFor();
  t.is(await link.getAttribute('href'), 'https://tracker.example/pixel.png?agent=1');
  t.regex((await link.textContent()) ?? '', /tracker\.example/);
  t.is(await page.locator('img[src*="tracker.example"]').count(), 0);
  t.deepEqual(thirdParty, []);
  await shoot(page, 'foreign-image-desktop');
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('knowledge base: 50 articles at first, "Show more" brings the rest, and a re-read keeps them', async (t) => {
  const team = await createWorkspace(app, { name: 'Kai Knowledge', plan: 'Pro' });
  await app.sql(
    `insert into kb_articles (business_id, title, content, index_status, created_at)
     select $1, 'Article ' || lpad(g::text, 2, '0'), 'Text', 'indexed', now() - make_interval(mins => 60 - g) from generate_series(1, 55) g`,
    [team.businessId],
  );
  const { page, context, errors } = await appPage(browser, app.url, team.token);
  await page.goto(`${app.url}/app/settings/knowledge`);
  const list = page.getByRole('list', { name: 'Articles' }).getByRole('listitem');
  await list.nth(49).waitFor();
  t.is(await list.count(), 50);
  await page.getByRole('button', { name: 'Show more' }).click();
  await list.nth(54).waitFor();
  t.is(await page.getByRole('button', { name: 'Show more' }).count(), 0);
  // Deleting one re-reads the list: the 54 left stay shown.
  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: 'Delete Article 55' }).click();
  await page.getByRole('listitem', { name: 'Article 55' }).waitFor({ state: 'detached' });
  t.is(await list.count(), 54);
  t.deepEqual(errors, []);
  await context.close();
});

for (const [device, viewport] of [
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const) {
  browserTest(`search: / or Ctrl+K opens it, results by type with the words marked, a result opens its conversation (${device})`, async (t) => {
    const team = await createWorkspace(app, { name: `Sam Search ${device}`, plan: 'Pro' });
    // A history to search: two customers, a conversation each, words in two languages.
    const [kasia] = await app.sql(
      `insert into customers (business_id, name, email, phone) values ($1, 'Kasia Nowakowska', 'kasia@post.example', '+48 601 234 567') returning id`,
      [team.businessId],
    );
    const [ole] = await app.sql(`insert into customers (business_id, name, email) values ($1, 'Ole Nordmann', 'ole@fjord.example') returning id`, [
      team.businessId,
    ]);
    const conversationOf = async (customerId: string, lines: [string, string][]) => {
      const [c] = await app.sql(
        `insert into conversations (business_id, customer_id, channel_type, last_message_at) values ($1, $2, 'webchat', now()) returning id`,
        [team.businessId, customerId],
      );
      for (const [sender, content] of lines) {
        await app.sql(`insert into messages (business_id, conversation_id, sender_type, content) values ($1, $2, $3, $4)`, [
          team.businessId,
          c.id,
          sender,
          content,
        ]);
      }
      return c.id as string;
    };
    const kasiaChat = await conversationOf(kasia.id, [
      ['customer', 'Moja przesyłka nie dotarła, numer zamówienia 48213.'],
      ['agent', 'Sprawdzam przesyłkę, chwileczkę.'],
    ]);
    await conversationOf(ole.id, [['customer', 'Is the parcel to Bergen delayed? <b>Tracking</b> says nothing.']]);
    const { page, context, errors } = await appPage(browser, app.url, team.token, viewport);
    await page.goto(`${app.url}/app/inbox`);
    await page.getByRole('list', { name: 'Conversations' }).waitFor();
    // "/" outside a text field opens the search.
    await page.keyboard.press('/');
    const dialog = page.getByRole('dialog', { name: 'Search' });
    const box = dialog.getByRole('searchbox', { name: 'Search conversations, customers and messages' });
    await box.waitFor();
    t.true(await hasFocus(box), 'the search box has the focus');
    await shoot(page, `search-empty-${device}`);
    await box.fill('przesyłka');
    const messages = dialog.getByRole('region', { name: 'Messages' });
    await messages.locator('mark', { hasText: 'przesyłka' }).waitFor();
    await dialog.getByRole('region', { name: 'Conversations' }).getByText('Kasia Nowakowska').waitFor();
    await dialog.getByRole('region', { name: 'Customers' }).getByText('No customers match').waitFor();
    await shoot(page, `search-results-${device}`);
    t.deepEqual(await accessibilityViolations(page), [], `the search on a ${device}`);
    // A customer by part of their phone number, a message whose text looks like markup shown as text.
    await box.fill('601 234');
    await dialog.getByRole('region', { name: 'Customers' }).locator('mark', { hasText: '601 234' }).waitFor();
    await box.fill('bergen');
    await messages.getByText('<b>Tracking</b> says nothing.', { exact: false }).waitFor();
    t.is(await messages.locator('b').count(), 0, 'the customer\'s "<b>" is text, not bold');
    await shoot(page, `search-text-as-typed-${device}`);
    // Escape closes; Ctrl+K opens it again.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await page.keyboard.press('Control+k');
    await box.waitFor();
    await box.fill('48213');
    const hit = messages.getByRole('link', { name: /Kasia Nowakowska/ });
    await hit.click();
    await dialog.waitFor({ state: 'detached' });
    await page.waitForURL(`**/app/inbox/${kasiaChat}?status=any&message=*`);
    await page.getByRole('log', { name: 'Messages' }).getByText('Sprawdzam przesyłkę, chwileczkę.').waitFor();
    await shoot(page, `search-opened-${device}`);
    t.deepEqual(errors, []);
    await context.close();
  });
}

browserTest('the customer panel merges another conversation of the customer into the open one (desktop and phone)', async (t) => {
  for (const [device, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    const team = await createWorkspace(app, { name: `Mia Merge ${device}`, plan: 'Pro' });
    const [customer] = await app.sql(`insert into customers (business_id, name, email) values ($1, 'Rita Repeat', 'rita@example.com') returning id`, [
      team.businessId,
    ]);
    const make = async (text: string, minutesAgo: number) => {
      const [c] = await app.sql(
        `insert into conversations (business_id, customer_id, channel_type, last_message_at) values ($1, $2, 'webchat', now() - make_interval(mins => $3)) returning id`,
        [team.businessId, customer.id, minutesAgo],
      );
      await app.sql(
        `insert into messages (business_id, conversation_id, sender_type, content, created_at) values ($1, $2, 'customer', $3, now() - make_interval(mins => $4))`,
        [team.businessId, c.id, text, minutesAgo],
      );
      return c.id as string;
    };
    const older = await make('My order never came', 60);
    const newer = await make('Any news about my order?', 5);
    const { page, context, errors } = await appPage(browser, app.url, team.token, viewport);
    await page.goto(`${app.url}/app/inbox/${newer}`);
    if (device === 'phone') await page.getByRole('button', { name: 'Customer' }).click();
    const panel = page.getByRole('complementary', { name: 'Customer' });
    await panel.getByRole('button', { name: 'Merge here' }).waitFor();
    await shoot(page, `merge-before-${device}`);
    page.once('dialog', (dialog) => void dialog.accept());
    await panel.getByRole('button', { name: 'Merge here' }).click();
    if (device === 'phone') await page.getByRole('button', { name: 'Hide details' }).click();
    const log = page.getByRole('log', { name: 'Messages' });
    await log.getByText('My order never came').waitFor();
    await log.getByText(/was merged into this one \(1 message moved\)/).waitFor();
    const [closed] = await app.sql(`select status from conversations where id = $1`, [older]);
    t.is(closed.status, 'closed');
    await shoot(page, `merge-after-${device}`);
    t.deepEqual(errors, []);
    await context.close();
  }
});
