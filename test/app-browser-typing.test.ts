/**
 * Typing and collision in real browsers: a visitor in the website widget (on a shop's own
 * origin) and an agent in the app see each other type; two agents in the app see who is viewing
 * and who is replying in the thread header, with a warning above the reply box. Screenshots at
 * desktop and phone widths go to test-artifacts/typing/.
 */
import test from 'ava';
import http from 'node:http';
import path from 'node:path';
import { io as connectClient, type Socket } from 'socket.io-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { SupervisedRunner as Runner } from '../workers/supervisor.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, type Account, type Workspace } from './helpers/fixtures.ts';
import { startTestWorker, waitFor } from './helpers/worker.ts';
import { appPage, artifactDir, browserTest, DESKTOP, hasChromium, launchChromium, noteIfSkipped, PHONE, accessibilityViolations } from './helpers/browser.ts';

noteIfSkipped('app-browser-typing');

let app: TestApp;
let worker: Runner;
let browser: Browser;
let shop: http.Server;
let shopUrl = '';
let owner: Workspace;
let ana: Account;
let bruno: Account;
let widgetId = '';
const shots = artifactDir('typing');
const sockets: Socket[] = [];

test.before(async () => {
  if (!hasChromium) return;
  app = await startTestApp();
  worker = await startTestWorker(app, { only: ['deliver_message', 'process_inbound'] });
  owner = await createWorkspace(app, { name: 'Olive Owner', plan: 'Mini' });
  ana = await addMember(app, owner.businessId, 'agent', { name: 'Ana Agent', status: 'live' });
  bruno = await addMember(app, owner.businessId, 'admin', { name: 'Bruno Admin', status: 'live' });
  const widget = await app.request('POST', '/api/v1/widget/create', {
    token: owner.token,
    body: {
      domain: 'shop.example.com',
      primary_color: '#0E7C66',
      welcome_heading: 'Hello from Acme',
      welcome_tagline: 'Questions about your order? Ask away.',
    },
  });
  if (widget.status !== 200) throw new Error(`create widget failed: ${widget.status} ${widget.text}`);
  widgetId = widget.body.id;
  const page = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Acme shop</title></head>
<body style="font-family: sans-serif; background: #f3f4f6; margin: 40px"><h1>Acme shop</h1><p>Fine goods since 1890.</p>
<script src="${app.url}/widget.js" data-widget-id="${widgetId}" async></script></body></html>`;
  shop = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page);
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', () => resolve()));
  shopUrl = `http://127.0.0.1:${(shop.address() as { port: number }).port}/`;
  browser = await launchChromium();
});

test.after.always(async () => {
  for (const socket of sockets) socket.close();
  await browser?.close();
  await new Promise((resolve) => (shop ? shop.close(resolve) : resolve(undefined)));
  await worker?.stop();
  await app?.close();
});

/** What the thread header says of the teammates here, chip by chip (without the avatars' initials). */
const teammatesHere = (page: Page) => page.locator('.presence-line .presence-chip > span:last-child').allTextContents();

const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(shots, `${name}.png`) });

/** Nothing on the page reaches past the viewport's width. */
const tooWide = (page: Page) =>
  page.evaluate(() => {
    const doc = (globalThis as any).document;
    const width = doc.documentElement.clientWidth;
    return [...doc.querySelectorAll('body *')]
      .filter((el: any) => el.getBoundingClientRect().right > width + 1)
      .map((el: any) => `${el.tagName}.${el.className}`)
      .slice(0, 10);
  });

