/**
 * The agent app with a team, in a real browser: an invited agent signs in and joins the
 * workspace, then sees the owner's assignments live (in Mine and in the open conversation);
 * a reply the platform refuses shows "Failed" with the platform's reason. Screenshots go to
 * test-artifacts/app/.
 */
import test from 'ava';
import path from 'node:path';
import type { SupervisedRunner as Runner } from '../workers/supervisor.ts';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, registerUser, type Account, type Workspace } from './helpers/fixtures.ts';
import { startTestWorker } from './helpers/worker.ts';
import {
  accessibilityViolations,
  accessibleName,
  appPage,
  artifactDir,
  browserTest,
  DESKTOP,
  hasChromium,
  launchChromium,
  noteIfSkipped,
  PHONE,
} from './helpers/browser.ts';
import { startFakeTelegram, type FakeTelegram } from './fakes/telegram.ts';

noteIfSkipped('app-browser-team');

let app: TestApp;
let fake: FakeTelegram;
let worker: Runner;
let browser: Browser;
let owner: Workspace;
const shots = artifactDir('app');

test.before(async () => {
  if (!hasChromium) return;
  fake = await startFakeTelegram();
  app = await startTestApp({ env: { TELEGRAM_API_URL: fake.url } });
  worker = await startTestWorker(app, { only: ['deliver_message', 'process_inbound', 'register_channel'] });
  owner = await createWorkspace(app, { name: 'Olive Owner', plan: 'Mini' });
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await worker?.stop();
  await app?.close();
  await fake?.close();
});

const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(shots, `${name}.png`) });

/** A website visitor writes in (the visitor API, as the widget does); returns the conversation id. */
async function visitorWrites(content: string): Promise<string> {
  const widget = await app.request('POST', '/api/v1/widget/create', { token: owner.token, body: { domain: `shop-${Date.now()}.example` } });
  const session = await app.request('POST', '/api/v1/visitor/sessions', { body: { widget_id: widget.body.id, name: 'Marta Visitor' } });
  const sent = await app.request('POST', '/api/v1/visitor/messages', { headers: { authorization: `Bearer ${session.body.visitor_token}` }, body: { content } });
  if (sent.status !== 200) throw new Error(`visitor message: ${sent.status} ${sent.text}`);
  return sent.body.conversation_id;
}

async function signIn(page: Page, account: Account): Promise<void> {
  await page.goto(`${app.url}/app/signin`);
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill('password123');
  await page.getByRole('button', { name: 'Sign in' }).click();
}

browserTest('an invited agent joins, then sees assignments change live', async (t) => {
  const agent = await registerUser(app, 'Ari Agent');
  const agentContext = await browser.newContext({ viewport: DESKTOP });
  const agentPage = await agentContext.newPage();
  await signIn(agentPage, agent);
  await agentPage.getByRole('button', { name: 'Create workspace' }).waitFor();

  // The owner invites them from Settings → Team; they check again and are in.
  const { page: ownerPage, context: ownerContext, errors } = await appPage(browser, app.url, owner.token);
  await ownerPage.goto(`${app.url}/app/settings/team`);
  await ownerPage.getByLabel("Teammate's e-mail").fill(agent.email);
  await ownerPage.getByRole('button', { name: 'Invite' }).click();
  await ownerPage.getByRole('list', { name: 'Team members' }).getByRole('listitem', { name: 'Ari Agent' }).waitFor();
  await shoot(ownerPage, 'team-desktop');
  await agentPage.getByRole('button', { name: "I've been invited — check again" }).click();
  await agentPage.getByRole('heading', { name: 'Inbox' }).waitFor();

  const conversationId = await visitorWrites('Can someone help me with my order?');
  await agentPage.getByRole('tab', { name: 'Mine' }).click();
  const mine = agentPage.getByRole('list', { name: 'Conversations' });
  await agentPage.getByText('Nothing here').waitFor();

  // The owner assigns it to the agent: it appears in the agent's Mine without a reload.
  await ownerPage.goto(`${app.url}/app/inbox/${conversationId}`);
  await ownerPage.getByLabel('Assignee').selectOption({ label: 'Ari Agent' });
  await mine.getByRole('link', { name: /Marta Visitor/ }).click();
  await agentPage.getByText('Assigned to you').waitFor();

  // The owner takes it back: the agent's open thread says so, and Mine empties, live.
  await ownerPage.getByRole('button', { name: 'Assign to me' }).click();
  await agentPage.getByText('Assigned to Olive Owner').waitFor();
  await agentPage.getByText('Nothing here').waitFor();
  const [row] = await app.sql('select assignee_id from conversations where id = $1', [conversationId]);
  t.is(row.assignee_id, owner.userId);

  // Removed from the team (the server closes their live connection): their app leaves the inbox.
  const [membership] = await app.sql('select id from team_members where user_id = $1', [agent.userId]);
  const removed = await app.request('DELETE', `/api/v1/team/members/${membership.id}`, { token: owner.token });
  t.is(removed.status, 200, removed.text);
  await agentPage.getByRole('button', { name: 'Create workspace' }).waitFor();
  t.deepEqual(errors, []);
  await agentContext.close();
  await ownerContext.close();
});

