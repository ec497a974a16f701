/**
 * Debian's chromium driven by playwright-core (which never downloads a browser), for the
 * browser tests of the widget and the agent app. Without /usr/bin/chromium the tests using
 * `browserTest` are skipped, said so in the output.
 */
import test from 'ava';
import { existsSync, mkdirSync } from 'node:fs';
import http from 'node:http';
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
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
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

/**
 * A signed-in app tab: the token is where the app keeps it, as after signing in. `prepare`
 * runs on the context before the app loads (to route its requests or its WebSocket, say).
 */
export async function appPage(
  browser: Browser,
  appUrl: string,
  token: string,
  viewport = DESKTOP,
  prepare?: (context: BrowserContext) => Promise<void>,
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport });
  await context.addInitScript((t) => localStorage.setItem('parley.token', t), token);
  await prepare?.(context);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${appUrl}/app/inbox`);
  return { context, page, errors };
}

/**
 * Holds the app's live connection (its Socket.IO WebSocket) back until `release()`, so the page
 * reads through REST with no socket up; `opening()` says whether the app has tried to connect.
 * Pass `hold` as appPage's `prepare`.
 */
export function liveConnectionGate(): { hold: (context: BrowserContext) => Promise<void>; release: () => void; opening: () => boolean } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let opening = false;
  const hold = (context: BrowserContext) =>
    context.routeWebSocket(
      (url) => url.pathname.startsWith('/socket.io/'),
      async (ws) => {
        opening = true;
        await released;
        ws.connectToServer();
      },
    );
  return { hold, release, opening: () => opening };
}

/**
 * Visible controls (links, buttons, fields) without an accessible name: aria-label,
 * aria-labelledby, a <label>, a title, an image's alt, or their text. Returns their markup.
 */
export function unnamedControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    const controls = [...doc.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea, [role=switch], [role=tab]')];
    const named = (el: any) =>
      Boolean(
        el.getAttribute('aria-label')?.trim() ||
          el.getAttribute('aria-labelledby') ||
          el.labels?.length ||
          el.getAttribute('title') ||
          el.textContent?.trim() ||
          el.querySelector('img[alt]:not([alt=""]), svg[aria-label]'),
      );
    return controls.filter((el: any) => el.getClientRects().length > 0 && !named(el)).map((el: any) => String(el.outerHTML).slice(0, 120));
  });
}

/** A customer's website on an origin of its own (127.0.0.1, a free port); `url` ends in `/`. */
export type Shop = { url: string; close: () => Promise<void> };

/** Serves `html(url)` (the request's URL, for its query) as the page of every request. */
export async function startShop(html: (url: URL) => string): Promise<Shop> {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html(new URL(req.url ?? '/', 'http://shop')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