/** A visitor on the shop page with the widget open, after their first message; the conversation's id. */
async function visitorWritesIn(
  viewport: { width: number; height: number },
  text: string,
): Promise<{ context: BrowserContext; page: Page; conversationId: string; errors: string[] }> {
  const context = await browser.newContext({ viewport, ...(viewport.width < 500 ? { isMobile: true, hasTouch: true } : {}) });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(shopUrl);
  await page.locator('#parley-widget .bubble').click();
  const input = page.locator('#parley-widget .input');
  await input.fill(text);
  await input.press('Enter');
  const sent = page.locator('#parley-widget .msg.customer[data-id]', { hasText: text });
  await sent.waitFor();
  const messageId = await sent.getAttribute('data-id');
  const [row] = await app.sql('select m.conversation_id, c.customer_id from messages m join conversations c on c.id = m.conversation_id where m.id = $1', [
    messageId,
  ]);
  // The widget's live connection is up (it opens with the first message).
  await waitFor(
    async () => (await app.web.realtime.io.of('/widget').in(`visitor:${row.customer_id}`).fetchSockets()).length > 0,
    20_000,
    'the widget connected',
  );
  return { context, page, conversationId: row.conversation_id, errors };
}

/** An agent's app tab on the conversation, once its thread shows and its live connection joined the conversation. */
async function agentOn(account: Account, conversationId: string, viewport = DESKTOP) {
  const tab = await appPage(browser, app.url, account.token, viewport);
  await tab.page.goto(`${app.url}/app/inbox/${conversationId}`);
  await tab.page.getByRole('log', { name: 'Messages' }).waitFor();
  await waitFor(
    async () => {
      const inRoom = await app.web.realtime.io.in(`conversation:${conversationId}`).fetchSockets();
      return inRoom.some((s) => (s.data as any).caller?.userId === account.userId);
    },
    20_000,
    'the tab joined the conversation',
  );
  return tab;
}

