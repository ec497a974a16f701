/**
 * E-mail in the agent app, in a real browser against the fake SMTP server: a hostile HTML mail
 * shows formatted in a sandboxed frame with its remote image blocked (no request leaves the
 * browser) until "Show images", the tracking pixel never; the reply form shows the customer and
 * the Cc carried over from the thread, takes a Bcc, and the mail goes out with them; the
 * conversation is forwarded; the agent and the channel set their signatures. Screenshots at
 * desktop and phone widths go to test-artifacts/email/.
 */
import test from 'ava';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { simpleParser } from 'mailparser';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { SupervisedRunner as Runner } from '../workers/supervisor.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { startTestWorker, waitFor } from './helpers/worker.ts';
import { appPage, artifactDir, browserTest, hasChromium, launchChromium, noteIfSkipped, PHONE, accessibilityViolations } from './helpers/browser.ts';
import { startFakeSmtp, type FakeSmtp } from './fakes/smtp.ts';

noteIfSkipped('app-browser-email');

const SUPPORT = 'help@kettles.test';
const PASSWORD = 'smtp-browser-password';
// A 1×1 PNG, served for the customer's remote image once the agent asks for it.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

let app: TestApp;
let worker: Runner;
let browser: Browser;
let smtp: FakeSmtp;
let owner: Workspace;
let channelId: string;
let conversationId: string;
const shots = artifactDir('email');

const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(shots, `${name}.png`) });

/** Requests the browser makes to the customer's image host and the tracker (answered with a PNG). */
async function watchRemote(context: BrowserContext): Promise<string[]> {
  const seen: string[] = [];
  await context.route(/cdn\.customer\.test|tracker\.test/, (route) => {
    seen.push(route.request().url());
    return route.fulfill({ status: 200, contentType: 'image/png', body: PNG });
  });
  return seen;
}

test.before(async () => {
  if (!hasChromium) return;
  smtp = await startFakeSmtp({ user: SUPPORT, password: PASSWORD });
  app = await startTestApp();
  worker = await startTestWorker(app, { only: ['deliver_message', 'process_inbound', 'register_channel'] });
  owner = await createWorkspace(app, { name: 'Kim Owner', plan: 'Mini' });
  const created = await app.request('POST', '/api/v1/channels', {
    token: owner.token,
    body: { type: 'email', config: { address: SUPPORT, smtp_host: '127.0.0.1', smtp_port: String(smtp.port), smtp_user: SUPPORT, smtp_password: PASSWORD } },
  });
  if (created.status !== 200) throw new Error(created.text);
  channelId = created.body.id;
  const secret = await waitFor(
    async () => (await app.sql(`select state->>'webhook_secret' as s from channels where id = $1 and status = 'connected'`, [channelId]))[0]?.s,
    20_000,
    'registered',
  );
  const boundary = 'b-1';
  const raw = [
    'From: Ada Byron <ada@customer.test>',
    `To: Kettles Support <${SUPPORT}>, Bob Byron <bob@customer.test>`,
    'Cc: Carol <carol@customer.test>',
    'Subject: My kettle lid is broken',
    `Date: ${new Date().toUTCString()}`,
    `Message-ID: <${randomBytes(6).toString('hex')}@customer.test>`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/alternative; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset="UTF-8"',
    '',
    'Hello, the lid of my kettle (order 7) is broken. Photo attached below.',
    `--${boundary}`,
    'Content-Type: text/html; charset="UTF-8"',
    '',
    '<html><head><script>parent.document.title="pwned"</script></head><body>' +
      '<h2 style="color:#b91c1c">Broken lid</h2><p onclick="alert(1)">Hello, the lid of my <b>kettle</b> (order 7) is broken.</p>' +
      '<p><a href="javascript:alert(1)">Click me</a> · <a href="https://customer.test/orders/7">Order 7</a></p>' +
      '<img src="https://cdn.customer.test/lid.png" alt="The broken lid" width="240" height="160">' +
      '<img src="https://tracker.test/open.gif" width="1" height="1"></body></html>',
    `--${boundary}--`,
    '',
  ].join('\r\n');
  const posted = await app.request('POST', `/api/v1/webhooks/email/${channelId}`, {
    rawBody: raw,
    headers: { 'content-type': 'message/rfc822', 'x-parley-webhook-secret': secret },
  });
  if (posted.status !== 200) throw new Error(posted.text);
  conversationId = await waitFor(async () => (await app.sql(`select id from conversations where channel_id = $1`, [channelId]))[0]?.id, 20_000, 'conversation');
  await app.request('PUT', '/api/v1/team/signature', { token: owner.token, body: { signature: 'Kim Owner\nHead of support' } });
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await worker?.stop();
  await app?.close();
  await smtp?.close();
});

