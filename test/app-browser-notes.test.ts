/**
 * Private notes and mentions in the agent app, in a real browser: the owner switches the
 * composer to Private note, mentions a teammate with @ completion and adds the note (yellow,
 * tagged); the teammate's navigation shows the unread mention live, the Mentions page lists it
 * and opening it marks it read. The visitor never sees the note. Screenshots at desktop and
 * phone widths go to test-artifacts/app/ (notes-*.png).
 */
import test from 'ava';
import path from 'node:path';
import type { SupervisedRunner as Runner } from '../workers/supervisor.ts';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, type Account, type Workspace } from './helpers/fixtures.ts';
import { startTestWorker } from './helpers/worker.ts';
import { appPage, artifactDir, browserTest, hasChromium, launchChromium, noteIfSkipped, PHONE, accessibilityViolations } from './helpers/browser.ts';

noteIfSkipped('app-browser-notes');

let app: TestApp;
let worker: Runner;
let browser: Browser;
let owner: Workspace;
let ana: Account;
const shots = artifactDir('app');

test.before(async () => {
  if (!hasChromium) return;
  app = await startTestApp();
  worker = await startTestWorker(app, { only: ['deliver_message', 'process_inbound'] });
  owner = await createWorkspace(app, { name: 'Olive Owner', plan: 'Mini' });
  ana = await addMember(app, owner.businessId, 'agent', { name: 'Ana Agent', status: 'live' });
  await addMember(app, owner.businessId, 'admin', { name: 'Bruno Admin', status: 'live' });
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await worker?.stop();
  await app?.close();
});

const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(shots, `${name}.png`) });

/** A website visitor writes in; returns the conversation id and the visitor's token. */
async function visitorWrites(content: string): Promise<{ conversationId: string; visitorToken: string }> {
  const widget = await app.request('POST', '/api/v1/widget/create', { token: owner.token, body: { domain: `shop-${Date.now()}.example` } });
  const session = await app.request('POST', '/api/v1/visitor/sessions', { body: { widget_id: widget.body.id, name: 'Marta Visitor' } });
  const sent = await app.request('POST', '/api/v1/visitor/messages', { headers: { authorization: `Bearer ${session.body.visitor_token}` }, body: { content } });
  if (sent.status !== 200) throw new Error(`visitor message: ${sent.status} ${sent.text}`);
  return { conversationId: sent.body.conversation_id, visitorToken: session.body.visitor_token };
}

