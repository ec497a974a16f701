/**
 * Channels in depth in the agent app, in a real browser (issue 19): the customer's WhatsApp photo
 * shown in the thread (inline, with a lightbox) and a voice note with a player, after the worker
 * downloaded them from the fake Graph API; delivery ticks from WhatsApp's receipts; the 24-hour
 * window's countdown, and once it closed the template picker sending an approved template. At
 * desktop and phone widths; screenshots in test-artifacts/channels/.
 */
import test from 'ava';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { query, startTestWorker, waitFor } from './helpers/worker.ts';
import { makePng } from './helpers/png.ts';
import { appPage, artifactDir, browserTest, hasChromium, launchChromium, noteIfSkipped, PHONE, accessibilityViolations } from './helpers/browser.ts';
import { postMetaWebhook, startFakeMeta, whatsappStatusPayload, type FakeMeta } from './fakes/meta.ts';

noteIfSkipped('app-browser-channels');

const WA = { phoneNumberId: '106540352299999', token: 'EAAG-browser-token', waba: '4455667788' };
const CUSTOMER = '15550142424';

let app: TestApp;
let fake: FakeMeta;
let browser: Browser;
let owner: Workspace;
let conversationId = '';
const shots = artifactDir('channels');
const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(shots, `${name}.png`) });

async function worked<T>(check: () => Promise<T | null | undefined | false>, what: string): Promise<T> {
  const worker = await startTestWorker(app);
  try {
    return await waitFor(check, 20_000, what);
  } finally {
    await worker.stop();
  }
}

const webhook = (payload: unknown) => postMetaWebhook(`${app.url}/api/v1/webhooks/whatsapp`, payload, undefined);

function mediaMessage(id: string, type: string, media: Record<string, unknown>) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: WA.waba,
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: WA.phoneNumberId },
              contacts: [{ profile: { name: 'Rosa Diaz' }, wa_id: CUSTOMER }],
              messages: [{ from: CUSTOMER, id, timestamp: String(Math.floor(Date.now() / 1000)), type, [type]: media }],
            },
          },
        ],
      },
    ],
  };
}

test.before(async () => {
  if (!hasChromium) return;
  fake = await startFakeMeta();
  fake.addWhatsAppNumber(WA.phoneNumberId, WA.token);
  fake.addTemplates(WA.waba, WA.token, [
    { name: 'order_update', language: 'en_US', status: 'APPROVED', body: 'Hi {{1}}, your replacement for order {{2}} ships today.' },
  ]);
  app = await startTestApp({ env: { META_GRAPH_URL: fake.graphUrl } });
  owner = await createWorkspace(app, { plan: 'Pro', name: 'Olive Owner' });
  const channel = await app.request('POST', '/api/v1/channels/', {
    token: owner.token,
    body: { type: 'whatsapp', config: { phone_number_id: WA.phoneNumberId, access_token: WA.token, business_account_id: WA.waba } },
  });
  if (channel.status !== 200) throw new Error(channel.text);

  // The customer sends a photo of the broken product, then a voice note.
  fake.addMedia('media-photo', WA.token, { mimeType: 'image/jpeg', bytes: makePng(480, 320, [200, 70, 50], [250, 230, 120]) });
  const voice = Buffer.concat([Buffer.from('OggS'), Buffer.alloc(24), Buffer.from('OpusHead'), Buffer.alloc(2000, 7)]);
  fake.addMedia('media-voice', WA.token, { mimeType: 'audio/ogg; codecs=opus', bytes: voice });
  await webhook(mediaMessage('wamid.PHOTO', 'image', { id: 'media-photo', mime_type: 'image/jpeg', caption: 'The lid arrived cracked' }));
  await webhook(mediaMessage('wamid.VOICE', 'audio', { id: 'media-voice', mime_type: 'audio/ogg; codecs=opus', voice: true }));
  [{ id: conversationId }] = await worked(async () => {
    const rows = await query(
      app,
      `select m.conversation_id as id from messages m where m.external_id = 'wamid.VOICE' and not exists (
      select 1 from messages x, jsonb_array_elements(x.attachments) a where a->>'status' = 'pending')`,
    );
    return rows.length ? rows : null;
  }, 'media stored');

  // Two agent replies: the first is read by the customer, the second only delivered.
  for (const content of ['So sorry! Sending a replacement today.', 'Tracking number follows shortly.']) {
    const res = await app.request('POST', `/api/v1/conversations/${conversationId}/messages`, { token: owner.token, body: { content } });
    if (res.status !== 200) throw new Error(res.text);
  }
  const sent = await worked(async () => {
    const rows = await query(
      app,
      `select external_id from messages where conversation_id = $1 and sender_type = 'agent' and external_id is not null order by created_at`,
      [conversationId],
    );
    return rows.length === 2 ? rows : null;
  }, 'replies sent');
  await webhook(whatsappStatusPayload({ phoneNumberId: WA.phoneNumberId, id: sent[0].external_id, status: 'delivered', recipientId: CUSTOMER }));
  await webhook(whatsappStatusPayload({ phoneNumberId: WA.phoneNumberId, id: sent[0].external_id, status: 'read', recipientId: CUSTOMER }));
  await webhook(whatsappStatusPayload({ phoneNumberId: WA.phoneNumberId, id: sent[1].external_id, status: 'delivered', recipientId: CUSTOMER }));
  await worked(async () => {
    const rows = await query(app, `select delivery_status from messages where conversation_id = $1 and sender_type = 'agent' order by created_at`, [
      conversationId,
    ]);
    return rows.map((r) => r.delivery_status).join() === 'read,delivered';
  }, 'receipts applied');
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await app?.close();
  await fake?.close();
});

