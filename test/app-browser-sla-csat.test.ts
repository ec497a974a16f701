/**
 * SLA and CSAT in a real browser: the owner adds an SLA policy; the inbox marks the overdue
 * conversation, filters by "Overdue" and shows due times in the thread header; the owner turns
 * CSAT on; a shop page's widget shows the 1–5 rating under the question and stores the click; the
 * rating shows in the thread; the public page /csat/{token} works with JavaScript off. Desktop and
 * phone screenshots go to test-artifacts/sla-csat/.
 */
import test from 'ava';
import http from 'node:http';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, type Account, type Workspace } from './helpers/fixtures.ts';
import { startTestWorker, waitFor } from './helpers/worker.ts';
import { appPage, artifactDir, browserTest, DESKTOP, hasChromium, launchChromium, noteIfSkipped, PHONE, accessibilityViolations } from './helpers/browser.ts';

noteIfSkipped('app-browser-sla-csat');

let app: TestApp;
let browser: Browser;
let owner: Workspace;
let agent: Account;
let widgetId: string;
const shots = artifactDir('sla-csat');

test.before(async () => {
  if (!hasChromium) return;
  app = await startTestApp();
  owner = await createWorkspace(app, { name: 'Olive Owner', plan: 'Pro' });
  agent = await addMember(app, owner.businessId, 'agent', { name: 'Ada Agent', status: 'live' });
  const widget = await app.request('POST', '/api/v1/widget/create', { token: owner.token, body: { domain: '127.0.0.1', welcome_heading: 'Hello from Acme' } });
  widgetId = widget.body.id;
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
const overflow = (page: Page) => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);

/** Runs a worker until no SLA, CSAT or delivery job is left. */
async function settle() {
  const worker = await startTestWorker(app);
  try {
    await waitFor(
      async () => {
        const [row] = await app.sql(
          `select count(*)::int as n from graphile_worker.jobs where task_identifier in ('handle_events', 'sla_refresh', 'csat_request', 'deliver_message')`,
        );
        const [queued] = await app.sql(`select count(*)::int as n from messages where delivery_status = 'queued'`);
        return row.n === 0 && queued.n === 0;
      },
      20_000,
      'jobs settled',
    );
  } finally {
    await worker.stop();
  }
}

let ip = 40;
async function visitorWrites(name: string, text: string): Promise<string> {
  ip += 1;
  const session = await app.request('POST', '/api/v1/visitor/sessions', {
    body: { widget_id: widgetId, name },
    headers: { 'x-forwarded-for': `198.51.100.${ip}` },
  });
  const sent = await app.request('POST', '/api/v1/visitor/messages', {
    body: { content: text },
    headers: { authorization: `Bearer ${session.body.visitor_token}` },
  });
  if (sent.status !== 200) throw new Error(sent.text);
  return sent.body.conversation_id;
}

let lateId = '';

browserTest('owner: an SLA policy added in settings', async (t) => {
  for (const [name, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    const { page, context, errors } = await appPage(browser, app.url, owner.token, viewport);
    await page.goto(`${app.url}/app/settings/sla`);
    await page.getByRole('heading', { name: 'SLA policies' }).waitFor();
    if (name === 'desktop') {
      const form = page.getByRole('form', { name: 'New SLA policy' });
      await form.getByLabel('Name').fill('Standard');
      await form.getByLabel('First response (minutes)').fill('30');
      await form.getByLabel('Next response (minutes)').fill('60');
      await form.getByLabel('Resolution (minutes)').fill('1440');
      await form.getByRole('button', { name: 'Add policy' }).click();
      await page.getByRole('listitem', { name: 'Standard' }).getByText('First response 30 min').waitFor();
      const [row] = await app.sql(`select first_response_minutes, next_response_minutes, resolution_minutes from sla_policies where business_id = $1`, [
        owner.businessId,
      ]);
      t.deepEqual(row, { first_response_minutes: 30, next_response_minutes: 60, resolution_minutes: 1440 });
    }
    await page.getByRole('listitem', { name: 'Standard' }).getByText('Resolution 1 d').waitFor();
    await shoot(page, `sla-settings-${name}`);
    t.true((await overflow(page)) <= viewport.width);
    t.deepEqual(await accessibilityViolations(page), []);
    t.deepEqual(errors, []);
    await context.close();
  }
  // An agent reads the policies and cannot change them.
  const { page, context } = await appPage(browser, app.url, agent.token, PHONE);
  await page.goto(`${app.url}/app/settings/sla`);
  await page.getByText('The owner and admins manage SLA policies.').waitFor();
  t.is(await page.getByRole('button', { name: 'Edit Standard' }).count(), 0);
  await context.close();
});

browserTest('inbox: the overdue conversation is marked and filtered; the thread shows what is due', async (t) => {
  lateId = await visitorWrites('Lena Late', 'My parcel never arrived');
  await visitorWrites('Sam Soon', 'Can I change my address?');
  await settle();
  // Lena wrote 45 minutes ago: the first response (30 minutes) is overdue.
  await app.sql(`update conversations set created_at = now() - interval '45 minutes' where id = $1`, [lateId]);
  await app.sql(
    `select graphile_worker.add_job('sla_refresh', json_build_object('conversation_id', id), job_key => 'sla:' || id) from conversations where id = $1`,
    [lateId],
  );
  await settle();
  for (const [name, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    const { page, context, errors } = await appPage(browser, app.url, owner.token, viewport);
    const late = page.locator(`.conv-row[data-id="${lateId}"]`);
    await late.getByText(/^Overdue 1[45]m$/).waitFor();
    await page
      .locator('.conv-row')
      .filter({ hasText: 'Sam Soon' })
      .getByText(/^Due in \d+m$/)
      .waitFor();
    await shoot(page, `inbox-marks-${name}`);
    await page.getByLabel('SLA').selectOption('breached');
    await waitFor(async () => (await page.locator('.conv-row').count()) === 1, 10_000, 'only the overdue one listed');
    t.true(page.url().includes('sla=breached'));
    await late.click();
    const line = page.locator('.sla-line');
    await line.getByText(/First response was due/).waitFor();
    await line.getByText(/Resolution due/).waitFor();
    await line.getByText('First response missed').waitFor();
    await shoot(page, `thread-sla-${name}`);
    t.true((await overflow(page)) <= viewport.width);
    t.deepEqual(errors, []);
    await context.close();
  }
});

browserTest('owner: CSAT turned on with a question', async (t) => {
  for (const [name, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    const { page, context, errors } = await appPage(browser, app.url, owner.token, viewport);
    await page.goto(`${app.url}/app/settings/csat`);
    const toggle = page.getByRole('switch', { name: 'Ask for a rating' });
    await toggle.waitFor();
    if (name === 'desktop') {
      await toggle.check();
      await waitFor(
        async () => (await app.sql('select enabled from csat_settings where business_id = $1', [owner.businessId]))[0]?.enabled,
        10_000,
        'enabled stored',
      );
      await page.getByRole('textbox', { name: 'Question' }).fill('How did Acme do today?');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
      t.is((await app.sql('select question from csat_settings where business_id = $1', [owner.businessId]))[0].question, 'How did Acme do today?');
    }
    t.true(await toggle.isChecked());
    await shoot(page, `csat-settings-${name}`);
    t.true((await overflow(page)) <= viewport.width);
    t.deepEqual(await accessibilityViolations(page), []);
    t.deepEqual(errors, []);
    await context.close();
  }
});

browserTest('widget: the question shows 1–5 inline; a click rates; the thread shows the rating', async (t) => {
  const shopPage = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Acme</title></head>
<body style="font-family: sans-serif; margin: 24px"><h1>Acme shop</h1><script src="${app.url}/widget.js" data-widget-id="${widgetId}" async></script></body></html>`;
  const shop = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(shopPage);
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', () => resolve()));
  const rated: string[] = [];
  try {
    for (const [name, viewport, rating] of [
      ['desktop', { width: 1100, height: 760 }, 4],
      ['phone', PHONE, 2],
    ] as const) {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      await page.goto(`http://127.0.0.1:${(shop.address() as { port: number }).port}/`);
      await page.locator('#parley-widget .bubble').click();
      await page.locator('#parley-widget textarea').fill(`Question from the ${name}`);
      await page.locator('#parley-widget button.send').click();
      const [row] = await waitFor(
        async () => {
          const rows = await app.sql(`select conversation_id from messages where content = $1`, [`Question from the ${name}`]);
          return rows.length ? rows : null;
        },
        10_000,
        'message stored',
      );
      const conversationId = row.conversation_id as string;
      t.is((await app.request('PUT', `/api/v1/conversations/${conversationId}/resolve`, { token: owner.token })).status, 200);
      await settle();
      const question = page.locator('#parley-widget .msg.system').filter({ hasText: 'How did Acme do today?' });
      await question.waitFor();
      t.is(await question.locator('.csat-option').count(), 5);
      await shoot(page, `widget-question-${name}`);
      await question.getByRole('button', { name: `${rating} of 5` }).click();
      await question.getByText(`Thanks! You rated us ${rating} of 5.`).waitFor();
      t.is((await app.sql(`select rating from csat_surveys where conversation_id = $1`, [conversationId]))[0].rating, rating);
      await shoot(page, `widget-rated-${name}`);
      rated.push(conversationId);
      await context.close();
    }
  } finally {
    await new Promise((resolve) => shop.close(resolve));
  }
  for (const [name, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    const { page, context, errors } = await appPage(browser, app.url, owner.token, viewport);
    await page.goto(`${app.url}/app/inbox/${rated[0]}?status=any`);
    const card = page.getByRole('note', { name: 'Customer rating: 4 of 5' });
    await card.waitFor();
    await card.getByText(/rated 4 of 5 · Good/).waitFor();
    await card.scrollIntoViewIfNeeded();
    await shoot(page, `thread-rating-${name}`);
    t.true((await overflow(page)) <= viewport.width);
    t.deepEqual(errors, []);
    await context.close();
  }
});

browserTest('the public rating page works with JavaScript off: a real form, posted once', async (t) => {
  for (const [name, viewport, rating, label] of [
    ['desktop', DESKTOP, 5, 'Very good'],
    ['phone', PHONE, 3, 'OK'],
  ] as const) {
    const conversationId = await visitorWrites(`Paula ${name}`, 'Thanks!');
    await app.request('PUT', `/api/v1/conversations/${conversationId}/resolve`, { token: owner.token });
    await settle();
    const [survey] = await app.sql(`select token from csat_surveys where conversation_id = $1`, [conversationId]);
    const context = await browser.newContext({ viewport, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${app.url}/csat/${survey.token}`);
    await page.getByRole('heading', { name: 'How did Acme do today?' }).waitFor();
    await shoot(page, `public-page-${name}`);
    t.true((await overflow(page)) <= viewport.width);
    // A customer's page: WCAG 2.2 AA like the app's (docs/decisions.md#accessibility), read in a
    // context with JavaScript (axe runs in the page; this one has it off).
    const scan = await browser.newContext({ viewport });
    const scanned = await scan.newPage();
    await scanned.goto(`${app.url}/csat/${survey.token}`);
    await scanned.getByRole('heading', { name: 'How did Acme do today?' }).waitFor();
    t.deepEqual(await accessibilityViolations(scanned), [], `the rating page on a ${name}`);
    await scan.close();
    await page.getByLabel(`${rating} of 5, ${label}`).check({ force: true });
    await page.getByLabel('Anything you want to add? (optional)').fill('Fast and friendly');
    await page.getByRole('button', { name: 'Send rating' }).click();
    await page.getByText(`Thank you for your feedback! Your rating: ${rating} of 5 (${label}).`).waitFor();
    t.like((await app.sql(`select rating, comment from csat_surveys where conversation_id = $1`, [conversationId]))[0], {
      rating,
      comment: 'Fast and friendly',
    });
    await shoot(page, `public-page-done-${name}`);
    // Back to the link later: it was rated already.
    await page.goto(`${app.url}/csat/${survey.token}`);
    await page.getByText('This conversation was rated already.').waitFor();
    await context.close();
  }
});
