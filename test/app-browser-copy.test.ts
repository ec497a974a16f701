/**
 * Copy buttons that work on a LAN (issue 38, item 8): where the asynchronous clipboard API is
 * missing (plain http at a LAN address is not a secure context), Copy still copies, through the
 * `copy` command, and says "Copied". At 1280 and 390 px, axe-clean.
 */
import test from 'ava';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { accessibilityViolations, appPage, artifactDir, browserTest, DESKTOP, hasChromium, launchChromium, noteIfSkipped, PHONE } from './helpers/browser.ts';

noteIfSkipped('app-browser-copy');

let app: TestApp;
let browser: Browser;
let owner: Workspace;
const shots = artifactDir('first-day');

test.before(async () => {
  if (!hasChromium) return;
  app = await startTestApp();
  owner = await createWorkspace(app, { name: 'Lan Owner' });
  await app.request('POST', '/api/v1/widget/create', { token: owner.token, body: { domain: 'shop.example.com' } });
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

for (const [viewport, label] of [
  [DESKTOP, 'desktop'],
  [PHONE, 'phone'],
] as const) {
  browserTest(`without navigator.clipboard, Copy copies the snippet and says Copied (${label})`, async (t) => {
    const { page, context, errors } = await appPage(browser, app.url, owner.token, viewport, async (ctx) => {
      // As on http://192.168.1.20: no asynchronous clipboard; what the copy command copies is recorded.
      await ctx.addInitScript(() => {
        const g = globalThis as any;
        Object.defineProperty(g.navigator, 'clipboard', { value: undefined, configurable: true });
        g.document.addEventListener(
          'copy',
          (e: any) => {
            const target = e.target;
            g.copied = target && 'value' in target ? target.value.slice(target.selectionStart, target.selectionEnd) : String(g.getSelection());
          },
          true,
        );
      });
    });
    await page.goto(`${app.url}/app/settings/widget`);
    const copy = page.getByRole('button', { name: 'Copy embed snippet' });
    await copy.click();
    await page.getByRole('button', { name: 'Copied embed snippet' }).waitFor();
    const copied: string | undefined = await page.evaluate(() => (globalThis as any).copied);
    t.regex(copied ?? '', /^<script src=".*\/widget\.js" data-widget-id="[0-9a-f-]{36}" async><\/script>$/);
    await page.screenshot({ path: path.join(shots, `copy-fallback-${label}.png`) });
    t.deepEqual(await accessibilityViolations(page), []);
    // It goes back to Copy.
    await page.getByRole('button', { name: 'Copy embed snippet' }).waitFor({ timeout: 5000 });
    t.deepEqual(errors, []);
    await context.close();
  });
}
