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
import { appPage, artifactDir, browserTest, hasChromium, launchChromium, noteIfSkipped, PHONE, unnamedControls } from './helpers/browser.ts';

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
  t.deepEqual(await unnamedControls(page), []);
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
  await page.locator('.thread-header').getByLabel('Team', { exact: true }).waitFor();
  await shoot(page, 'teams-thread-phone');
  t.deepEqual(errors, []);
  await context.close();
});
