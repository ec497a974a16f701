/**
 * Teams in the agent app, in a real browser: the owner creates a team in Settings → Teams,
 * chooses its members, renames it and turns team-scoped visibility on; puts a conversation in
 * the team from its header and filters the inbox by team; an agent outside the team then finds
 * only their own conversations. The same screens at phone width. Screenshots go to
 * test-artifacts/app/.
 */
import test from 'ava';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace, type Account, type Workspace } from './helpers/fixtures.ts';
import {
  appPage,
  artifactDir,
  browserTest,
  DESKTOP,
  hasChromium,
  launchChromium,
  liveConnectionGate,
  noteIfSkipped,
  PHONE,
  accessibilityViolations,
} from './helpers/browser.ts';
import { waitFor } from './helpers/worker.ts';

noteIfSkipped('app-browser-teams');

let app: TestApp;
let browser: Browser;
let owner: Workspace;
let ann: Account;
let otto: Account;
const shots = artifactDir('app');

test.before(async () => {
  if (!hasChromium) return;
  app = await startTestApp();
  owner = await createWorkspace(app, { name: 'Olive Owner', plan: 'Pro' });
  ann = await addMember(app, owner.businessId, 'agent', { name: 'Ann Agent' });
  otto = await addMember(app, owner.businessId, 'agent', { name: 'Otto Outside' });
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(shots, `${name}.png`) });

async function conversationWith(name: string, text: string): Promise<string> {
  const [customer] = await app.sql(`insert into customers (business_id, name) values ($1, $2) returning id`, [owner.businessId, name]);
  const created = await app.request('POST', '/api/v1/conversations', {
    token: owner.token,
    body: { business_id: owner.businessId, customer_id: customer.id, initial_message: text },
  });
  if (created.status !== 200) throw new Error(`conversation: ${created.status} ${created.text}`);
  return created.body.id;
}

