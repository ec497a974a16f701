/**
 * The Reports page in a real browser: the owner sees the navigation item, the figures, the chart
 * by day and the tables, switches the range and downloads a CSV; an agent has no Reports item
 * and the path shows the inbox. Screenshots go to test-artifacts/reports/.
 */
import test from 'ava';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, type Account, type Workspace } from './helpers/fixtures.ts';
import { appPage, artifactDir, browserTest, hasChromium, launchChromium, noteIfSkipped, PHONE, accessibilityViolations } from './helpers/browser.ts';

noteIfSkipped('app-browser-reports');

let app: TestApp;
let browser: Browser;
let owner: Workspace;
let ann: Account;
let agent: Account;
const shots = artifactDir('reports');
/** Conversations seeded in the last 7 local days, and in the last 30. */
let inWeek = 0;
let inMonth = 0;
/** CSAT ratings in the last 30 days, and how many are 4 or 5; SLA first responses met and breached. */
let ratings = 0;
let satisfied = 0;
let met = 0;
let breaches = 0;

test.before(async () => {
  if (!hasChromium) return;
  app = await startTestApp();
  owner = await createWorkspace(app, { name: 'Olive Owner', plan: 'Pro' });
  ann = await addMember(app, owner.businessId, 'admin', { name: 'Ann Admin' });
  agent = await addMember(app, owner.businessId, 'agent', { name: 'Ada Agent' });
  const [billing] = await app.sql(`insert into labels (business_id, name, color) values ($1, 'billing', '#d92d20') returning id`, [owner.businessId]);
  await app.sql(`insert into labels (business_id, name, color) values ($1, 'feedback', '#12b76a')`, [owner.businessId]);
  // Ages in whole days plus an hour: 0–5 days old are in any "last 7 days", 9–27 only in the 30;
  // 6–8 are left out so the test holds whatever the browser's time zone and hour.
  const seeded = await app.sql(
    `insert into conversations (business_id, channel_type, status, created_at, updated_at, first_response_at, resolved_at, resolved_by, assignee_id)
     select $1, (array['webchat', 'telegram', 'email'])[1 + (g + n) % 3], case when n % 2 = 0 then 'resolved' else 'open' end,
            t, t,
            case when n % 5 <> 4 then t + make_interval(mins => 3 + 4 * ((g + n) % 4)) end,
            case when n % 2 = 0 then t + make_interval(hours => 1 + (g * n) % 7) end,
            case when n % 2 = 0 then (case when n % 4 = 0 then $2 else $3 end)::uuid end,
            case when n % 3 = 0 then $2::uuid when n % 3 = 1 then $3::uuid end
     from generate_series(0, 27) g, generate_series(1, 2 + (g * 7) % 5) n, lateral (select now() - make_interval(days => g, hours => 1) as t) x
     where g not between 6 and 8
     returning id, created_at`,
    [owner.businessId, ann.userId, agent.userId],
  );
  const ageDays = (at: Date) => (Date.now() - at.getTime()) / 86_400_000;
  inWeek = seeded.filter((r) => ageDays(r.created_at) < 6).length;
  inMonth = seeded.length;
  for (const r of seeded.filter((_, i) => i % 3 === 0)) {
    await app.sql('insert into conversation_labels (business_id, conversation_id, label_id) values ($1, $2, $3)', [owner.businessId, r.id, billing.id]);
  }
  // CSAT: a survey for each resolved conversation, asked 10 and rated 20 minutes after it began, ratings 1–5 in turn.
  const rated = await app.sql(
    `insert into csat_surveys (business_id, conversation_id, token, question, rating, asked_at, rated_at)
     select $1, c.id, md5(c.id::text), 'How did we do?', 1 + (row_number() over (order by c.created_at, c.id))::int % 5,
            c.created_at + interval '10 minutes', c.created_at + interval '20 minutes'
     from conversations c where c.business_id = $1 and c.status = 'resolved'
     returning rating`,
    [owner.businessId],
  );
  ratings = rated.length;
  satisfied = rated.filter((r) => r.rating >= 4).length;
  // SLA: two policies; each replied conversation's first response settled, one in three breached.
  const [gold] = await app.sql(`insert into sla_policies (business_id, name, first_response_minutes) values ($1, 'Gold', 5) returning id`, [owner.businessId]);
  const [silver] = await app.sql(`insert into sla_policies (business_id, name, first_response_minutes) values ($1, 'Silver', 5) returning id`, [
    owner.businessId,
  ]);
  const settled = await app.sql(
    `insert into sla_results (business_id, conversation_id, sla_policy_id, target, started_at, due_at, met_at, hit, settled_at)
     select $1, c.id, case when n % 2 = 0 then $2::uuid else $3::uuid end, 'first_response', c.created_at,
            case when n % 3 = 0 then c.created_at + interval '1 minute' else c.created_at + interval '1 hour' end,
            c.first_response_at, n % 3 <> 0,
            case when n % 3 = 0 then c.created_at + interval '1 minute' else c.first_response_at end
     from (select c.*, row_number() over (order by c.created_at, c.id) as n from conversations c where c.business_id = $1 and c.first_response_at is not null) c
     returning hit`,
    [owner.businessId, gold.id, silver.id],
  );
  breaches = settled.filter((r) => !r.hit).length;
  met = settled.length - breaches;
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
const overflow = (page: Page) => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);
const figure = (page: Page, label: string) => page.locator('.figure', { has: page.getByText(label, { exact: true }) }).locator('.figure-value');

browserTest('owner: figures, chart, tables, range switch and a CSV download (desktop)', async (t) => {
  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  await page.getByRole('link', { name: 'Reports' }).click();
  await page.getByRole('heading', { name: 'Reports' }).waitFor();
  t.is(await page.getByRole('button', { name: 'Last 30 days' }).getAttribute('aria-pressed'), 'true');
  await figure(page, 'Opened').waitFor();
  t.is(await figure(page, 'Opened').textContent(), String(inMonth));
  t.regex((await page.getByRole('img', { name: /^Conversations per day/ }).getAttribute('aria-label'))!, new RegExp(`: ${inMonth} opened`));
  const agents = page.getByRole('region', { name: 'Agents', exact: true });
  t.deepEqual(await agents.locator('tbody th').allTextContents(), ['Ada Agent', 'Ann Admin', 'Olive Owner', 'Unassigned']);
  const labels = page.getByRole('region', { name: 'Labels', exact: true });
  t.deepEqual(await labels.locator('tbody th').allTextContents(), ['billing', 'feedback']);
  t.is(await labels.locator('tbody tr').nth(1).locator('td').first().textContent(), '0');
  t.is(await page.getByRole('region', { name: 'Channels', exact: true }).locator('tbody tr').count(), 3);
  await shoot(page, 'reports-desktop');

  await page.getByRole('button', { name: 'Last 7 days' }).click();
  await page.waitForFunction((n) => (globalThis as any).document.querySelector('.figure .figure-value')?.textContent === String(n), inWeek);
  t.is(await page.getByRole('button', { name: 'Last 7 days' }).getAttribute('aria-pressed'), 'true');
  t.true(page.url().endsWith('/app/reports?days=7'));
  await shoot(page, 'reports-7-days-desktop');

  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download agents as CSV' }).click();
  const file = await downloading;
  t.regex(file.suggestedFilename(), /^parley-agents-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = await readFile((await file.path())!, 'utf8');
  const lines = csv.trimEnd().split('\r\n');
  t.is(lines[0], 'user_id,name,opened,resolved,first_response_median_seconds,first_response_p90_seconds,resolution_median_seconds,resolution_p90_seconds');
  t.deepEqual(
    lines.slice(1).map((l) => l.split(',')[1]),
    ['Ada Agent', 'Ann Admin', 'Olive Owner', 'Unassigned'],
  );
  const opened = lines.slice(1).reduce((n, l) => n + Number(l.split(',')[2]), 0);
  t.is(opened, inWeek, 'every conversation of the week is under one agent row or Unassigned');
  t.deepEqual(await accessibilityViolations(page), []);
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('owner: customer satisfaction and SLA sections with their charts, per-policy table and CSV (desktop)', async (t) => {
  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  await page.goto(`${app.url}/app/reports?days=30`);
  const csat = page.getByRole('region', { name: 'Customer satisfaction', exact: true });
  await csat.waitFor();
  t.is(await csat.locator('.figure', { hasText: 'Ratings' }).locator('.figure-value').textContent(), String(ratings));
  const share = Math.round((satisfied * 1000) / ratings) / 10;
  t.is(await csat.locator('.figure', { hasText: 'Satisfied' }).locator('.figure-value').textContent(), `${share.toLocaleString('en-US')}%`);
  t.deepEqual(await csat.locator('.rating-label').allTextContents(), ['5 ★', '4 ★', '3 ★', '2 ★', '1 ★']);
  t.regex((await csat.getByRole('img', { name: /^Ratings per day/ }).getAttribute('aria-label'))!, new RegExp(`: ${ratings} ratings`));
  await csat.scrollIntoViewIfNeeded();
  await shoot(page, 'reports-csat-desktop');

  const sla = page.getByRole('region', { name: 'SLA targets', exact: true });
  t.is(await sla.locator('.figure', { hasText: 'Breaches' }).locator('.figure-value').textContent(), String(breaches));
  t.is(await sla.locator('.figure', { hasText: 'First response met' }).locator('.figure-sub').textContent(), `${met} of ${met + breaches}`);
  t.deepEqual(await sla.locator('tbody th').allTextContents(), ['Gold', 'Silver']);
  t.regex((await sla.getByRole('img', { name: /^SLA targets per day/ }).getAttribute('aria-label'))!, new RegExp(`: ${met} met, ${breaches} breached`));
  await sla.scrollIntoViewIfNeeded();
  await shoot(page, 'reports-sla-desktop');

  for (const [button, kind, header] of [
    ['Download customer satisfaction as CSV', 'csat', 'date,asked,responses,average,satisfied_percent,rating_1,rating_2,rating_3,rating_4,rating_5'],
    ['Download sla targets as CSV', 'sla', 'date,policy_id,policy_name,first_response_met,'],
  ] as const) {
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: button }).click();
    const file = await downloading;
    t.regex(file.suggestedFilename(), new RegExp(`^parley-${kind}-\\d{4}-\\d{2}-\\d{2}-to-\\d{4}-\\d{2}-\\d{2}\\.csv$`));
    const lines = (await readFile((await file.path())!, 'utf8')).trimEnd().split('\r\n');
    t.true(lines[0]!.startsWith(header), lines[0]);
    t.is(lines.length, kind === 'csat' ? 1 + 30 + 1 : 1 + 30 + 1 + 2);
  }
  t.deepEqual(await accessibilityViolations(page), []);
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('admin at phone width: reached from Analytics (the bottom bar keeps five items); the page fits the phone', async (t) => {
  const { page, context, errors } = await appPage(browser, app.url, ann.token, PHONE);
  await page.getByRole('link', { name: 'Analytics' }).click();
  t.false(await page.getByRole('link', { name: 'Reports', exact: true }).isVisible());
  await page.getByRole('link', { name: 'Reports by day, agent and label' }).click();
  await page.getByRole('button', { name: 'Last 90 days' }).click();
  await figure(page, 'Opened').waitFor();
  t.is(await figure(page, 'Opened').textContent(), String(inMonth));
  t.is(await page.getByRole('button', { name: 'Last 90 days' }).getAttribute('aria-pressed'), 'true');
  await page.getByRole('region', { name: 'Labels', exact: true }).locator('tbody tr').first().waitFor();
  t.true((await overflow(page)) <= PHONE.width, `page is ${await overflow(page)} px wide`);
  await shoot(page, 'reports-phone');
  await page.getByRole('region', { name: 'Agents', exact: true }).scrollIntoViewIfNeeded();
  await shoot(page, 'reports-phone-agents');
  await page.getByRole('region', { name: 'Labels', exact: true }).scrollIntoViewIfNeeded();
  await shoot(page, 'reports-phone-labels');
  await page.getByRole('region', { name: 'Customer satisfaction', exact: true }).scrollIntoViewIfNeeded();
  await shoot(page, 'reports-phone-csat');
  await page.getByRole('region', { name: 'SLA targets', exact: true }).scrollIntoViewIfNeeded();
  await shoot(page, 'reports-phone-sla');
  t.true((await overflow(page)) <= PHONE.width, `page is ${await overflow(page)} px wide`);
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('agent: no Reports item, and the path shows the inbox', async (t) => {
  const { page, context, errors } = await appPage(browser, app.url, agent.token);
  await page.getByRole('link', { name: 'Analytics' }).waitFor();
  t.is(await page.getByRole('link', { name: 'Reports' }).count(), 0);
  await page.goto(`${app.url}/app/reports`);
  await page.getByRole('link', { name: 'Inbox' }).waitFor();
  t.is(await page.getByRole('heading', { name: 'Reports' }).count(), 0);
  t.deepEqual(errors, []);
  await context.close();
});
