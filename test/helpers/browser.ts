/**
 * Debian's chromium driven by playwright-core (which never downloads a browser), for the
 * browser tests of the widget and the agent app. Without /usr/bin/chromium the tests using
 * `browserTest` are skipped, said so in the output.
 */
import test from 'ava';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import http from 'node:http';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';

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

/** The accessible name of the element `locator` points at, as the browser computes it (what a screen reader says). */
export async function accessibleName(locator: Locator): Promise<string> {
  const [node] = (await locator.ariaSnapshotJSON({ depth: 0 })) as { name?: string }[];
  return node?.name ?? '';
}

/** Whether the element `locator` points at has the keyboard focus. */
export function hasFocus(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => el === el.ownerDocument.activeElement);
}

/** axe-core's browser bundle, read once: injected through the DevTools protocol, so the app's CSP (script-src 'self') does not apply to it. */
let axeSource: string | undefined;

/**
 * What axe-core (Deque's accessibility engine) finds wrong on the page as it is now, for WCAG
 * 2.2 levels A and AA and axe's best practices: one line per rule and element, with axe's own
 * reason, so a failing test says what to fix. `[]` when nothing is. Hidden elements are not
 * checked: open a menu or dialog first to check it. axe runs in the page: its context needs
 * JavaScript on (in one without, the call never returns). Field hints are checked too
 * (fieldHintProblems).
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const violations: string[] = await page.evaluate(async () => {
    const axe = (globalThis as any).axe;
    const tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa', 'best-practice'];
    const result = await axe.run((globalThis as any).document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return result.violations.flatMap((v: any) =>
      v.nodes.map((n: any) => `${v.id} (${v.impact}) ${n.target.join(' ')}: ${String(n.failureSummary ?? v.help).replace(/\s+/g, ' ')}`),
    );
  });
  return [...violations, ...(await fieldHintProblems(page))];
}

/**
 * What axe does not check: a field's hint inside its `<label>` (`.field-hint`) must be read as
 * the control's description, not as part of its name (app/ui/FieldHint.tsx). For each, the
 * control of its label must name it in aria-describedby, and Chromium's accessibility tree must
 * give that control the hint as its description and a name without it.
 */
async function fieldHintProblems(page: Page): Promise<string[]> {
  const hints = await page.evaluate(() =>
    [...(globalThis as any).document.querySelectorAll('label .field-hint')].map((hint: any, index: number) => {
      const control = hint.closest('label').querySelector('input, textarea, select');
      control?.setAttribute('data-hint-check', String(index));
      const text = String(hint.textContent ?? '')
        .replace(/\s+/g, ' ')
        .trim();
      const described = Boolean(control && hint.id && (control.getAttribute('aria-describedby') ?? '').split(/\s+/).includes(hint.id));
      return { index, text, described, hasControl: Boolean(control) };
    }),
  );
  if (hints.length === 0) return [];
  const cdp = await page.context().newCDPSession(page);
  try {
    const problems: string[] = [];
    const { root } = await cdp.send('DOM.getDocument', { depth: 0 });
    for (const hint of hints) {
      if (!hint.hasControl) continue;
      if (!hint.described) problems.push(`field-hint "${hint.text}": its control does not name it in aria-describedby`);
      const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: `[data-hint-check="${hint.index}"]` });
      const { nodes } = await cdp.send('Accessibility.getPartialAXTree', { nodeId, fetchRelatives: false });
      const name = String(nodes[0]?.name?.value ?? '');
      const description = String(nodes[0]?.description?.value ?? '')
        .replace(/\s+/g, ' ')
        .trim();
      if (name.includes(hint.text)) problems.push(`field-hint "${hint.text}": part of the control's name "${name}"`);
      // A field refused by the API is described by its reason and its hint together.
      if (!description.includes(hint.text)) problems.push(`field-hint "${hint.text}": the control's description is "${description}"`);
    }
    return problems;
  } finally {
    await cdp.detach();
  }
}

/** What a screen reader is told about `control`: its node in Chromium's accessibility tree. */
export async function accessibleControl(control: Locator): Promise<{ name: string; description: string; invalid: boolean; focused: boolean }> {
  const page = control.page();
  const probe = randomUUID();
  await control.evaluate((element, mark) => element.setAttribute('data-ax-probe', mark), probe);
  const cdp = await page.context().newCDPSession(page);
  try {
    const { root } = await cdp.send('DOM.getDocument', { depth: 0 });
    const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: `[data-ax-probe="${probe}"]` });
    const { nodes } = await cdp.send('Accessibility.getPartialAXTree', { nodeId, fetchRelatives: false });
    const node = nodes[0];
    const property = (name: string) => node?.properties?.find((p) => p.name === name)?.value.value;
    const text = (value: unknown) =>
      String(value ?? '')
        .replace(/\s+/g, ' ')
        .trim();
    return {
      name: text(node?.name?.value),
      description: text(node?.description?.value),
      invalid: ![undefined, 'false', false].includes(property('invalid') as string | boolean | undefined),
      focused: property('focused') === true,
    };
  } finally {
    await cdp.detach();
    await control.evaluate((element) => element.removeAttribute('data-ax-probe'));
  }
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