for (const [width, viewport] of [
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const) {
  browserTest(`${width}: the visitor and the agent see each other type; a note's typing is not the visitor's`, async (t) => {
    const visitor = await visitorWritesIn(viewport, `Hi, has my order shipped? (${width})`);
    const agent = await agentOn(owner, visitor.conversationId, viewport);
    const agentSees = agent.page.locator('.typing-indicator');
    const visitorSees = visitor.page.locator('#parley-widget .typing');

    // The visitor types: the agent's thread says so, under the messages.
    await visitor.page.locator('#parley-widget .input').pressSequentially('And can I still change the addr', { delay: 15 });
    await agentSees.waitFor();
    t.regex((await agentSees.textContent()) ?? '', /is typing…$/);
    await shoot(agent.page, `agent-sees-visitor-typing-${width}`);
    // Emptying the box is a stop.
    await visitor.page.locator('#parley-widget .input').fill('');
    await agentSees.waitFor({ state: 'detached' });

    // The agent types a reply: "Agent is typing…" in the widget, no name.
    const reply = agent.page.getByRole('textbox', { name: 'Reply' });
    await reply.click();
    await agent.page.keyboard.type('Yes, it left this morn', { delay: 15 });
    await visitorSees.waitFor({ state: 'visible' });
    t.is(await visitorSees.textContent(), 'Agent is typing…');
    await shoot(visitor.page, `widget-agent-typing-${width}`);

    // The draft becomes a note: the visitor's indicator goes at once; typing on is not shown.
    await agent.page.getByRole('tab', { name: 'Private note' }).click();
    await visitorSees.waitFor({ state: 'hidden' });
    await agent.page.keyboard.type(' (check the courier)', { delay: 15 });
    // Back to a reply: shown again; sending it hides it and shows the message.
    await agent.page.getByRole('tab', { name: 'Reply' }).click();
    await agent.page.getByRole('textbox', { name: 'Reply' }).fill('Yes, it left this morning.');
    await visitorSees.waitFor({ state: 'visible' });
    await agent.page.keyboard.press('Enter');
    await visitor.page.locator('#parley-widget .msg.agent', { hasText: 'Yes, it left this morning.' }).waitFor();
    await visitorSees.waitFor({ state: 'hidden' });
    await shoot(visitor.page, `widget-after-reply-${width}`);

    t.deepEqual(await tooWide(agent.page), [], 'the app fits');
    t.deepEqual(await tooWide(visitor.page), [], 'the shop page with the widget fits');
    t.deepEqual(await accessibilityViolations(agent.page), []);
    t.deepEqual(agent.errors, []);
    t.deepEqual(visitor.errors, []);
    await agent.context.close();
    await visitor.context.close();
  });
}

/** A conversation of the widget's channel, written in over the visitor API. */
async function conversationByApi(text: string): Promise<string> {
  const session = await app.request('POST', '/api/v1/visitor/sessions', { body: { widget_id: widgetId, name: 'Marta Visitor' } });
  const sent = await app.request('POST', '/api/v1/visitor/messages', {
    headers: { authorization: `Bearer ${session.body.visitor_token}` },
    body: { content: text },
  });
  if (sent.status !== 200) throw new Error(`visitor message: ${sent.status} ${sent.text}`);
  return sent.body.conversation_id;
}

for (const [width, viewport] of [
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const) {
  browserTest(`${width}: two agents: who is viewing, who is replying, and a warning before answering twice`, async (t) => {
    const conversationId = await conversationByApi(`My invoice is wrong (${width})`);
    const olive = await agentOn(owner, conversationId, viewport);
    const header = olive.page.getByRole('status', { name: 'Teammates here' });
    const warning = olive.page.locator('.collision-warning');

    const anaTab = await agentOn(ana, conversationId, viewport);
    await header.getByText('Ana Agent is viewing').waitFor();
    t.deepEqual(await teammatesHere(anaTab.page), ['Olive Owner is viewing'], 'each sees the other, not themselves');

    // Ana writes a reply: Olive's header says she is replying, and Olive's reply box warns.
    await anaTab.page.getByRole('textbox', { name: 'Reply' }).click();
    await anaTab.page.keyboard.type('Sorry about that, I will fix the', { delay: 15 });
    await header.getByText('Ana Agent is replying…').waitFor();
    await warning.waitFor();
    t.is(await warning.textContent(), 'Ana Agent is replying to this customer right now. Check before you send, so they do not get two answers.');
    await olive.page.getByRole('textbox', { name: 'Reply' }).click();
    await shoot(olive.page, `collision-replying-${width}`);

    // A note is no collision: said as such, no warning.
    await anaTab.page.getByRole('tab', { name: 'Private note' }).click();
    await header.getByText('Ana Agent is writing a note…').waitFor();
    await warning.waitFor({ state: 'detached' });

    // Ana leaves the conversation: gone from Olive's header.
    await anaTab.page.goto(`${app.url}/app/inbox`);
    await header.getByText('Ana Agent').waitFor({ state: 'detached' });
    t.deepEqual(await teammatesHere(olive.page), []);

    t.deepEqual(await tooWide(olive.page), []);
    t.deepEqual(await accessibilityViolations(olive.page), []);
    t.deepEqual(olive.errors, []);
    t.deepEqual(anaTab.errors, []);
    await olive.context.close();
    await anaTab.context.close();
  });
}

browserTest('a typing state with no news expires on the receiving side', async (t) => {
  const conversationId = await conversationByApi('Is anyone there?');
  const olive = await agentOn(owner, conversationId);
  const header = olive.page.getByRole('status', { name: 'Teammates here' });
  // Bruno's client says "typing" once and never again (nor stops): his socket stays, joined.
  const socket = connectClient(app.url, { path: '/socket.io', transports: ['websocket'], auth: { token: bruno.token }, reconnection: false, forceNew: true });
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  const ask = (name: string, payload: unknown) => new Promise<any>((resolve) => socket.emit(name, payload, resolve));
  t.deepEqual(await ask('join_conversation', { conversation_id: conversationId }), { ok: true });
  await header.getByText('Bruno Admin is viewing').waitFor();
  t.deepEqual(await ask('typing', { conversation_id: conversationId, typing: true }), { ok: true });
  await header.getByText('Bruno Admin is replying…').waitFor();
  const shownAt = Date.now();
  await header.getByText('Bruno Admin is viewing').waitFor({ timeout: 10_000 });
  const shownFor = Date.now() - shownAt;
  t.true(shownFor > 4000 && shownFor < 8000, `hidden ${shownFor} ms after the last update (6 s expected)`);
  t.true(socket.connected);
  t.deepEqual(await teammatesHere(olive.page), ['Bruno Admin is viewing'], 'still viewing');
  await olive.context.close();
});
