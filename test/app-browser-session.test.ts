/**
 * The agent app's sessions and habits in a real browser: the mailed verification link, the
 * Stripe return page, a revoked token sending the agent to sign in, two tabs at once (with the
 * title counter of a hidden one), catching up on what came before the live connection was up
 * or while it was down, and `j`/`k` through the list.
 */
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { waitFor } from './helpers/worker.ts';
import { appPage, browserTest, DESKTOP, hasChromium, launchChromium, liveConnectionGate, noteIfSkipped, PHONE } from './helpers/browser.ts';

noteIfSkipped('app-browser-session');

let app: TestApp;
let browser: Browser;
let owner: Workspace;
let widgetId = '';

test.before(async () => {
  if (!hasChromium) return;
  app = await startTestApp();
  owner = await createWorkspace(app, { name: 'Olive Owner' });
  widgetId = (await app.request('POST', '/api/v1/widget/create', { token: owner.token, body: { domain: 'shop.example.com' } })).body.id;
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

/** A new website visitor; `write` sends a message (the first one opens the conversation) and returns its conversation id. */
async function newVisitor(name: string): Promise<{ write: (content: string) => Promise<string> }> {
  const session = await app.request('POST', '/api/v1/visitor/sessions', { body: { widget_id: widgetId, name } });
  return {
    write: async (content) => {
      const sent = await app.request('POST', '/api/v1/visitor/messages', {
        headers: { authorization: `Bearer ${session.body.visitor_token}` },
        body: { content },
      });
      if (sent.status !== 200) throw new Error(sent.text);
      return sent.body.conversation_id;
    },
  };
}

/** A new website visitor writes in; returns the conversation id. */
async function visitorWrites(name: string, content: string): Promise<string> {
  return (await newVisitor(name)).write(content);
}

browserTest('the verification link verifies the address and the banner goes away', async (t) => {
  const [job] = await app.sql(
    `select j.payload from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
     where t.identifier = 'send_email' and j.payload->>'to' = $1`,
    [owner.email],
  );
  const link = /(http\S+\/verify-email\?token=\S+)/.exec(String(job.payload.text))![1]!;
  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  await page.getByText('Confirm your e-mail address').waitFor();
  await page.goto(link);
  await page.getByRole('heading', { name: 'E-mail verified' }).waitFor();
  const [user] = await app.sql('select is_verified from users where id = $1', [owner.userId]);
  t.true(user.is_verified);
  await page.getByRole('link', { name: 'Go to the inbox' }).click();
  await page.getByRole('heading', { name: 'Inbox' }).waitFor();
  t.is(await page.getByText('Confirm your e-mail address').count(), 0);
  t.deepEqual(errors, []);
  await context.close();
});

browserTest("Stripe's return page lands on the plan with the outcome", async (t) => {
  const { page, context } = await appPage(browser, app.url, owner.token);
  await page.goto(`${app.url}/billing?checkout=cancelled`);
  await page.getByText('Checkout was cancelled: nothing was charged.').waitFor();
  t.is(new URL(page.url()).pathname, '/app/settings/plan');
  await page.getByText('Current plan').waitFor();
  await context.close();
});

/** A tab going to the background or coming back, as the browser tells the page. */
const setHidden = (page: Page, hidden: boolean) =>
  page.evaluate((value) => {
    const doc = (globalThis as any).document;
    Object.defineProperty(doc, 'hidden', { configurable: true, get: () => value });
    doc.dispatchEvent(new Event('visibilitychange'));
  }, hidden);

browserTest('two tabs follow the inbox live; a hidden one counts new messages in its title', async (t) => {
  const { page: first, context, errors } = await appPage(browser, app.url, owner.token);
  const second = await context.newPage();
  await second.goto(`${app.url}/app/inbox`);
  await second.getByRole('heading', { name: 'Inbox' }).waitFor();
  // Both tabs' live connections are up before the customer writes: the hidden tab's title
  // counts live events, not what a tab catches up on when its connection comes up.
  const ownerSockets = () => [...app.web.realtime.io.sockets.sockets.values()].filter((s) => s.handshake.auth.token === owner.token);
  await waitFor(async () => ownerSockets().length >= 2, 10_000, 'both tabs connected');
  // The second tab goes to the background.
  await setHidden(second, true);
  await visitorWrites('Kim Two-Tabs', 'Hello from a second visitor');
  for (const page of [first, second])
    await page
      .getByRole('list', { name: 'Conversations' })
      .getByRole('link', { name: /Kim Two-Tabs/ })
      .waitFor();
  await second.waitForFunction(() => (globalThis as any).document.title === '(1) Inbox · Parley');
  t.is(await first.title(), 'Inbox · Parley', 'the visible tab keeps its title');
  // Back to the foreground: the counter resets.
  await setHidden(second, false);
  await second.waitForFunction(() => (globalThis as any).document.title === 'Inbox · Parley');
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('after a dropped connection the app catches up on what it missed', async (t) => {
  // A token of its own, to tell this tab's socket from those other tests left behind.
  const login = await app.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: 'password123' } });
  const { page, context } = await appPage(browser, app.url, login.body.access_token);
  await page.getByRole('heading', { name: 'Inbox' }).waitFor();
  const sockets = () => [...app.web.realtime.io.sockets.sockets.values()].filter((s) => s.handshake.auth.token === login.body.access_token);
  await waitFor(async () => sockets().length > 0, 10_000, 'the app socket');
  // The connection drops (as on a network change); a customer writes before it is back.
  for (const socket of sockets()) socket.conn.close();
  await visitorWrites('Noa Offline', 'Written while you were disconnected');
  await page
    .getByRole('list', { name: 'Conversations' })
    .getByRole('link', { name: /Noa Offline/ })
    .waitFor();
  // Back online: the banner goes (it may still show for a moment after the list caught up).
  await page.getByText('Reconnecting…').waitFor({ state: 'detached', timeout: 15_000 });
  t.is(await page.getByText('Reconnecting…').count(), 0, 'back online');
  await context.close();
});

browserTest('what arrives before the live connection is first up is shown once it is', async (t) => {
  const early = await newVisitor('Ada Early');
  const earlyId = await early.write('First question');
  // A token of its own, to change this agent's availability without touching other tabs' sessions.
  const login = await app.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: 'password123' } });
  // The app's live connection is held back: the page reads through REST meanwhile.
  const gate = liveConnectionGate();
  const { page, context, errors } = await appPage(browser, app.url, login.body.access_token, DESKTOP, gate.hold);
  const list = page.getByRole('list', { name: 'Conversations' });
  await list.getByRole('link', { name: /Ada Early/ }).click();
  const messages = page.getByRole('log', { name: 'Messages' });
  await messages.getByText('First question').waitFor();
  await waitFor(async () => gate.opening(), 10_000, 'the app opening its live connection');
  t.not(await page.getByRole('combobox', { name: 'Your availability' }).inputValue(), 'away');

  // Before the connection is up: a new conversation, a new message in the open one, and this
  // agent set away from elsewhere. No socket of this tab hears of them.
  await visitorWrites('Bo Before-Connect', 'Hello before you were connected');
  await early.write('Second question');
  t.is((await app.request('PATCH', '/api/v1/team/status', { token: login.body.access_token, body: { status: 'away' } })).status, 200);
  t.is(await list.getByRole('link', { name: /Bo Before-Connect/ }).count(), 0, 'not shown while the connection is held');
  t.is(await messages.getByText('Second question').count(), 0);

  // The connection comes up: the page catches up once, without a reload.
  const reads: string[] = [];
  page.on('request', (request) => {
    const { pathname } = new URL(request.url());
    if (request.method() === 'GET' && pathname.startsWith('/api/v1/')) reads.push(pathname);
  });
  gate.release();
  await list.getByRole('link', { name: /Bo Before-Connect/ }).waitFor({ timeout: 10_000 });
  await messages.getByText('Second question').waitFor({ timeout: 10_000 });
  await waitFor(async () => (await page.getByRole('combobox', { name: 'Your availability' }).inputValue()) === 'away', 10_000, 'the availability re-read');
  const count = (path: string) => reads.filter((p) => p === path).length;
  t.is(count('/api/v1/conversations'), 1, 'one re-read of the list');
  t.is(count(`/api/v1/conversations/${earlyId}`), 1, 'one re-read of the open conversation');
  t.is(count('/api/v1/team/members'), 1, 'one re-read of the team');
  t.deepEqual(errors, []);
  await app.request('PATCH', '/api/v1/team/status', { token: login.body.access_token, body: { status: 'offline' } });
  await context.close();
});