browserTest('teams: create, members, rename, visibility; a conversation joins a team; the inbox filters by team; an outsider sees none of it', async (t) => {
  const casey = await conversationWith('Casey Customer', 'My invoice is wrong.');
  await conversationWith('Dana Doe', 'Where is my parcel?');
  const { page, context, errors } = await appPage(browser, app.url, owner.token);

  await page.goto(`${app.url}/app/settings/teams`);
  await page.getByText('No teams yet.').waitFor();
  const newTeam = page.getByRole('form', { name: 'New team' });
  await newTeam.getByLabel('Name').fill('Billing');
  await newTeam.getByLabel('Description').fill('Invoices, refunds and charges');
  await newTeam.getByRole('button', { name: 'Add team' }).click();
  const card = page.getByRole('list', { name: 'Teams' }).getByRole('listitem', { name: 'Billing' });
  await card.waitFor();
  await newTeam.getByLabel('Name').fill('Technical');
  await newTeam.getByRole('button', { name: 'Add team' }).click();
  await page.getByRole('list', { name: 'Teams' }).getByRole('listitem', { name: 'Technical' }).waitFor();

  // Members: tick Ann.
  await card.getByRole('group', { name: 'Members of Billing' }).getByRole('checkbox', { name: 'Ann Agent' }).check();
  await card.getByText('1 member').waitFor();
  const [team] = await app.sql(`select id, name, description from teams where business_id = $1 and name = 'Billing'`, [owner.businessId]);
  t.like(team, { name: 'Billing', description: 'Invoices, refunds and charges' });
  const inTeam = await app.sql(
    `select u.full_name from team_memberships ms join team_members m on m.id = ms.member_id join users u on u.id = m.user_id where ms.team_id = $1`,
    [team.id],
  );
  t.deepEqual(
    inTeam.map((r) => r.full_name),
    ['Ann Agent'],
  );

  // Rename.
  await card.getByRole('button', { name: 'Rename Billing' }).click();
  const edit = page.getByRole('form', { name: 'Edit Billing' });
  await edit.getByLabel('Name').fill('Billing & Refunds');
  await edit.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('list', { name: 'Teams' }).getByRole('listitem', { name: 'Billing & Refunds' }).waitFor();

  // Team-scoped visibility on.
  const visibility = page.getByRole('switch', { name: "Agents see only their teams' conversations" });
  const switched = page.waitForResponse((r) => r.url().endsWith('/api/v1/settings/assignment') && r.request().method() === 'PATCH');
  await visibility.check();
  t.is((await switched).status(), 200);
  await page.getByText('On: agents see the conversations of their teams').waitFor();
  t.true((await app.sql('select team_visibility from assignment_settings where business_id = $1', [owner.businessId]))[0].team_visibility);
  await shoot(page, 'teams-settings-desktop');

  // The conversation's team, from its header.
  await page.goto(`${app.url}/app/inbox/${casey}`);
  const header = page.locator('.thread-header');
  const stored = page.waitForResponse((r) => r.url().endsWith(`/api/v1/conversations/${casey}/team`) && r.request().method() === 'PUT');
  await header.getByLabel('Team', { exact: true }).selectOption({ label: 'Billing & Refunds' });
  t.is((await stored).status(), 200);
  t.is((await app.sql('select team_id from conversations where id = $1', [casey]))[0].team_id, team.id);

  // The inbox filtered by the team: only Casey's conversation.
  await page.locator('.list-header').getByLabel('Team', { exact: true }).selectOption({ label: 'Billing & Refunds' });
  await page.waitForURL(/team=/);
  const list = page.getByRole('list', { name: 'Conversations' });
  await list.getByRole('link', { name: /Dana Doe/ }).waitFor({ state: 'detached' });
  await list.getByRole('link', { name: /Casey Customer/ }).waitFor();
  t.is(await list.getByRole('listitem').count(), 1);
  await shoot(page, 'teams-inbox-desktop');
  t.deepEqual(await accessibilityViolations(page), []);
  t.deepEqual(errors, []);
  await context.close();

  // Otto, outside the team, sees neither the team's conversation nor (unassigned) Dana's; Ann sees Casey's.
  const outsider = await appPage(browser, app.url, otto.token);
  await outsider.page.goto(`${app.url}/app/inbox`);
  await outsider.page.getByText('No conversations waiting').waitFor();
  t.is(await outsider.page.getByRole('link', { name: /Casey Customer/ }).count(), 0);
  await outsider.page.goto(`${app.url}/app/inbox/${casey}`);
  await outsider.page.getByText('Conversation not found').first().waitFor();
  await shoot(outsider.page, 'teams-outsider-desktop');
  await outsider.context.close();
  const member = await appPage(browser, app.url, ann.token);
  await member.page.goto(`${app.url}/app/inbox`);
  await member.page
    .getByRole('list', { name: 'Conversations' })
    .getByRole('link', { name: /Casey Customer/ })
    .waitFor();
  await member.context.close();
});

browserTest('teams at phone width', async (t) => {
  const { page, context, errors } = await appPage(browser, app.url, owner.token, PHONE);
  await page.goto(`${app.url}/app/settings/teams`);
  await page.getByRole('list', { name: 'Teams' }).getByRole('listitem', { name: 'Technical' }).waitFor();
  await page.getByRole('switch', { name: "Agents see only their teams' conversations" }).waitFor();
  await page.getByRole('group', { name: 'Members of Technical' }).waitFor();
  await page.getByRole('group', { name: 'Members of Billing & Refunds' }).getByRole('checkbox', { name: 'Ann Agent' }).waitFor();
  await shoot(page, 'teams-settings-phone');
  const [team] = await app.sql(`select id from teams where business_id = $1 and name = 'Billing & Refunds'`, [owner.businessId]);
  await page.goto(`${app.url}/app/inbox?team=${team.id}`);
  const list = page.getByRole('list', { name: 'Conversations' });
  await list.getByRole('link', { name: /Casey Customer/ }).waitFor();
  await shoot(page, 'teams-inbox-phone');
  await list.getByRole('link', { name: /Casey Customer/ }).click();
  await page.locator('.thread-header').getByRole('button', { name: 'Actions' }).click();
  await page.locator('.thread-header').getByLabel('Team', { exact: true }).waitFor();
  await shoot(page, 'teams-thread-phone');
  t.deepEqual(errors, []);
  await context.close();
});

