/**
 * The two kinds of installation (issue 38, item 1). Without billing (no STRIPE_SECRET_KEY) the
 * server is its operator's own: every workspace is on PLAN_WITHOUT_BILLING (Pro by default), a
 * team of two can invite its second agent, nothing offers an upgrade, and the command line still
 * sets one workspace's plan. With billing, workspaces start on Free and refusals say "Upgrade".
 * The browser part: Settings → Plan offers nothing to buy, and inviting a teammate just works.
 */
import test from 'ava';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, registerUser } from './helpers/fixtures.ts';
import { accessibilityViolations, appPage, artifactDir, browserTest, DESKTOP, hasChromium, launchChromium, PHONE } from './helpers/browser.ts';
import { applyPlanWithoutBilling } from '../core/domain/plans.ts';
import { setBusinessPlan } from '../core/admin/business-admin.ts';
import { ConfigError, parseEnv } from '../core/config.ts';

let own: TestApp;
let sold: TestApp;
let browser: Browser | undefined;
const shots = artifactDir('first-day');

test.before(async () => {
  // PLAN_WITHOUT_BILLING empty: its default (the test helper pins Free for the other files).
  own = await startTestApp({ env: { PLAN_WITHOUT_BILLING: '' } });
  sold = await startTestApp({ env: { STRIPE_SECRET_KEY: 'sk_test_first_day', STRIPE_API_URL: 'http://127.0.0.1:9/' } });
  if (hasChromium) browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await own?.close();
  await sold?.close();
});

const invite = (app: TestApp, token: string, email: string) => app.request('POST', '/api/v1/team/invite', { token, query: { email, role: 'agent' } });

test.serial('without billing a new workspace is on Pro, invites its agents, and no refusal says "Upgrade"', async (t) => {
  const owner = await createWorkspace(own);
  const plan = await own.request('GET', '/api/v1/business/plan', { token: owner.token });
  t.is(plan.status, 200);
  t.is(plan.body.plan, 'Pro');
  t.false(plan.body.billing);
  t.is(plan.body.limits.agents, 5);

  for (let i = 0; i < 5; i++) {
    const agent = await registerUser(own, `Agent ${i}`);
    const res = await invite(own, owner.token, agent.email);
    t.is(res.status, 200, res.text);
  }
  const sixth = await registerUser(own, 'One too many');
  const refused = await invite(own, owner.token, sixth.email);
  t.is(refused.status, 402);
  t.is(refused.body.error, 'limit_exceeded');
  t.is(refused.body.message, "Your Pro plan allows 5 additional agents. This server's operator sets the plan (parley business plan).");
  t.notRegex(refused.body.message, /upgrade/i);
});

test.serial('with billing a new workspace starts on Free and a refusal offers the upgrade', async (t) => {
  const owner = await createWorkspace(sold);
  const plan = await sold.request('GET', '/api/v1/business/plan', { token: owner.token });
  t.is(plan.body.plan, 'Free');
  t.true(plan.body.billing);
  const agent = await registerUser(sold, 'Second');
  const refused = await invite(sold, owner.token, agent.email);
  t.is(refused.status, 402);
  t.is(refused.body.message, 'Your Free plan allows 0 additional agents. Upgrade to add more.');
  // Billing on: a start moves nobody.
  t.is(await applyPlanWithoutBilling(sold.deps.db, sold.deps.config), 0);
  t.is((await sold.sql('select plan from businesses where id = $1', [owner.businessId]))[0].plan, 'Free');
});

test.serial('at start, without billing, every workspace goes to the setting but those the command line set', async (t) => {
  const before = await createWorkspace(own);
  const lifted = await createWorkspace(own);
  // A workspace made before the setting existed (or under another value) sits on Free.
  await own.sql('update businesses set plan = $1 where id = $2', ['Free', before.businessId]);
  t.is(await setBusinessPlan(own.deps.db, lifted.businessId, 'Mini'), 'Pro');

  t.true((await applyPlanWithoutBilling(own.deps.db, own.deps.config)) >= 1);
  const planOf = async (id: string) => (await own.sql('select plan from businesses where id = $1', [id]))[0].plan;
  t.is(await planOf(before.businessId), 'Pro');
  t.is(await planOf(lifted.businessId), 'Mini', "the operator's choice stays");
  t.is(await applyPlanWithoutBilling(own.deps.db, own.deps.config), 0, 'a second start moves nobody');

  // Another setting moves them all again, the operator's workspace still excepted.
  t.is(await applyPlanWithoutBilling(own.deps.db, { ...own.deps.config, PLAN_WITHOUT_BILLING: 'Mini' }), await countNotOperators());
  t.is(await planOf(before.businessId), 'Mini');
  await applyPlanWithoutBilling(own.deps.db, own.deps.config);
  t.is(await planOf(before.businessId), 'Pro');
  t.is(await planOf(lifted.businessId), 'Mini');
});

async function countNotOperators(): Promise<number> {
  const [row] = await own.sql('select count(*)::int as n from businesses where not plan_chosen_by_operator');
  return row.n;
}

test.serial('PLAN_WITHOUT_BILLING takes a plan name in any case; anything else stops the start', (t) => {
  t.is(parseEnv({ PLAN_WITHOUT_BILLING: 'mini' }).PLAN_WITHOUT_BILLING, 'Mini');
  t.is(parseEnv({}).PLAN_WITHOUT_BILLING, 'Pro');
  t.throws(() => parseEnv({ PLAN_WITHOUT_BILLING: 'Enterprise' }), { instanceOf: ConfigError, message: /PLAN_WITHOUT_BILLING.*Free, Mini or Pro/ });
});

browserTest('without billing, Settings → Plan offers nothing to buy and the owner invites the second agent', async (t) => {
  const owner = await createWorkspace(own, { name: 'Sam Self-hosted' });
  const agent = await registerUser(own, 'Ada Second');
  for (const [viewport, name] of [
    [DESKTOP, 'desktop'],
    [PHONE, 'phone'],
  ] as const) {
    const { page, context, errors } = await appPage(browser!, own.url, owner.token, viewport);
    await page.goto(`${own.url}/app/settings/plan`);
    await page.getByRole('heading', { name: 'Plan', exact: true }).waitFor();
    await page.getByText("This server's operator sets the plan of every workspace").waitFor();
    t.is(await page.getByText('Pro', { exact: true }).count(), 1);
    t.is(await page.getByRole('button', { name: /Upgrade/ }).count(), 0);
    await page.screenshot({ path: path.join(shots, `plan-without-billing-${name}.png`), fullPage: true });
    t.deepEqual(await accessibilityViolations(page), []);
    if (name === 'desktop') {
      await page.goto(`${own.url}/app/settings/team`);
      await page.getByLabel("Teammate's e-mail").fill(agent.email);
      await page.getByRole('button', { name: 'Invite' }).click();
      await page.getByRole('list', { name: 'Team members' }).getByRole('listitem', { name: 'Ada Second' }).waitFor();
      t.is(await page.getByText(/upgrade/i).count(), 0);
    }
    t.deepEqual(errors, []);
    await context.close();
  }
});
