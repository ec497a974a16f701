/**
 * Getting back into an account and ending sessions, in a real browser: "Forgot password?" on
 * sign-in, the mailed link (read from the send_email job) to the reset page, signing in with
 * the new password; changing the password in Settings → Your account (the other tab is signed
 * out); "Sign out everywhere". Screenshots at desktop and phone widths in test-artifacts/account/.
 */
import test from 'ava';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, registerUser, type Workspace } from './helpers/fixtures.ts';
import { waitFor } from './helpers/worker.ts';
import { appPage, artifactDir, browserTest, DESKTOP, hasChromium, launchChromium, noteIfSkipped, PHONE } from './helpers/browser.ts';

noteIfSkipped('app-browser-account');

let app: TestApp;
let browser: Browser;
let owner: Workspace;
const shots = hasChromium ? artifactDir('account') : '';

test.before(async () => {
  if (!hasChromium) return;
  app = await startTestApp({ env: { APP_URL: 'http://placeholder.invalid' } });
  // The mailed links point at this server's own address.
  app.deps.config.APP_URL = app.url;
  owner = await createWorkspace(app, { name: 'Rosa Reset' });
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

/** The latest reset link mailed to `email` (the send_email job's text). */
async function resetLink(email: string): Promise<string> {
  return waitFor(
    async () => {
      const rows = await app.sql(
        `select j.payload from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
       where t.identifier = 'send_email' and j.payload->>'to' = $1 and j.payload->>'subject' = 'Reset your Parley password' order by j.id desc`,
        [email],
      );
      return rows.length ? /(http\S+\/reset-password\?token=\S+)/.exec(String(rows[0].payload.text))?.[1] : null;
    },
    10_000,
    'the reset mail',
  );
}

browserTest('a forgotten password: the link from the mail sets a new one and signs in; the old password and session stop working', async (t) => {
  for (const [name, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${app.url}/app/signin`);
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await page.getByLabel('Email').fill(owner.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByText('a link to choose a new password is on its way').waitFor();
    await page.screenshot({ path: path.join(shots, `forgot-${name}.png`) });

    const link = await resetLink(owner.email);
    const newPassword = `new secret for ${name}`;
    await page.goto(link);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await page.getByLabel('New password').fill(newPassword);
    await page.getByLabel('Repeat it').fill(newPassword);
    await page.screenshot({ path: path.join(shots, `reset-${name}.png`) });
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();
    t.is((await app.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: newPassword } })).status, 200, name);
    t.is((await app.request('GET', '/api/v1/auth/me', { token: owner.token })).status, 401, 'the earlier session ended');
    // The same link a second time is refused on the page.
    await page.goto(link);
    await page.getByLabel('New password').fill('yet another one');
    await page.getByLabel('Repeat it').fill('yet another one');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByText('This password reset link is invalid, expired or already used').waitFor();
    t.deepEqual(errors, []);
    await context.close();
    owner = { ...owner, token: (await app.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: newPassword } })).body.access_token };
    await app.sql(`delete from rate_windows where key like 'password-reset:%'`);
  }
});

browserTest('changing the password signs out the other tab; "Sign out everywhere" ends this one too', async (t) => {
  const [current] = await app.sql(`select 1`);
  t.truthy(current);
  const password = 'change me please';
  await app.request('POST', '/api/v1/auth/password-reset', { body: { email: owner.email } });
  const reset = new URL(await resetLink(owner.email)).searchParams.get('token');
  const confirmed = await app.request('POST', '/api/v1/auth/password-reset/confirm', { body: { token: reset, password } });
  t.is(confirmed.status, 200, confirmed.text);
  const other = (await app.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password } })).body.access_token;

  for (const [name, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    const token = (
      await app.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: name === 'desktop' ? password : 'changed in the app' } })
    ).body.access_token;
    const { page, context, errors } = await appPage(browser, app.url, token, viewport);
    await page.goto(`${app.url}/app/settings/account`);
    await page.getByRole('button', { name: 'Sign out everywhere' }).waitFor();
    if (name === 'desktop') {
      const form = page.getByRole('form', { name: 'Change password' });
      await form.getByLabel('Current password').fill('not the password');
      await form.getByLabel('New password').fill('changed in the app');
      await form.getByRole('button', { name: 'Change password' }).click();
      await page.getByText('Incorrect password').waitFor();
      await form.getByLabel('Current password').fill(password);
      await form.getByRole('button', { name: 'Change password' }).click();
      await page.getByText('Password changed. Your other devices were signed out.').waitFor();
      t.is((await app.request('GET', '/api/v1/auth/me', { token: other })).status, 401, 'the other session ended');
      // This tab carries on with its new token.
      const kept = await page.evaluate(() => localStorage.getItem('parley.token'));
      t.is((await app.request('GET', '/api/v1/auth/me', { token: kept! })).status, 200);
    }
    await page.screenshot({ path: path.join(shots, `account-${name}.png`), fullPage: true });
    if (name === 'phone') {
      await page.getByRole('button', { name: 'Sign out everywhere' }).click();
      // It asks for the password first (issue #36: a stolen session alone must not sign the owner out everywhere).
      const confirm = page.getByRole('form', { name: 'Sign out everywhere' });
      await confirm.getByLabel('Your password').fill('changed in the app');
      await confirm.getByRole('button', { name: 'Sign out everywhere' }).click();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      t.is((await app.request('GET', '/api/v1/auth/me', { token })).status, 401);
    }
    t.deepEqual(errors, []);
    await context.close();
  }
});

browserTest('an invited agent leaves the team from Settings → Your account and lands on creating a workspace; the owner sees no such button', async (t) => {
  const team = await createWorkspace(app, { name: 'Lena Leader', plan: 'Mini' });
  for (const [name, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    const agent = await registerUser(app, `Ivo ${name}`);
    const invited = await app.request('POST', '/api/v1/team/invite', { token: team.token, query: { email: agent.email, role: 'agent' } });
    t.is(invited.status, 200, invited.text);
    const { page, context, errors } = await appPage(browser, app.url, agent.token, viewport);
    await page.goto(`${app.url}/app/settings/account`);
    await page.getByRole('button', { name: 'Leave team' }).waitFor();
    await page.getByRole('button', { name: 'Leave team' }).scrollIntoViewIfNeeded();
    t.true(
      await page.evaluate(() => {
        const g = globalThis as any;
        return g.document.documentElement.scrollWidth <= g.innerWidth;
      }),
      'nothing wider than the screen',
    );
    await page.screenshot({ path: path.join(shots, `leave-${name}.png`) });
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Leave team' }).click();
    await page.waitForURL(/\/app\/onboarding/);
    t.is((await app.sql('select 1 from team_members where user_id = $1', [agent.userId])).length, 0);
    t.is((await app.request('GET', '/api/v1/auth/me', { token: agent.token })).body.business, null);
    t.deepEqual(errors, []);
    await context.close();
  }
  const { page, context } = await appPage(browser, app.url, team.token, DESKTOP);
  await page.goto(`${app.url}/app/settings/account`);
  await page.getByRole('button', { name: 'Sign out everywhere' }).waitFor();
  t.is(await page.getByRole('button', { name: 'Leave team' }).count(), 0);
  await context.close();
});

browserTest('the e-mail banner: "Email me the link again" sends one, "Not now" hides it for the tab (a reload too), a new tab shows it again', async (t) => {
  const fresh = await createWorkspace(app, { name: 'Una Unverified' });
  await app.sql(`update users set is_verified = false where id = $1`, [fresh.userId]);
  const { page, context, errors } = await appPage(browser, app.url, fresh.token, PHONE);
  const banner = page.getByRole('status').filter({ hasText: 'Confirm your e-mail address' });
  await banner.waitFor();
  await page.screenshot({ path: path.join(shots, 'verify-banner-phone.png') });
  await banner.getByRole('button', { name: 'Email me the link again' }).click();
  await banner.getByText('Sent again.').waitFor();
  const mails = await waitFor(
    async () => {
      const rows = await app.sql(
        `select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
         where t.identifier = 'send_email' and j.payload->>'to' = $1`,
        [fresh.email],
      );
      return rows[0].n > 0 ? rows[0].n : null;
    },
    10_000,
    'the verification mail queued',
  );
  t.true(mails >= 1);
  await banner.getByRole('button', { name: 'Not now' }).click();
  await banner.waitFor({ state: 'detached' });
  await page.reload();
  await page.getByText('No conversations waiting').waitFor();
  t.is(await banner.count(), 0, 'still hidden after a reload of the tab');
  const other = await context.newPage();
  await other.goto(`${app.url}/app/inbox`);
  await other.getByRole('status').filter({ hasText: 'Confirm your e-mail address' }).waitFor();
  t.deepEqual(errors, []);
  await context.close();
});