browserTest("HTML mail in a sandboxed frame, images blocked until asked; a reply with the thread's Cc and a Bcc; a forward", async (t) => {
  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  const remote = await watchRemote(context);
  await page.goto(`${app.url}/app/inbox/${conversationId}`);
  const log = page.getByRole('log', { name: 'Messages' });
  const frameEl = log.locator('iframe.email-frame');
  await frameEl.waitFor();
  t.is(await frameEl.getAttribute('sandbox'), 'allow-same-origin allow-popups allow-popups-to-escape-sandbox', 'no allow-scripts');
  const frame = page.frameLocator('iframe.email-frame');
  await frame.getByText('Broken lid').waitFor();
  t.is(await frame.locator('b', { hasText: 'kettle' }).count(), 1, 'formatting kept');
  t.is(await frame.locator('script, [onclick]').count(), 0, 'no script, no handler');
  t.is(await frame.getByText('Click me').getAttribute('href'), null, 'the javascript: link lost its href');
  t.is(await frame.locator('img[src^="http"]').count(), 0);
  t.is(await frame.locator('img[data-parley-src]').count(), 1);
  t.not(await page.title(), 'pwned');
  t.deepEqual(remote, [], "nothing requested from the sender's servers");
  await page.getByRole('button', { name: 'Show images (1)' }).waitFor();
  await shoot(page, 'email-html-blocked-desktop');

  await page.getByRole('button', { name: 'Show images (1)' }).click();
  await frame.locator('img[src="https://cdn.customer.test/lid.png"]').waitFor();
  await waitFor(async () => remote.some((u) => u.includes('cdn.customer.test')) || null, 10_000, 'the image loaded');
  t.false(
    remote.some((u) => u.includes('tracker.test')),
    'the tracking pixel never loads',
  );
  await page.getByRole('button', { name: 'Plain text' }).click();
  await log.getByText('Hello, the lid of my kettle (order 7) is broken. Photo attached below.').waitFor();
  await page.getByRole('button', { name: 'Show formatted' }).click();
  await frame.getByText('Broken lid').waitFor();

  // The reply form: the customer, the Cc carried over, a Bcc added.
  const composer = page.locator('form.composer');
  await composer.getByText('Ada Byron <ada@customer.test>').waitFor();
  await composer.getByText('Cc bob@customer.test, carol@customer.test', { exact: true }).waitFor();
  await composer.getByText('-- Kim Owner…').waitFor();
  await composer.getByRole('button', { name: 'Cc/Bcc' }).click();
  t.is(await composer.getByRole('textbox', { name: 'Cc', exact: true }).inputValue(), 'bob@customer.test, carol@customer.test');
  await composer.getByRole('textbox', { name: 'Bcc' }).fill('audit@kettles.test');
  await page.getByRole('textbox', { name: 'Reply' }).fill('Hi Ada, a new lid is on its way.');
  t.deepEqual(await accessibilityViolations(page), []);
  await shoot(page, 'email-reply-desktop');
  const before = smtp.messages.length;
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await log.getByText('Sent', { exact: true }).waitFor();
  await log.getByText('Cc bob@customer.test, carol@customer.test · Bcc audit@kettles.test').waitFor();
  const reply = smtp.messages[before];
  t.deepEqual([...reply.to].sort(), ['ada@customer.test', 'audit@kettles.test', 'bob@customer.test', 'carol@customer.test']);
  const parsed = await simpleParser(reply.raw);
  t.true(parsed.text?.includes('Hi Ada, a new lid is on its way.\n\n-- \nKim Owner\nHead of support'));
  t.truthy(parsed.html);

  // Forward the conversation to the supplier.
  await page.getByRole('button', { name: 'Forward', exact: true }).first().click();
  const panel = page.getByRole('form', { name: 'Forward' });
  await panel.getByRole('textbox', { name: 'To' }).fill('parts@supplier.test');
  await panel.getByRole('textbox', { name: 'Note (optional)' }).fill('Can you send a replacement lid?');
  await shoot(page, 'email-forward-desktop');
  await panel.getByRole('button', { name: 'Forward' }).click();
  await log.getByText('Forwarded to parts@supplier.test').waitFor();
  const forwarded = await waitFor(async () => smtp.messages.find((m) => m.to.includes('parts@supplier.test')) ?? null, 20_000, 'the forward');
  t.is((await simpleParser(forwarded.raw)).subject, 'Fwd: My kettle lid is broken');
  await shoot(page, 'email-thread-desktop');
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('phone width: the HTML mail, the reply form with Cc/Bcc and the forward fit', async (t) => {
  const { page, context, errors } = await appPage(browser, app.url, owner.token, PHONE);
  await watchRemote(context);
  await page.goto(`${app.url}/app/inbox/${conversationId}`);
  await page.frameLocator('iframe.email-frame').first().getByText('Broken lid').waitFor();
  await page.locator('form.composer').getByRole('button', { name: 'Cc/Bcc' }).click();
  await shoot(page, 'email-thread-phone');
  // On a phone the conversation's actions (forward among them) wait behind "Actions".
  await page.locator('.thread-header').getByRole('button', { name: 'Actions' }).click();
  await page.getByRole('button', { name: 'Forward', exact: true }).first().click();
  await page.getByRole('form', { name: 'Forward' }).waitFor();
  await shoot(page, 'email-forward-phone');
  const wide = await page.evaluate(() => {
    const doc = (globalThis as any).document;
    const width = doc.documentElement.clientWidth;
    return [...doc.querySelectorAll('body *')]
      .filter((el: any) => el.getBoundingClientRect().right > width + 1)
      .map((el: any) => `${el.tagName}.${el.className}`)
      .slice(0, 10);
  });
  t.deepEqual(wide, [], 'nothing wider than the phone');
  t.deepEqual(errors, []);
  await context.close();
});

browserTest("signatures: the agent's own on the Account page, the channel's on its card", async (t) => {
  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  await page.goto(`${app.url}/app/settings/account`);
  const form = page.getByRole('form', { name: 'E-mail signature' });
  const box = form.getByRole('textbox', { name: 'Your signature' });
  await waitFor(async () => (await box.inputValue()) === 'Kim Owner\nHead of support' || null, 10_000, 'signature loaded');
  await box.fill('Kim Owner\nHead of support\n+1 555 0100');
  await form.getByRole('button', { name: 'Save signature' }).click();
  await form.getByText('Signature saved.').waitFor();
  t.deepEqual((await app.request('GET', '/api/v1/team/signature', { token: owner.token })).body, { signature: 'Kim Owner\nHead of support\n+1 555 0100' });
  await shoot(page, 'email-signature-account-desktop');

  await page.goto(`${app.url}/app/settings/channels`);
  const card = page.getByRole('listitem', { name: `E-mail · ${SUPPORT}` });
  await card.getByRole('button', { name: 'Edit' }).click();
  await card.getByRole('textbox', { name: 'Channel signature' }).fill('Kettles Inc.\nkettles.test');
  await card.getByRole('button', { name: 'Save' }).click();
  await card.getByText('Kettles Inc.').waitFor();
  const [row] = await app.sql(`select 1 from channels where id = $1`, [channelId]);
  t.truthy(row);
  const recipients = await app.request('GET', `/api/v1/conversations/${conversationId}/reply-recipients`, { token: owner.token });
  t.is(recipients.body.signature, 'Kim Owner\nHead of support\n+1 555 0100\n\nKettles Inc.\nkettles.test');
  await shoot(page, 'email-signature-channel-desktop');

  const phone = await appPage(browser, app.url, owner.token, PHONE);
  await phone.page.goto(`${app.url}/app/settings/account`);
  await phone.page.getByRole('form', { name: 'E-mail signature' }).waitFor();
  await shoot(phone.page, 'email-signature-account-phone');
  t.deepEqual(errors, []);
  t.deepEqual(phone.errors, []);
  await phone.context.close();
  await context.close();
});