browserTest("a channel's default team: the owner picks it on the channel's card; new conversations start in it; an agent reads it", async (t) => {
  const [team] = await app.sql(`select id from teams where business_id = $1 and name = 'Technical'`, [owner.businessId]);
  const [channel] = await app.sql(`select id from channels where business_id = $1 and is_builtin`, [owner.businessId]);
  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  await page.goto(`${app.url}/app/settings/channels`);
  const picker = page.getByLabel('Default team of Web chat (built in)');
  await picker.waitFor();
  t.is(await picker.inputValue(), '');
  t.deepEqual(await picker.locator('option').allTextContents(), ['No team', 'Billing & Refunds', 'Technical']);
  const saved = page.waitForResponse((r) => r.url().endsWith(`/api/v1/channels/${channel.id}`) && r.request().method() === 'PATCH');
  await picker.selectOption({ label: 'Technical' });
  t.is((await saved).status(), 200);
  t.is((await app.sql('select default_team_id from channels where id = $1', [channel.id]))[0].default_team_id, team.id);
  // The choice stays shown while the channels are read again, and after.
  await page.waitForFunction(() => (globalThis as any).document.querySelector('[aria-label="Default team of Web chat (built in)"]')?.disabled === false);
  t.is(await picker.inputValue(), team.id);
  await page.waitForLoadState('networkidle');
  t.is(await picker.inputValue(), team.id);
  await shoot(page, 'channel-default-team-desktop');
  // A conversation opened on the channel now starts in the team (the trigger of migration 0100).
  const opened = await conversationWith('Erin Early', 'Hello from the widget');
  t.is((await app.sql('select team_id from conversations where id = $1', [opened]))[0].team_id, team.id);
  t.deepEqual(await accessibilityViolations(page), []);
  t.deepEqual(errors, []);
  await context.close();

  // At phone width; then back to "No team".
  const phone = await appPage(browser, app.url, owner.token, PHONE);
  await phone.page.goto(`${app.url}/app/settings/channels`);
  const small = phone.page.getByLabel('Default team of Web chat (built in)');
  await small.waitFor();
  t.is(await small.inputValue(), team.id);
  await shoot(phone.page, 'channel-default-team-phone');
  const cleared = phone.page.waitForResponse((r) => r.url().endsWith(`/api/v1/channels/${channel.id}`) && r.request().method() === 'PATCH');
  await small.selectOption({ label: 'No team' });
  t.is((await cleared).status(), 200);
  t.is((await app.sql('select default_team_id from channels where id = $1', [channel.id]))[0].default_team_id, null);
  t.deepEqual(phone.errors, []);
  await phone.context.close();

  // An agent reads the channel's team but has no picker.
  await app.request('PATCH', `/api/v1/channels/${channel.id}`, { token: owner.token, body: { default_team_id: team.id } });
  const agent = await appPage(browser, app.url, ann.token);
  await agent.page.goto(`${app.url}/app/settings/channels`);
  await agent.page.locator('.channel-team').getByText('Technical').waitFor();
  t.is(await agent.page.getByLabel('Default team of Web chat (built in)').count(), 0);
  await agent.context.close();
});

/**
 * Waits until the page's live connection is up: the open thread shows its priority (read
 * through REST), the owner changes it, the thread shows the new one. That comes by the event or
 * by the re-read the app makes when its connection comes up: either way the connection is up.
 */
