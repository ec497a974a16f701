/**
 * Debian's chromium driven by playwright-core (which never downloads a browser), for the
 * browser tests of the widget and the agent app. Without /usr/bin/chromium the tests using
 * `browserTest` are skipped, said so in the output.
 */
import test from 'ava';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = existsSync(chromiumPath);
export const browserTest = hasChromium ? test.serial : test.skip;

export function noteIfSkipped(file: string): void {
  if (!hasChromium) console.log(`${file}: skipped, no browser at ${chromiumPath} (apt-get install -y chromium)`);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
  });
}

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** Screenshots go to test-artifacts/<name>/ (gitignored; CI keeps the folder as an artifact). */
export function artifactDir(name: string): string {
  const dir = path.join(import.meta.dirname, '..', '..', 'test-artifacts', name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A signed-in app tab: the token is where the app keeps it, as after signing in. */
export async function appPage(browser: Browser, appUrl: string, token: string, viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport });
  await context.addInitScript((t) => localStorage.setItem('parley.token', t), token);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${appUrl}/app/inbox`);
  return { context, page, errors };
}
