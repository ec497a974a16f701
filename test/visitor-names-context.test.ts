/**
 * Every website visitor has a name and a context (issue 38, item 2): an anonymous visitor gets a
 * friendly generated name no other customer of the business has, until they give theirs; the
 * widget's report of the visit (page, referrer, language, time zone, pages seen) is kept with the
 * browser and system of the User-Agent and shown to agents beside the conversation. In the
 * browser: a visitor browses two pages of a shop and writes; the agent sees who and where.
 */
import test from 'ava';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import type { SupervisedRunner as Runner } from '../workers/supervisor.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { startTestWorker } from './helpers/worker.ts';
import {
  accessibilityViolations,
  appPage,
  artifactDir,
  browserTest,
  DESKTOP,
  hasChromium,
  launchChromium,
  PHONE,
  startShop,
  type Shop,
} from './helpers/browser.ts';
import { generatedVisitorName } from '../core/domain/visitors/visitor-names.ts';
import { summariseUserAgent } from '../core/domain/visitors/user-agent.ts';

let app: TestApp;
let worker: Runner | undefined;
let browser: Browser | undefined;
let shop: Shop | undefined;
let owner: Workspace;
let widgetId = '';
const shots = artifactDir('first-day');
const FIREFOX_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:128.0) Gecko/20100101 Firefox/128.0';
const GENERATED = /^[A-Z][a-z]+ [A-Z][a-z]+( \d+)?$/;

test.before(async () => {
  app = await startTestApp();
  owner = await createWorkspace(app, { name: 'Nora Owner' });
  const widget = await app.request('POST', '/api/v1/widget/create', { token: owner.token, body: { domain: '*' } });
  widgetId = widget.body.id;
  if (hasChromium) {
    worker = await startTestWorker(app, { only: ['deliver_message', 'process_inbound'] });
    shop = await startShop(
      (url) =>
        `<!doctype html><html><head><meta charset="utf-8"><title>${url.pathname === '/pricing' ? 'Pricing' : 'Acme shop'}</title></head>` +
        `<body><h1>Acme</h1><a href="/pricing">Pricing</a><script src="${app.url}/widget.js" data-widget-id="${widgetId}" async></script></body></html>`,
    );
    browser = await launchChromium();
  }
});

test.after.always(async () => {
  await browser?.close();
  await shop?.close();
  await worker?.stop();
  await app?.close();
});

const session = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  app.request('POST', '/api/v1/visitor/sessions', { body: { widget_id: widgetId, ...body }, headers });
const customerByVisitor = async (visitorId: string) =>
  (await app.sql('select id, number, name from customers where platform_user_id = $1', [visitorId]))[0] as { id: string; number: number; name: string };

test.serial('anonymous visitors starting at once get distinct friendly names; a name they give replaces it', async (t) => {
  const started = await Promise.all(Array.from({ length: 16 }, () => session({})));
  for (const s of started) t.is(s.status, 200, s.text);
  const names = await Promise.all(started.map(async (s) => (await customerByVisitor(s.body.visitor_id)).name));
  for (const name of names) t.regex(name, GENERATED);
  t.is(new Set(names).size, names.length, `distinct: ${names.join(', ')}`);

  // They say who they are: the generated name gives way.
  const [first] = started;
  const resumed = await session({ visitor_token: first.body.visitor_token, name: 'Maria Lopez' });
  t.true(resumed.body.resumed);
  t.is((await customerByVisitor(first.body.visitor_id)).name, 'Maria Lopez');
  // Named from the start: no generated name.
  const named = await session({ name: 'Jon Snow' });
  t.is((await customerByVisitor(named.body.visitor_id)).name, 'Jon Snow');
  // A visitor from before generated names (name blank) gets one when they come back.
  const old = started[1];
  await app.sql("update customers set name = '' where platform_user_id = $1", [old.body.visitor_id]);
  await session({ visitor_token: old.body.visitor_token });
  t.regex((await customerByVisitor(old.body.visitor_id)).name, GENERATED);
});

