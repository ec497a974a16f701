/**
 * The inbox says what customers said (issue 38, item 4): a conversation's list entry carries
 * `preview_message`, the latest message a person wrote, so the away reply (an automatic message)
 * never hides the customer's question; the row shows it, and the thread marks the automatic
 * message "Automatic" instead of showing it as a note. Live events carry the same entry.
 */
import test from 'ava';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { localDate } from '../core/domain/business-hours.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { startTestWorker, waitFor } from './helpers/worker.ts';
import { accessibilityViolations, appPage, artifactDir, browserTest, DESKTOP, hasChromium, launchChromium, PHONE } from './helpers/browser.ts';

const TZ = 'Europe/Berlin';
const allDay = [{ open: '00:00', close: '24:00' }];
const everyDay = { mon: allDay, tue: allDay, wed: allDay, thu: allDay, fri: allDay, sat: allDay, sun: allDay };
const AWAY = 'Thanks for your message! Our team is away right now.';
const QUESTION = 'My sprocket arrived bent, can I get a replacement?';

let app: TestApp;
let owner: Workspace;
let browser: Browser | undefined;
let conversationId = '';
const shots = artifactDir('first-day');

test.before(async () => {
  app = await startTestApp();
  owner = await createWorkspace(app, { name: 'Ines Owner' });
  const widget = await app.request('POST', '/api/v1/widget/create', { token: owner.token, body: { domain: 'shop.example.com' } });
  // Closed today (a holiday): the visitor's message gets the away reply.
  const hours = await app.request('PATCH', '/api/v1/settings/business-hours', {
    token: owner.token,
    body: { enabled: true, timezone: TZ, week: everyDay, holidays: [localDate(new Date(), TZ)], out_of_hours_message: AWAY },
  });
  if (hours.status !== 200) throw new Error(hours.text);
  const session = await app.request('POST', '/api/v1/visitor/sessions', { body: { widget_id: widget.body.id, name: 'Pia Customer' } });
  const auth = { authorization: `Bearer ${session.body.visitor_token}` };
  const sent = await app.request('POST', '/api/v1/visitor/messages', { body: { content: QUESTION }, headers: auth });
  if (sent.status !== 200) throw new Error(sent.text);
  conversationId = sent.body.conversation_id;
  const worker = await startTestWorker(app);
  try {
    await waitFor(
      async () =>
        (await app.sql("select 1 from messages where conversation_id = $1 and sender_type = 'system' and delivery_status = 'sent'", [conversationId])).length >
        0,
      20_000,
      'the away reply sent',
    );
  } finally {
    await worker.stop();
  }
  if (hasChromium) browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

test.serial("the list entry previews the customer's question, not the away reply after it", async (t) => {
  const list = await app.request('GET', '/api/v1/conversations', { token: owner.token });
  const item = list.body.find((c: { id: string }) => c.id === conversationId);
  t.is(item.last_message.sender_type, 'system');
  t.is(item.last_message.content, AWAY);
  t.is(item.preview_message.sender_type, 'customer');
  t.is(item.preview_message.content, QUESTION);

  // The live entry written with the away reply says the same.
  type Updated = { conversation_id: string; conversation: { preview_message: { content: string } | null; last_message: { sender_type: string } | null } };
  const updated = app.events
    .filter((e) => e.name === 'conversation_updated' && (e.payload as Updated).conversation_id === conversationId)
    .map((e) => (e.payload as Updated).conversation)
    .at(-1);
  t.is(updated?.last_message?.sender_type, 'system');
  t.is(updated?.preview_message?.content, QUESTION);
});

test.serial('a reply becomes the preview; a private note does not', async (t) => {
  const reply = await app.request('POST', `/api/v1/conversations/${conversationId}/messages`, {
    token: owner.token,
    body: { content: 'Sorry about that! A new one is on its way.' },
  });
  t.is(reply.status, 200, reply.text);
  const note = await app.request('POST', `/api/v1/conversations/${conversationId}/messages`, {
    token: owner.token,
    body: { content: 'Check the courier', private: true },
  });
  t.is(note.status, 200, note.text);
  const list = await app.request('GET', '/api/v1/conversations', { token: owner.token });
  const item = list.body.find((c: { id: string }) => c.id === conversationId);
  t.is(item.preview_message.content, 'Sorry about that! A new one is on its way.');
  t.is(item.preview_message.sender_type, 'agent');
  // Back to the question for the browser test.
  await app.sql('delete from messages where id = any($1)', [[reply.body.id, note.body.id]]);
});

browserTest('the row shows what the customer asked; the thread marks the away reply automatic', async (t) => {
  for (const [viewport, label] of [
    [DESKTOP, 'desktop'],
    [PHONE, 'phone'],
  ] as const) {
    const { page, context, errors } = await appPage(browser!, app.url, owner.token, viewport);
    const row = page.getByRole('list', { name: 'Conversations' }).locator(`li[data-id="${conversationId}"]`);
    await row.waitFor();
    t.is((await row.locator('.conv-preview').innerText()).trim(), QUESTION);
    t.is(await page.getByText(/^Note:/).count(), 0);
    await row.getByRole('link').click();
    const log = page.getByRole('log', { name: 'Messages' });
    const away = log.locator('.msg.system', { hasText: AWAY });
    await away.waitFor();
    t.regex(await away.innerText(), /Parley[\s\S]*Automatic/);
    await page.screenshot({ path: path.join(shots, `inbox-automatic-${label}.png`) });
    t.deepEqual(await accessibilityViolations(page), []);
    t.deepEqual(errors, []);
    await context.close();
  }
});
