/**
 * Routing settings in the agent app, in a real browser: the owner turns auto-assignment on,
 * sets the capacity and an agent's own limit; edits business hours (time zone, a second shift,
 * a day off, a holiday, the away message); an agent sees both read-only at phone width; and a
 * shop page's widget says the team is away and when it is back. Screenshots go to
 * test-artifacts/routing/.
 */
import test from 'ava';
import http from 'node:http';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { localDate } from '../core/domain/business-hours.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, type Account, type Workspace } from './helpers/fixtures.ts';
import { waitFor } from './helpers/worker.ts';
import { appPage, artifactDir, browserTest, hasChromium, launchChromium, noteIfSkipped, PHONE, accessibilityViolations } from './helpers/browser.ts';

noteIfSkipped('app-browser-routing');

let app: TestApp;
let browser: Browser;
let owner: Workspace;
let agent: Account;
const shots = artifactDir('routing');

test.before(async () => {
  if (!hasChromium) return;
  app = await startTestApp();
  owner = await createWorkspace(app, { name: 'Olive Owner', plan: 'Pro' });
  agent = await addMember(app, owner.businessId, 'agent', { name: 'Ada Agent', status: 'live' });
  await addMember(app, owner.businessId, 'agent', { name: 'Bo Busy', status: 'away' });
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
const overflow = (page: Page) => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);

browserTest('owner: auto-assignment on, capacity and an own limit saved', async (t) => {
  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  await page.goto(`${app.url}/app/settings/assignment`);
  const toggle = page.getByRole('switch', { name: 'Auto-assign conversations' });
  await toggle.waitFor();
  t.false(await toggle.isChecked());
  await toggle.check();
  await page.getByText('On: conversations without an assignee are handed out automatically.').waitFor();
  // The switch moves at once; the row follows the request.
  await waitFor(
    async () => (await app.sql('select enabled from assignment_settings where business_id = $1', [owner.businessId]))[0]?.enabled,
    10_000,
    'enabled stored',
  );

  await page.getByLabel('Open conversations per agent').fill('4');
  await page.getByLabel('Own limit for Ada Agent').fill('2');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
  t.is((await app.sql('select max_open_per_agent from assignment_settings where business_id = $1', [owner.businessId]))[0].max_open_per_agent, 4);
  t.is((await app.sql('select max_open from team_members where user_id = $1', [agent.userId]))[0].max_open, 2);
  await page.getByRole('listitem', { name: 'Ada Agent' }).getByText('Live · 0 of 2 open').waitFor();
  await page.getByRole('listitem', { name: 'Bo Busy' }).getByText('Away · 0 of 4 open').waitFor();
  await shoot(page, 'assignment-desktop');
  t.deepEqual(await accessibilityViolations(page), []);
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('owner: business hours edited and saved; the status line says when the team opens', async (t) => {
  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  await page.goto(`${app.url}/app/settings/business-hours`);
  const toggle = page.getByRole('switch', { name: 'Use business hours' });
  await toggle.waitFor();
  await toggle.check();
  await page.getByLabel('Time zone').selectOption('America/New_York');
  // Turned on with no day open, the week starts as Monday–Friday 9–17 (issue 38 item 8).
  for (const day of ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'])
    t.true(await page.getByRole('checkbox', { name: `Open on ${day}` }).isChecked(), day);
  for (const day of ['Saturday', 'Sunday']) t.false(await page.getByRole('checkbox', { name: `Open on ${day}` }).isChecked(), day);
  t.is(await page.getByLabel('Monday opens').inputValue(), '09:00');
  t.is(await page.getByLabel('Monday closes').inputValue(), '17:00');
  await page.getByRole('button', { name: 'Add hours on Thursday' }).click();
  await page.getByLabel('Thursday opens').nth(1).fill('19:00');
  await page.getByLabel('Thursday closes').nth(1).fill('21:00');
  await page.getByLabel('Friday closes').fill('00:00');
  await page.getByLabel('Holiday date').fill('2026-12-25');
  await page.getByRole('button', { name: 'Add holiday' }).click();
  await page.getByLabel('Away message').fill('We are out. Back on the next working day!');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();

  const saved = (await app.request('GET', '/api/v1/settings/business-hours', { token: owner.token })).body;
  t.like(saved, { enabled: true, timezone: 'America/New_York', holidays: ['2026-12-25'], out_of_hours_message: 'We are out. Back on the next working day!' });
  t.deepEqual(saved.week.thu, [
    { open: '09:00', close: '17:00' },
    { open: '19:00', close: '21:00' },
  ]);
  t.deepEqual(saved.week.fri, [{ open: '09:00', close: '24:00' }]);
  t.deepEqual(saved.week.sat, []);
  await page.getByText(saved.is_open ? 'Open now.' : /^Closed now\. Opens .*\(America\/New_York\)\.$/).waitFor();
  await shoot(page, 'business-hours-desktop');
  await page.locator('.settings-body').evaluate((node) => node.scrollTo(0, 0));
  await shoot(page, 'business-hours-desktop-top');
  t.deepEqual(await accessibilityViolations(page), []);
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('agent at phone width: both pages read-only, nothing wider than the screen', async (t) => {
  const { page, context, errors } = await appPage(browser, app.url, agent.token, PHONE);
  await page.goto(`${app.url}/app/settings/assignment`);
  await page.getByRole('switch', { name: 'Auto-assign conversations' }).waitFor();
  t.true(await page.getByRole('switch', { name: 'Auto-assign conversations' }).isDisabled());
  t.is(await page.getByRole('button', { name: 'Save' }).count(), 0);
  await page.getByText('The owner and admins change these settings.').waitFor();
  t.true((await overflow(page)) <= PHONE.width);
  await shoot(page, 'assignment-phone');

  await page.goto(`${app.url}/app/settings/business-hours`);
  await page.getByRole('switch', { name: 'Use business hours' }).waitFor();
  t.true(await page.getByLabel('Time zone').isDisabled());
  t.true(await page.getByLabel('Thursday opens').first().isDisabled());
  await page.getByText('The owner and admins change business hours.').waitFor();
  t.true((await overflow(page)) <= PHONE.width);
  await shoot(page, 'business-hours-phone');
  t.deepEqual(await accessibilityViolations(page), []);
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('the widget on a shop page says the team is away and when it is back', async (t) => {
  const widget = await app.request('POST', '/api/v1/widget/create', { token: owner.token, body: { domain: '127.0.0.1', welcome_heading: 'Hello from Acme' } });
  t.is(widget.status, 200, widget.text);
  // Closed today (a holiday), open around the clock otherwise: back at the next midnight in Berlin.
  const day = [{ open: '00:00', close: '24:00' }];
  const hours = await app.request('PATCH', '/api/v1/settings/business-hours', {
    token: owner.token,
    body: {
      enabled: true,
      timezone: 'Europe/Berlin',
      week: { mon: day, tue: day, wed: day, thu: day, fri: day, sat: day, sun: day },
      holidays: [localDate(new Date(), 'Europe/Berlin')],
    },
  });
  t.is(hours.status, 200, hours.text);
  const shopPage = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Acme</title></head>
<body style="font-family: sans-serif; margin: 24px"><h1>Acme shop</h1><script src="${app.url}/widget.js" data-widget-id="${widget.body.id}" async></script></body></html>`;
  const shop = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(shopPage);
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', () => resolve()));
  try {
    for (const [name, viewport] of [
      ['desktop', { width: 1100, height: 760 }],
      ['phone', PHONE],
    ] as const) {
      const context = await browser.newContext({ viewport, timezoneId: 'Europe/Berlin', locale: 'en-GB' });
      const page = await context.newPage();
      await page.goto(`http://127.0.0.1:${(shop.address() as { port: number }).port}/`);
      await page.locator('#parley-widget .bubble').click();
      const away = page.locator('#parley-widget .hours');
      await away.waitFor();
      // Midnight in Berlin, in the visitor's (Berlin) clock; the "online" badge gives way to it.
      t.is(await away.textContent(), "We're away right now. Back tomorrow at 00:00.");
      t.true(await page.locator('#parley-widget .status').isHidden());
      await page.screenshot({ path: path.join(shots, `widget-away-${name}.png`) });
      await context.close();
    }
  } finally {
    await new Promise((resolve) => shop.close(resolve));
  }
});