test.serial('once every pair is taken a number follows, still unique within the business and not across', async (t) => {
  const lists = { adjectives: ['Calm'], animals: ['Otter'] };
  const other = await createWorkspace(app, { name: 'Other Owner' });
  const [channel] = await app.sql("select id from channels where business_id = $1 and type = 'webchat'", [owner.businessId]);
  const [otherChannel] = await app.sql("select id from channels where business_id = $1 and type = 'webchat'", [other.businessId]);
  const store = async (businessId: string, channelId: string) => {
    const name = await app.deps.db.transaction((tx) => generatedVisitorName(tx, businessId, lists));
    await app.sql('insert into customers (business_id, channel_id, platform_user_id, name) values ($1, $2, gen_random_uuid()::text, $3)', [
      businessId,
      channelId,
      name,
    ]);
    return name;
  };
  t.is(await store(owner.businessId, channel.id), 'Calm Otter');
  t.is(await store(owner.businessId, channel.id), 'Calm Otter 2');
  t.is(await store(owner.businessId, channel.id), 'Calm Otter 3');
  t.is(await store(other.businessId, otherChannel.id), 'Calm Otter', "another business's names are its own");
});

test('the visit is kept with the browser of the User-Agent and read beside the customer', async (t) => {
  const context = {
    page_url: 'https://shop.example.com/pricing?plan=pro',
    page_title: 'Pricing',
    referrer: 'https://www.google.com/',
    language: 'fr-FR',
    timezone: 'Europe/Paris',
    pages: [
      { url: 'https://shop.example.com/', title: 'Acme shop', at: '2026-12-07T10:00:00Z' },
      { url: 'https://shop.example.com/pricing?plan=pro', title: 'Pricing', at: '2026-12-07T10:01:00Z' },
    ],
  };
  const started = await session({ context }, { 'user-agent': FIREFOX_MAC });
  t.is(started.status, 200, started.text);
  const customer = await customerByVisitor(started.body.visitor_id);
  const res = await app.request('GET', `/api/v1/customers/${customer.number}/visit`, { token: owner.token });
  t.is(res.status, 200, res.text);
  t.like(res.body.visit, {
    page_url: context.page_url,
    page_title: 'Pricing',
    referrer: 'https://www.google.com/',
    browser: 'Firefox 128',
    os: 'macOS',
    language: 'fr-FR',
    timezone: 'Europe/Paris',
  });
  t.deepEqual(
    res.body.visit.pages.map((p: { title: string }) => p.title),
    ['Acme shop', 'Pricing'],
  );

  // The next page load resumes and reports again: the latest report stands.
  await session({ visitor_token: started.body.visitor_token, context: { ...context, page_url: 'https://shop.example.com/checkout', page_title: 'Checkout' } });
  const again = await app.request('GET', `/api/v1/customers/${customer.number}/visit`, { token: owner.token });
  t.is(again.body.visit.page_title, 'Checkout');

  // Another business's member: 404. A customer the widget never reported on: null.
  const stranger = await createWorkspace(app);
  t.is((await app.request('GET', `/api/v1/customers/${customer.number}/visit`, { token: stranger.token })).status, 404);
  const quiet = await session({});
  const quietCustomer = await customerByVisitor(quiet.body.visitor_id);
  t.deepEqual((await app.request('GET', `/api/v1/customers/${quietCustomer.number}/visit`, { token: owner.token })).body, { visit: null });
});