browserTest("a note with an @mention: yellow and tagged in the thread, live in the teammate's Mentions, never for the visitor", async (t) => {
  const { conversationId, visitorToken } = await visitorWrites('My parcel arrived damaged, what now?');

  const agent = await appPage(browser, app.url, ana.token);
  const mentionsLink = agent.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Mentions/ });
  await mentionsLink.waitFor();
  t.is(await agent.page.locator('.nav-badge').count(), 0, 'nothing unread yet');

  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  await page.goto(`${app.url}/app/inbox/${conversationId}`);
  await page.getByRole('tab', { name: 'Private note' }).click();
  const box = page.getByRole('textbox', { name: 'Private note' });
  await box.click();
  await page.keyboard.type('Photos look bad, refund approved? @an');
  const suggest = page.getByRole('listbox', { name: 'Mention a teammate' });
  await suggest.getByRole('option', { name: /Ana Agent/ }).waitFor();
  t.false(await suggest.getByRole('option', { name: /Bruno Admin/ }).isVisible(), 'filtered by what was typed');
  await shoot(page, 'notes-mention-completion-desktop');
  await page.keyboard.press('Enter');
  t.is(await box.inputValue(), 'Photos look bad, refund approved? @Ana Agent ');
  await page.keyboard.type('please confirm');
  t.deepEqual(await accessibilityViolations(page), []);
  await page.getByRole('button', { name: 'Add note' }).click();

  const log = page.getByRole('log', { name: 'Messages' });
  const noteInThread = log.locator('.msg.note');
  await noteInThread.getByText('Private note').waitFor();
  await noteInThread.locator('.mention-chip', { hasText: '@Ana Agent' }).waitFor();
  t.is(await box.inputValue(), '', 'the box is emptied');
  const background = await noteInThread.locator('.msg-bubble').evaluate((el) => (globalThis as any).getComputedStyle(el).backgroundColor);
  t.is(background, 'rgb(255, 248, 219)', 'notes are yellow');
  await shoot(page, 'notes-thread-desktop');

  const [stored] = await app.sql(`select id, private, delivery_status from messages where conversation_id = $1 and private`, [conversationId]);
  t.like(stored, { private: true, delivery_status: null });
  const [mention] = await app.sql(`select m.read_at from mentions m join team_members tm on tm.id = m.member_id where tm.user_id = $1`, [ana.userId]);
  t.is(mention.read_at, null);

  // A reply after it goes to the visitor; the note never does.
  await page.getByRole('tab', { name: 'Reply' }).click();
  await page.getByRole('textbox', { name: 'Reply' }).fill('Sorry about that! A refund is on its way.');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await log.getByText('Sent', { exact: true }).waitFor();
  const visitorView = await app.request('GET', '/api/v1/visitor/messages', { headers: { authorization: `Bearer ${visitorToken}` } });
  t.deepEqual(
    visitorView.body.map((m: any) => m.content),
    ['My parcel arrived damaged, what now?', 'Sorry about that! A refund is on its way.'],
  );

  // The teammate's navigation counts the mention, live; the page lists it; opening it reads it.
  await agent.page.locator('.nav-badge', { hasText: '1' }).waitFor();
  await shoot(agent.page, 'notes-mention-badge-desktop');
  await mentionsLink.click();
  const list = agent.page.getByRole('list', { name: 'Mentions' });
  await list.getByText('Olive Owner').waitFor();
  await list.getByText('Photos look bad, refund approved? @Ana Agent please confirm').waitFor();
  await shoot(agent.page, 'notes-mentions-desktop');
  await list.getByRole('button', { name: /Olive Owner mentioned you/ }).click();
  await agent.page.getByRole('log', { name: 'Messages' }).locator('.msg.note').getByText('Private note').waitFor();
  // At the note itself, marked (it may be older than the thread's latest 100).
  const [note] = await app.sql(`select message_id from mentions m join team_members tm on tm.id = m.member_id where tm.user_id = $1`, [ana.userId]);
  t.true(new URL(agent.page.url()).searchParams.get('message') === note.message_id);
  await agent.page.locator(`.msg.note.found[data-id="${note.message_id}"]`).waitFor();
  await agent.page.locator('.nav-badge').waitFor({ state: 'detached' });
  const [read] = await app.sql(`select m.read_at from mentions m join team_members tm on tm.id = m.member_id where tm.user_id = $1`, [ana.userId]);
  t.truthy(read.read_at);

  t.deepEqual(errors, []);
  t.deepEqual(agent.errors, []);
  await context.close();
  await agent.context.close();
});

browserTest('phone width: the note composer, the note in the thread and the Mentions page fit', async (t) => {
  const { conversationId } = await visitorWrites('Do you ship to Portugal?');
  await app.request('POST', `/api/v1/conversations/${conversationId}/messages`, {
    token: owner.token,
    body: {
      content: '@Ana Agent you know the shipping rules, can you take this one?',
      private: true,
      mentions: [(await app.sql('select id from team_members where user_id = $1', [ana.userId]))[0].id],
    },
  });

  const { page, context, errors } = await appPage(browser, app.url, owner.token, PHONE);
  await page.goto(`${app.url}/app/inbox/${conversationId}`);
  await page.getByRole('log', { name: 'Messages' }).locator('.msg.note').getByText('Private note').waitFor();
  await page.getByRole('tab', { name: 'Private note' }).click();
  await page.getByRole('textbox', { name: 'Private note' }).click();
  await page.keyboard.type('Checking with @');
  await page.getByRole('listbox', { name: 'Mention a teammate' }).waitFor();
  await shoot(page, 'notes-thread-phone');
  const wide = await page.evaluate(() => {
    const doc = (globalThis as any).document;
    const width = doc.documentElement.clientWidth;
    return [...doc.querySelectorAll('body *')]
      .filter((el: any) => el.getBoundingClientRect().right > width + 1)
      .map((el: any) => `${el.tagName}.${el.className}`)
      .slice(0, 10);
  });
  t.deepEqual(wide, [], 'nothing wider than the phone');

  const agent = await appPage(browser, app.url, ana.token, PHONE);
  await agent.page.goto(`${app.url}/app/mentions`);
  await agent.page.getByRole('list', { name: 'Mentions' }).getByText('you know the shipping rules', { exact: false }).waitFor();
  await agent.page.locator('.nav-badge').waitFor();
  await shoot(agent.page, 'notes-mentions-phone');
  t.deepEqual(errors, []);
  t.deepEqual(agent.errors, []);
  await context.close();
  await agent.context.close();
});