browserTest('j and k move through the conversation list', async (t) => {
  await visitorWrites('Lee Keyboard', 'First question');
  await visitorWrites('Max Keyboard', 'Second question');
  const { page, context } = await appPage(browser, app.url, owner.token);
  const links = page.getByRole('list', { name: 'Conversations' }).getByRole('link');
  await page
    .getByRole('list', { name: 'Conversations' })
    .getByRole('link', { name: /Lee Keyboard/ })
    .waitFor();
  const ids = await links.evaluateAll((nodes) => nodes.map((n) => n.closest('li')!.getAttribute('data-id')));
  await page.keyboard.press('j');
  await page.waitForURL(`**/app/inbox/${ids[0]}`);
  await page.keyboard.press('j');
  await page.waitForURL(`**/app/inbox/${ids[1]}`);
  await page.keyboard.press('k');
  await page.waitForURL(`**/app/inbox/${ids[0]}`);
  t.is(
    await page
      .getByRole('link', { name: /Lee Keyboard|Max Keyboard|Kim Two-Tabs/ })
      .and(page.locator(':focus'))
      .count(),
    1,
    'the selected row has the focus',
  );
  await context.close();
});

browserTest('a revoked token sends the agent to sign in at once, and signing in comes back', async (t) => {
  const login = await app.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: 'password123' } });
  const { page, context } = await appPage(browser, app.url, login.body.access_token);
  await page.getByRole('heading', { name: 'Inbox' }).waitFor();
  // Signed out elsewhere: the server closes this tab's live connection, the app checks and asks to sign in.
  await app.request('POST', '/api/v1/auth/logout', { token: login.body.access_token });
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  t.is(new URL(page.url()).searchParams.get('next'), '/app/inbox', 'back to where the agent was after signing in');
  t.is(await page.evaluate(() => localStorage.getItem('parley.token')), null);
  await page.getByLabel('Email').fill(owner.email);
  await page.getByLabel('Password').fill('password123');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Inbox' }).waitFor();
  await context.close();
});