test.serial('a context the server cannot keep is a 422 naming the field, and no visitor starts', async (t) => {
  const [{ n: before }] = await app.sql('select count(*)::int as n from customers where business_id = $1', [owner.businessId]);
  for (const [context, field] of [
    [{ page_url: 'javascript:alert(1)' }, 'page_url'],
    [{ timezone: 'Mars/Olympus_Mons' }, 'timezone'],
    [{ language: 'en US; drop' }, 'language'],
    [{ pages: [{ url: 'https://a.example/', at: 'yesterday' }] }, 'at'],
  ] as const) {
    const res = await session({ context });
    t.is(res.status, 422, `${field}: ${res.text}`);
    t.true(JSON.stringify(res.body.detail).includes(field), res.text);
  }
  const [{ n: after }] = await app.sql('select count(*)::int as n from customers where business_id = $1', [owner.businessId]);
  t.is(after, before);
});

test('user agents: the families people recognise, look-alikes told apart', (t) => {
  const chrome = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
  t.deepEqual(summariseUserAgent(chrome), { browser: 'Chrome 131', os: 'Linux' });
  t.deepEqual(summariseUserAgent(`${chrome.replace('X11; Linux x86_64', 'Windows NT 10.0; Win64; x64')} Edg/131.0.2903.86`), {
    browser: 'Edge 131',
    os: 'Windows',
  });
  t.deepEqual(
    summariseUserAgent(
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
    ),
    { browser: 'Safari 18', os: 'iOS' },
  );
  t.deepEqual(summariseUserAgent('Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36'), {
    browser: 'Chrome 131',
    os: 'Android',
  });
  t.deepEqual(summariseUserAgent(FIREFOX_MAC), { browser: 'Firefox 128', os: 'macOS' });
  t.deepEqual(summariseUserAgent(undefined), { browser: null, os: null });
  t.deepEqual(summariseUserAgent('curl/8.5.0'), { browser: null, os: null });
});

browserTest('a visitor browses two pages and writes: the agent sees their name, page, browser, local time and pages seen', async (t) => {
  const visitorContext = await browser!.newContext({ viewport: DESKTOP, locale: 'de-DE', timezoneId: 'America/New_York' });
  const visitor = await visitorContext.newPage();
  await visitor.goto(shop!.url);
  await visitor.locator('#parley-widget .bubble').waitFor();
  await visitor.getByRole('link', { name: 'Pricing' }).click();
  await visitor.waitForURL(/\/pricing$/);
  await visitor.locator('#parley-widget .bubble').click();
  await visitor.locator('#parley-widget .input').fill('Is there a discount for schools?');
  await visitor.locator('#parley-widget .input').press('Enter');
  await visitor.locator('#parley-widget .msg.customer[data-id]').waitFor();
  const [row] = await app.sql(
    "select cu.name, c.id from conversations c join customers cu on cu.id = c.customer_id where c.business_id = $1 and c.channel_type = 'widget' order by c.created_at desc limit 1",
    [owner.businessId],
  );
  t.regex(row.name, GENERATED);

  for (const [viewport, label] of [
    [DESKTOP, 'desktop'],
    [PHONE, 'phone'],
  ] as const) {
    const { page, context, errors } = await appPage(browser!, app.url, owner.token, viewport);
    await page.goto(`${app.url}/app/inbox/${row.id}`);
    if (label === 'phone') await page.getByRole('button', { name: 'Customer' }).click();
    const panel = page.getByRole('complementary', { name: 'Customer' });
    await panel.getByRole('heading', { name: row.name }).waitFor();
    const visit = panel.getByRole('region', { name: 'This visit' });
    await visit.getByRole('link', { name: 'Pricing' }).waitFor();
    t.regex(await visit.innerText(), /Chrome \d+ on Linux/);
    t.regex(await visit.innerText(), /de-DE/);
    t.regex(await visit.innerText(), /\(America\/New_York\)/);
    await visit.getByText('2 pages seen').click();
    await visit.getByRole('link', { name: 'Acme shop' }).waitFor();
    await page.screenshot({ path: path.join(shots, `visitor-context-${label}.png`) });
    t.deepEqual(await accessibilityViolations(page), []);
    t.deepEqual(errors, []);
    await context.close();
  }
  await visitorContext.close();
});