browserTest('a reply the platform refuses shows failed with its reason', async (t) => {
  const botToken = fake.addBot({ username: 'acme_bot' });
  const channel = await app.request('POST', '/api/v1/channels', { token: owner.token, body: { type: 'telegram', config: { bot_token: botToken } } });
  t.is(channel.status, 200, channel.text);
  const [customer] = await app.sql(
    `insert into customers (business_id, channel_id, platform_user_id, name) values ($1, $2, '700001', 'Tomás Telegram') returning id`,
    [owner.businessId, channel.body.id],
  );
  const created = await app.request('POST', '/api/v1/conversations', {
    token: owner.token,
    body: { business_id: owner.businessId, customer_id: customer.id, channel_id: channel.body.id },
  });
  t.is(created.status, 200, created.text);
  fake.blockChat('700001');

  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  await page.goto(`${app.url}/app/inbox/${created.body.id}`);
  await page.getByRole('textbox', { name: 'Reply' }).fill('Your refund is on its way.');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  const log = page.getByRole('log', { name: 'Messages' });
  await log.getByText('Failed: Forbidden: bot was blocked by the user').waitFor();
  // The list says so too, with the reason on hover, for an agent who has moved on.
  const row = page.getByRole('list', { name: 'Conversations' }).locator(`li[data-id="${created.body.id}"]`);
  const mark = row.locator('.undelivered-pill');
  await mark.waitFor();
  await shoot(page, 'failed-delivery-desktop');
  t.is(await mark.getAttribute('title'), 'Not delivered: Forbidden: bot was blocked by the user');
  t.regex(await accessibleName(row.getByRole('link')), /\bNot delivered\b/);
  const [message] = await app.sql(`select id, delivery_status, error from messages where conversation_id = $1`, [created.body.id]);
  t.like(message, { delivery_status: 'failed', error: 'Forbidden: bot was blocked by the user' });

  // On a phone too, the reason and "Send again" under the reply.
  const phone = await appPage(browser, app.url, owner.token, PHONE);
  await phone.page.goto(`${app.url}/app/inbox/${created.body.id}`);
  await phone.page.getByRole('log', { name: 'Messages' }).getByRole('button', { name: 'Send again' }).waitFor();
  t.deepEqual(await accessibilityViolations(phone.page), []);
  await shoot(phone.page, 'failed-delivery-phone');
  await phone.context.close();

  // The customer unblocks the bot: "Send again" delivers the same reply, and the marks go.
  fake.unblockChat('700001');
  await log.getByRole('button', { name: 'Send again' }).click();
  await log.locator(`[data-id="${message.id}"] .msg-status[data-status="sent"]`).waitFor();
  t.is(await log.getByRole('button', { name: 'Send again' }).count(), 0);
  await mark.waitFor({ state: 'detached' });
  t.deepEqual(
    fake.sent.filter((m) => m.chat_id === '700001').map((m) => m.text),
    ['Your refund is on its way.'],
    'delivered once',
  );
  const [after] = await app.sql(`select delivery_status, error, external_id from messages where id = $1`, [message.id]);
  t.like(after, { delivery_status: 'sent', error: null });
  t.truthy(after.external_id);
  await shoot(page, 'sent-again-desktop');
  t.deepEqual(errors, []);
  await context.close();
});