browserTest("the customer's photo and voice note in the thread, receipts as ticks, the window countdown (desktop)", async (t) => {
  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  await page.goto(`${app.url}/app/inbox/${conversationId}`);
  const photo = page.getByRole('button', { name: 'View photo.png' }).locator('img');
  await photo.waitFor();
  await page.waitForFunction(() => {
    const img = (globalThis as any).document.querySelector('.attachment-image img');
    return img && img.complete && img.naturalWidth > 0;
  });
  t.is(await photo.evaluate((img: any) => img.naturalWidth), 480, 'the real bytes, decoded by the browser');
  t.is(await page.locator('audio').count(), 1);
  t.truthy(await page.locator('audio').getAttribute('src'));
  const statuses = page.locator('.msg-status');
  t.deepEqual(await statuses.evaluateAll((nodes: any[]) => nodes.map((n) => n.dataset.status)), ['read', 'delivered']);
  t.regex((await statuses.first().textContent()) ?? '', /✓✓\s*Read/);
  t.regex((await page.getByRole('status').filter({ hasText: 'reply window' }).textContent()) ?? '', /WhatsApp reply window: 2[34] h \d+ min left/);
  await shoot(page, 'thread-media-desktop');

  await page.getByRole('button', { name: 'View photo.png' }).click();
  const lightbox = page.getByRole('dialog', { name: 'photo.png' });
  await lightbox.waitFor();
  await shoot(page, 'lightbox-desktop');
  t.deepEqual(await accessibilityViolations(page), [], 'the open picture');
  await lightbox.getByRole('button', { name: 'Close' }).click();
  await lightbox.waitFor({ state: 'detached' });
  t.deepEqual(await accessibilityViolations(page), []);
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('window closed: the reply box says so, and a template goes out through the picker (desktop, then phone)', async (t) => {
  await query(app, `update conversations set reply_window_expires_at = now() - interval '2 hours' where id = $1`, [conversationId]);
  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  await page.goto(`${app.url}/app/inbox/${conversationId}`);
  await page.getByText('The 24-hour reply window closed').waitFor();
  t.true(await page.getByRole('textbox', { name: 'Reply' }).isDisabled());
  await page.getByRole('button', { name: 'Send a template' }).click();
  const picker = page.getByRole('form', { name: 'Send a WhatsApp template' });
  await picker.getByLabel('Template', { exact: true }).selectOption('order_update/en_US');
  await picker.getByLabel('Parameter 1').fill('Rosa');
  await picker.getByLabel('Parameter 2').fill('A-1042');
  t.is(await picker.getByLabel('Preview').textContent(), 'Hi Rosa, your replacement for order A-1042 ships today.');
  await shoot(page, 'template-picker-desktop');
  await picker.getByRole('button', { name: 'Send template' }).click();
  await picker.waitFor({ state: 'detached' });
  // In the thread (the list's preview of the row says it too once the list is re-read).
  await page.getByRole('log', { name: 'Messages' }).getByText('Hi Rosa, your replacement for order A-1042 ships today.').waitFor();
  const sent = await worked(async () => fake.whatsappSent.find((m) => m.type === 'template'), 'the template at Graph');
  t.deepEqual(
    sent.body.template.components[0].parameters.map((p: any) => p.text),
    ['Rosa', 'A-1042'],
  );
  t.deepEqual(errors, []);
  await context.close();

  // Phone width: the thread with its photo, the closed window and the picker fit the screen.
  const phone = await appPage(browser, app.url, owner.token, PHONE);
  await phone.page.goto(`${app.url}/app/inbox/${conversationId}`);
  await phone.page.getByRole('button', { name: 'View photo.png' }).waitFor();
  await phone.page.getByText('The 24-hour reply window closed').waitFor();
  await phone.page.getByRole('button', { name: 'Send a template' }).click();
  await phone.page.getByRole('form', { name: 'Send a WhatsApp template' }).getByLabel('Template', { exact: true }).selectOption('order_update/en_US');
  const width = await phone.page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth);
  t.true(width <= PHONE.width, `nothing wider than the phone (${width})`);
  await shoot(phone.page, 'thread-template-phone');
  await phone.page.getByRole('form', { name: 'Send a WhatsApp template' }).getByRole('button', { name: 'Close templates' }).click();
  await phone.page.getByRole('button', { name: 'View photo.png' }).scrollIntoViewIfNeeded();
  await shoot(phone.page, 'thread-media-phone');
  await phone.page.getByRole('button', { name: 'View photo.png' }).click();
  await phone.page.getByRole('dialog', { name: 'photo.png' }).waitFor();
  await shoot(phone.page, 'lightbox-phone');
  t.deepEqual(phone.errors, []);
  await phone.context.close();
});