async function liveUp(page: Page, conversationId: string, priority: string): Promise<void> {
  const select = page.locator('.thread-header select[aria-label="Priority"]');
  // (On a phone it is behind "Actions": there, but not shown.)
  await select.waitFor({ state: 'attached' });
  if ((await select.inputValue()) === priority) throw new Error(`the conversation already has priority ${priority}`);
  await app.request('PUT', `/api/v1/conversations/${conversationId}/priority`, { token: owner.token, body: { priority } });
  await page.waitForFunction((want) => (globalThis as any).document.querySelector('.thread-header select[aria-label="Priority"]')?.value === want, priority);
}

browserTest(
  'a conversation leaving an agent’s view: gone from their list and closed, moved to another team (desktop) or the agent taken out of the team (phone)',
  async (t) => {
    const [billing] = await app.sql(`select id from teams where business_id = $1 and name = 'Billing & Refunds'`, [owner.businessId]);
    const [technical] = await app.sql(`select id from teams where business_id = $1 and name = 'Technical'`, [owner.businessId]);
    const [casey] = await app.sql(
      `select c.id from conversations c join customers cu on cu.id = c.customer_id where c.business_id = $1 and cu.name = 'Casey Customer'`,
      [owner.businessId],
    );
    t.true((await app.sql('select team_visibility from assignment_settings where business_id = $1', [owner.businessId]))[0].team_visibility);
    await app.request('PUT', `/api/v1/conversations/${casey.id}/team`, { token: owner.token, body: { team_id: billing.id } });

    // Desktop: Ann (of Billing & Refunds) has Casey's conversation open; the owner moves it to Technical.
    const { page, context, errors } = await appPage(browser, app.url, ann.token);
    await page.goto(`${app.url}/app/inbox/${casey.id}`);
    const list = page.getByRole('list', { name: 'Conversations' });
    await list.getByRole('link', { name: /Casey Customer/ }).waitFor();
    await liveUp(page, casey.id, 'high');
    const moved = await app.request('PUT', `/api/v1/conversations/${casey.id}/team`, { token: owner.token, body: { team_id: technical.id } });
    t.is(moved.status, 200);
    await page.waitForURL((url) => url.pathname === '/app/inbox');
    await page.getByText('The conversation you had open is no longer visible to you: it is no longer in your teams or assigned to you.').waitFor();
    t.is(await page.getByRole('link', { name: /Casey Customer/ }).count(), 0);
    t.is(await page.locator('.thread-header').count(), 0);
    await shoot(page, 'teams-hidden-desktop');
    t.deepEqual(errors, []);
    await context.close();

    // Phone: back in Billing & Refunds and open; Ann is taken out of the team (the event names no conversation).
    await app.request('PUT', `/api/v1/conversations/${casey.id}/team`, { token: owner.token, body: { team_id: billing.id } });
    const phone = await appPage(browser, app.url, ann.token, PHONE);
    await phone.page.goto(`${app.url}/app/inbox/${casey.id}`);
    await liveUp(phone.page, casey.id, 'low');
    const out = await app.request('PUT', `/api/v1/teams/${billing.id}/members`, { token: owner.token, body: { member_ids: [] } });
    t.is(out.status, 200);
    await phone.page.waitForURL((url) => url.pathname === '/app/inbox');
    await phone.page.getByText('The conversation you had open is no longer visible to you: it is no longer in your teams or assigned to you.').waitFor();
    t.is(await phone.page.getByRole('link', { name: /Casey Customer/ }).count(), 0);
    await shoot(phone.page, 'teams-hidden-phone');
    t.deepEqual(phone.errors, []);
    await phone.context.close();
  },
);