browserTest('signing out on a phone (from Settings → Your account) ends the session', async (t) => {
  const login = await app.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: 'password123' } });
  const { page, context } = await appPage(browser, app.url, login.body.access_token, PHONE);
  await page.goto(`${app.url}/app/settings/account`);
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  t.is(await page.evaluate(() => localStorage.getItem('parley.token')), null);
  t.is((await app.request('GET', '/api/v1/auth/me', { token: login.body.access_token })).status, 401, 'the token is revoked');
  await context.close();
});

/** A workspace with `n` open conversations, its owner's token and the conversations' ids. */
async function busyWorkspace(name: string, n: number): Promise<{ busy: Workspace; ids: string[] }> {
  const busy = await createWorkspace(app, { name });
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await app.request('POST', '/api/v1/conversations', { token: busy.token, body: { business_id: busy.businessId } });
    if (res.status !== 200) throw new Error(res.text);
    ids.push(res.body.id);
  }
  return { busy, ids };
}

/** A gate for some of a page's requests: they wait until `open()`; `seen()` counts those that came. */
function requestGate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  let seen = 0;
  return {
    hold: async (route: import('playwright-core').Route) => {
      seen++;
      await opened;
      await route.continue();
    },
    open: () => open(),
    seen: () => seen,
  };
}

const listUrl = (url: URL) => url.pathname === '/api/v1/conversations';
const isShowMore = (url: URL) => listUrl(url) && url.searchParams.has('before');
const isReRead = (url: URL) => listUrl(url) && !url.searchParams.has('before');

browserTest('a long list shows 50 conversations, then more on request', async (t) => {
  const { busy } = await busyWorkspace('Busy Owner', 55);
  const { page, context } = await appPage(browser, app.url, busy.token);
  const rows = page.getByRole('list', { name: 'Conversations' }).getByRole('listitem');
  await page.getByRole('button', { name: 'Show more' }).waitFor();
  t.is(await rows.count(), 50);
  await page.getByRole('button', { name: 'Show more' }).click();
  await rows.nth(54).waitFor();
  t.is(await rows.count(), 55);
  t.is(await page.getByRole('button', { name: /Show more|Loading/ }).count(), 0, 'nothing more to show');
  await context.close();
});

