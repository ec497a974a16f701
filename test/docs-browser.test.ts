/**
 * The API reference in a real browser: a `docs/decisions.md#…` named by an operation on /docs is
 * a link, and following it opens /docs/decisions at that heading, readable on a desktop and a
 * phone, with nothing refused by its Content-Security-Policy. Screenshots go to
 * test-artifacts/docs-browser/.
 */
import test from 'ava';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { artifactDir, browserTest, DESKTOP, hasChromium, launchChromium, noteIfSkipped, PHONE } from './helpers/browser.ts';

noteIfSkipped('docs-browser');

let app: TestApp;
let browser: Browser;

test.before(async () => {
  if (!hasChromium) return;
  app = await startTestApp();
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

/** A tab that records page errors and console errors (a CSP refusal is one). */
async function openTab(viewport: { width: number; height: number }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${message.text()} ${message.location().url}`);
  });
  return { context, page, errors };
}

/** Where a heading sits in the window: its top, and whether the page scrolled to reach it. */
const headingPlace = (page: Page, id: string) =>
  page.evaluate((target) => {
    const doc = (globalThis as any).document;
    return { top: Math.round(doc.getElementById(target).getBoundingClientRect().top), scrolled: (globalThis as any).scrollY > 0 };
  }, id);

browserTest('a decision named on /docs is a link that opens /docs/decisions at its heading', async (t) => {
  const { context, page, errors } = await openTab(DESKTOP);
  await page.goto(`${app.url}/docs`);
  await page.locator('summary', { hasText: /\/api\/v1\/auth\/logout\b(?!-)/ }).click();
  const link = page.getByRole('link', { name: 'docs/decisions.md#accounts-and-tokens' }).first();
  t.is(await link.getAttribute('href'), '/docs/decisions#accounts-and-tokens');
  await page.screenshot({ path: path.join(artifactDir('docs-browser'), 'docs-desktop.png') });
  await link.click();
  await page.waitForURL(`${app.url}/docs/decisions#accounts-and-tokens`);
  await page.getByRole('heading', { name: 'Accounts and tokens' }).waitFor();
  const place = await headingPlace(page, 'accounts-and-tokens');
  t.true(place.scrolled, 'the page scrolled to the heading');
  t.true(place.top >= 0 && place.top < 100, `the heading is at the top of the window (${place.top}px)`);
  t.is(await page.title(), 'Decisions Parley took where its contract was silent · Parley');
  await page.screenshot({ path: path.join(artifactDir('docs-browser'), 'decisions-desktop.png') });
  await page.goto(`${app.url}/docs/decisions`);
  await page.screenshot({ path: path.join(artifactDir('docs-browser'), 'decisions-desktop-top.png') });
  await page.getByRole('link', { name: '← API reference' }).click();
  await page.waitForURL(`${app.url}/docs`);
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('on a phone the decisions page fits the width and opens at the linked heading', async (t) => {
  const { context, page, errors } = await openTab(PHONE);
  await page.goto(`${app.url}/docs/decisions#rate-and-size-limits`);
  await page.getByRole('heading', { name: 'Rate and size limits' }).waitFor();
  const place = await headingPlace(page, 'rate-and-size-limits');
  t.true(place.top >= 0 && place.top < 100, `the heading is at the top of the window (${place.top}px)`);
  const width = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth);
  t.true(width <= PHONE.width, `no sideways scrolling (${width}px wide)`);
  await page.screenshot({ path: path.join(artifactDir('docs-browser'), 'decisions-phone.png') });
  await page.goto(`${app.url}/docs/decisions`);
  await page.screenshot({ path: path.join(artifactDir('docs-browser'), 'decisions-phone-top.png') });
  t.deepEqual(errors, []);
  await context.close();
});