browserTest('a conversation that left the agent’s view while their live connection was down is closed once it is back', async (t) => {
  const [billing] = await app.sql(`select id from teams where business_id = $1 and name = 'Billing & Refunds'`, [owner.businessId]);
  const [technical] = await app.sql(`select id from teams where business_id = $1 and name = 'Technical'`, [owner.businessId]);
  const [annMember] = await app.sql(`select id from team_members where business_id = $1 and user_id = $2`, [owner.businessId, ann.userId]);
  const id = await conversationWith('Dana Disconnected', 'Is my refund through?');
  t.is((await app.request('PUT', `/api/v1/teams/${billing.id}/members`, { token: owner.token, body: { member_ids: [annMember.id] } })).status, 200);
  t.is((await app.request('PUT', `/api/v1/conversations/${id}/team`, { token: owner.token, body: { team_id: billing.id } })).status, 200);

  // Ann opens it with her live connection held back: the page reads through REST only.
  const gate = liveConnectionGate();
  const { page, context, errors } = await appPage(browser, app.url, ann.token, DESKTOP, gate.hold);
  await page.goto(`${app.url}/app/inbox/${id}`);
  await page.getByRole('log', { name: 'Messages' }).getByText('Is my refund through?').waitFor();
  await waitFor(async () => gate.opening(), 10_000, 'the app opening its live connection');

  // It moves to a team Ann is not in: no socket of hers hears of it, the page still shows it.
  t.is((await app.request('PUT', `/api/v1/conversations/${id}/team`, { token: owner.token, body: { team_id: technical.id } })).status, 200);
  t.is(new URL(page.url()).pathname, `/app/inbox/${id}`);

  // The connection comes up: the app re-reads what it shows, finds the conversation gone and closes it.
  gate.release();
  await page.waitForURL((url) => url.pathname === '/app/inbox');
  await page.getByText('The conversation you had open is no longer visible to you: it has left your teams or assignments, or was deleted.').waitFor();
  t.is(
    await page
      .getByRole('list', { name: 'Conversations' })
      .getByRole('link', { name: /Dana Disconnected/ })
      .count(),
    0,
  );
  t.is(await page.locator('.thread-header').count(), 0);
  await shoot(page, 'teams-hidden-while-offline');
  t.deepEqual(errors, []);
  await context.close();
});

browserTest('taken out of the team while the thread re-reads: the conversation closes with the reason the event gave', async (t) => {
  const [billing] = await app.sql(`select id from teams where business_id = $1 and name = 'Billing & Refunds'`, [owner.businessId]);
  const [annMember] = await app.sql(`select id from team_members where business_id = $1 and user_id = $2`, [owner.businessId, ann.userId]);
  const id = await conversationWith('Rita Race', 'Where is my refund?');
  t.is((await app.request('PUT', `/api/v1/teams/${billing.id}/members`, { token: owner.token, body: { member_ids: [annMember.id] } })).status, 200);
  t.is((await app.request('PUT', `/api/v1/conversations/${id}/team`, { token: owner.token, body: { team_id: billing.id } })).status, 200);

  const { page, context, errors } = await appPage(browser, app.url, ann.token);
  await page.goto(`${app.url}/app/inbox/${id}`);
  await liveUp(page, id, 'urgent');
  // The check the event starts (GET of the open conversation) is held; later reads go through.
  let held: (() => void) | null = null;
  let checking = false;
  await page.route(`**/api/v1/conversations/${id}`, async (route) => {
    if (checking || route.request().method() !== 'GET') return route.continue();
    checking = true;
    await new Promise<void>((resolve) => (held = resolve));
    await route.continue();
  });
  t.is((await app.request('PUT', `/api/v1/teams/${billing.id}/members`, { token: owner.token, body: { member_ids: [] } })).status, 200);
  await waitFor(async () => checking, 10_000, "the event's check started");
  // Meanwhile the live connection drops and comes back: the thread re-reads and finds it gone first.
  app.deps.events.disconnect({ rooms: [`user:${ann.userId}`] });
  await page.waitForURL((url) => url.pathname === '/app/inbox');
  (held as (() => void) | null)?.();
  await page.getByText('The conversation you had open is no longer visible to you: it is no longer in your teams or assigned to you.').waitFor();
  t.deepEqual(errors, []);
  await context.close();
});