browserTest('"Show more" is kept when the live connection comes up and an event arrives while its page loads', async (t) => {
  const { busy, ids } = await busyWorkspace('Busy Connecting', 55);
  const gate = liveConnectionGate();
  const { page, context, errors } = await appPage(browser, app.url, busy.token, DESKTOP, gate.hold);
  const rows = page.getByRole('list', { name: 'Conversations' }).getByRole('listitem');
  await page.getByRole('button', { name: 'Show more' }).waitFor();
  await waitFor(async () => gate.opening(), 10_000, 'the app opening its live connection');
  t.is(await rows.count(), 50);

  // The page "Show more" asks for is held until the connection is up and an event came.
  const more = requestGate();
  await page.route((url) => isShowMore(url), more.hold);
  const reReads: string[] = [];
  page.on('requestfinished', (request) => {
    const url = new URL(request.url());
    if (isReRead(url)) reReads.push(url.searchParams.get('limit') ?? '');
  });
  await page.getByRole('button', { name: 'Show more' }).click();
  await waitFor(async () => more.seen() === 1, 10_000, 'the "Show more" request');

  // The live connection comes up (a catch-up re-read), then an event names a conversation (another).
  const sockets = () => [...app.web.realtime.io.sockets.sockets.values()].filter((s) => s.handshake.auth.token === busy.token);
  gate.release();
  await waitFor(async () => sockets().length > 0 && reReads.length >= 1, 10_000, 'the catch-up re-read');
  const assigned = await app.request('PUT', `/api/v1/conversations/${ids[0]}/assign/1`, { token: busy.token });
  t.is(assigned.status, 200);
  await waitFor(async () => reReads.length >= 2, 10_000, 'the re-read the event asked for');
  more.open();

  await rows.nth(54).waitFor();
  await page.waitForLoadState('networkidle');
  t.is(await rows.count(), 55, 'the page asked for is still shown');
  t.true(
    reReads.every((limit) => limit === '100'),
    `re-reads keep the rows asked for (limits ${reReads.join(', ')})`,
  );
  t.is(await page.getByRole('button', { name: /Show more|Loading/ }).count(), 0, 'nothing more to show');
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('"Show more" is kept when a re-read that started before the click answers after it', async (t) => {
  const { busy } = await busyWorkspace('Busy Re-reading', 55);
  const gate = liveConnectionGate();
  const { page, context, errors } = await appPage(browser, app.url, busy.token, DESKTOP, gate.hold);
  const rows = page.getByRole('list', { name: 'Conversations' }).getByRole('listitem');
  await page.getByRole('button', { name: 'Show more' }).waitFor();
  await waitFor(async () => gate.opening(), 10_000, 'the app opening its live connection');

  // The catch-up re-read of the connect is held: it asked for one page, before the click.
  const reRead = requestGate();
  await page.route((url) => isReRead(url), reRead.hold);
  gate.release();
  await waitFor(async () => reRead.seen() === 1, 10_000, 'the catch-up re-read');
  await page.getByRole('button', { name: 'Show more' }).click();
  await rows.nth(54).waitFor();

  // The stale re-read answers (50 rows) after the page came: the list reads again, with 55.
  const limits: string[] = [];
  page.on('requestfinished', (request) => {
    const url = new URL(request.url());
    if (isReRead(url)) limits.push(url.searchParams.get('limit') ?? '');
  });
  await page.unroute((url) => isReRead(url), reRead.hold);
  reRead.open();
  await waitFor(async () => limits.includes('100'), 10_000, 'a re-read of the rows asked for');
  await page.waitForLoadState('networkidle');
  t.is(await rows.count(), 55);
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('a change of filters still starts again from one page', async (t) => {
  const { busy } = await busyWorkspace('Busy Filtering', 55);
  const { page, context } = await appPage(browser, app.url, busy.token);
  const rows = page.getByRole('list', { name: 'Conversations' }).getByRole('listitem');
  await page.getByRole('button', { name: 'Show more' }).click();
  await rows.nth(54).waitFor();
  // Open only (all 55 are open): the same conversations, but a new list of one page.
  await page.getByRole('combobox', { name: 'Status' }).selectOption('open');
  await page.waitForURL(/status=open/);
  await page.getByRole('button', { name: 'Show more' }).waitFor();
  await page.waitForLoadState('networkidle');
  t.is(await rows.count(), 50);
  await context.close();
});
