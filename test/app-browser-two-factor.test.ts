/**
 * Two-factor authentication in a real browser: setting it up in Settings → Your account (QR
 * code and key, a code computed here from the key the page shows, the recovery codes once),
 * the sign-in page's code step (a wrong code, the right one, a recovery code), turning it off,
 * the owner's "Require two-factor" switch, and a member who must set it up before the inbox.
 * Screenshots at desktop and phone widths in test-artifacts/two-factor/.
 */
import test from 'ava';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { encode } from 'uqr';
import { base32Decode, totpAt } from '../core/domain/accounts/totp.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addMember, createWorkspace } from './helpers/fixtures.ts';
import { appPage, artifactDir, browserTest, DESKTOP, hasChromium, launchChromium, noteIfSkipped, PHONE, accessibilityViolations } from './helpers/browser.ts';

noteIfSkipped('app-browser-two-factor');

let app: TestApp;
let browser: Browser;
const shots = hasChromium ? artifactDir('two-factor') : '';
const PASSWORD = 'password123';

test.before(async () => {
  if (!hasChromium) return;
  app = await startTestApp();
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

const codeOf = (key: string, offsetSteps = 0) => totpAt(base32Decode(key.replace(/\s/g, ''))!, Date.now() + offsetSteps * 30_000);

/** Nothing may be wider than the window (the phone above all). */
const overflow = (page: Page) =>
  page.evaluate(() => {
    const root = (globalThis as any).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });

/** The sign-in page's first step. */
async function signIn(page: Page, email: string): Promise<void> {
  await page.goto(`${app.url}/app/signin`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Sets it up on the open page (Settings → Your account or the required-setup page); returns the key the page showed and the recovery codes. */
async function setUpOnPage(page: Page, t: { is: (a: unknown, b: unknown, m?: string) => void }, shot?: string): Promise<{ key: string; codes: string[] }> {
  await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
  const qr = page.getByRole('img', { name: 'QR code for your authenticator app' });
  await qr.waitFor();
  const key = (await page.getByLabel('Key', { exact: true }).textContent())!;
  const uri = (await page.getByLabel('Setup link', { exact: true }).textContent())!;
  t.is(new URL(uri).searchParams.get('secret'), key.replace(/\s/g, ''), 'the URI carries the key shown');
  // The QR code is the URI's: the same modules uqr encodes for it.
  const { data } = encode(uri, { ecc: 'M', border: 2 });
  let expected = '';
  data.forEach((row, y) => row.forEach((dark, x) => dark && (expected += `M${x} ${y}h1v1h-1z`)));
  t.is(await qr.locator('path').getAttribute('d'), expected, 'the QR code encodes the setup link');
  if (shot) await page.screenshot({ path: path.join(shots, `${shot}-setup.png`), fullPage: true });
  await page.getByLabel('Code from the app').fill('000000' === codeOf(key) ? '111111' : '000000');
  // Turning it on asks for the password too (issue #36: a stolen session alone must not).
  await page.getByLabel('Your password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Turn on', exact: true }).click();
  await page.getByText('Invalid code').waitFor();
  await page.getByLabel('Code from the app').fill(codeOf(key));
  await page.getByRole('button', { name: 'Turn on', exact: true }).click();
  const list = page.locator('.recovery-codes code');
  await list.first().waitFor();
  const codes = await list.allTextContents();
  t.is(codes.length, 10);
  if (shot) await page.screenshot({ path: path.join(shots, `${shot}-recovery-codes.png`), fullPage: true });
  await page.getByRole('button', { name: 'I have saved them' }).click();
  return { key, codes };
}

browserTest('set up in Settings, then sign in with a code or a recovery code; turn it off', async (t) => {
  for (const [name, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    const owner = await createWorkspace(app, { name: `Tess ${name}` });
    const { page, context, errors } = await appPage(browser, app.url, owner.token, viewport);
    await page.goto(`${app.url}/app/settings/account`);
    const card = page.getByLabel('Two-factor authentication', { exact: true });
    await card.getByText('Off. Add a code').waitFor();
    await card.getByRole('button', { name: 'Set up' }).click();
    const { key, codes } = await setUpOnPage(page, t, `account-${name}`);
    await card.getByText('10 recovery codes left').waitFor();
    t.deepEqual(await accessibilityViolations(page), []);
    t.is(await overflow(page), 0, `${name}: nothing wider than the window`);
    await page.screenshot({ path: path.join(shots, `account-on-${name}.png`), fullPage: true });
    t.is((await app.request('GET', '/api/v1/auth/me', { token: owner.token })).body.two_factor.enabled, true);

    t.deepEqual(errors, []);
    await context.close();

    // Signed out (a fresh browser), the sign-in page asks for the code.
    const fresh = await browser.newContext({ viewport });
    const signin = await fresh.newPage();
    signin.on('pageerror', (e) => errors.push(e.message));
    await signIn(signin, owner.email);
    await signin.getByRole('heading', { name: 'Two-factor authentication' }).waitFor();
    t.is(await signin.evaluate(() => localStorage.getItem('parley.token')), null, 'no token before the code');
    await signin.getByLabel('Authentication code').fill('000000' === codeOf(key, 1) ? '111111' : '000000');
    await signin.getByRole('button', { name: 'Verify and sign in' }).click();
    await signin.getByText('Invalid two-factor code').waitFor();
    t.is(await overflow(signin), 0);
    await signin.screenshot({ path: path.join(shots, `signin-code-${name}.png`) });
    // The code that turned it on is used: the next step's code (the phone's clock may run ahead).
    await signin.getByLabel('Authentication code').fill(codeOf(key, 1));
    await signin.getByRole('button', { name: 'Verify and sign in' }).click();
    await signin.getByRole('heading', { name: 'Inbox' }).waitFor();

    // Again, with a recovery code.
    await signin.evaluate(() => localStorage.removeItem('parley.token'));
    await signIn(signin, owner.email);
    await signin.getByRole('button', { name: 'Lost your device? Use a recovery code' }).click();
    await signin.getByLabel('Recovery code').fill(codes[0]!.toUpperCase());
    await signin.screenshot({ path: path.join(shots, `signin-recovery-${name}.png`) });
    await signin.getByRole('button', { name: 'Verify and sign in' }).click();
    await signin.getByRole('heading', { name: 'Inbox' }).waitFor();

    // Turned off in Settings with the password.
    await signin.goto(`${app.url}/app/settings/account`);
    const signedInCard = signin.getByLabel('Two-factor authentication', { exact: true });
    await signedInCard.getByText('9 recovery codes left').waitFor();
    await signedInCard.getByRole('button', { name: 'Turn off' }).click();
    await signedInCard.getByLabel('Your password, or a code from your app').fill('not my password');
    await signedInCard.getByRole('button', { name: 'Turn off' }).click();
    await signedInCard.getByText('Incorrect password').waitFor();
    await signedInCard.getByLabel('Your password, or a code from your app').fill(PASSWORD);
    await signedInCard.getByRole('button', { name: 'Turn off' }).click();
    await signedInCard.getByText('Off. Add a code').waitFor();
    t.is((await app.request('GET', '/api/v1/auth/me', { token: owner.token })).body.two_factor.enabled, false);
    t.deepEqual(errors, []);
    await fresh.close();
  }
});

browserTest('the owner requires two-factor; a member without it sets it up before the inbox', async (t) => {
  const owner = await createWorkspace(app, { name: 'Olga Owner' });
  const agent = await addMember(app, owner.businessId, 'agent', { name: 'Abel Agent' });
  {
    const { page, context, errors } = await appPage(browser, app.url, owner.token, DESKTOP);
    await page.goto(`${app.url}/app/settings/security`);
    const toggle = page.getByRole('switch', { name: 'Require two-factor' });
    await toggle.waitFor();
    t.true(await toggle.isDisabled(), 'not before the owner has it');
    await page.getByText('Turn on two-factor authentication for your own account first').waitFor();
    await page.getByRole('region').getByRole('link', { name: 'Your account' }).click();
    await page.getByLabel('Two-factor authentication', { exact: true }).getByRole('button', { name: 'Set up' }).click();
    await setUpOnPage(page, t);
    await page.goto(`${app.url}/app/settings/security`);
    await page.getByText('1 member without two-factor authentication yet.').waitFor();
    await toggle.click();
    await page.getByText('On: every member signs in with a code').waitFor();
    await page.getByText('1 member without two-factor authentication yet.').waitFor();
    t.true(await toggle.isChecked());
    await page.screenshot({ path: path.join(shots, 'security-desktop.png') });
    t.is((await app.request('GET', '/api/v1/settings/security', { token: owner.token })).body.require_two_factor, true);
    t.deepEqual(errors, []);
    await context.close();
  }
  {
    // The owner's Security page on a phone (turning two-factor on left this session signed in).
    const { page, context, errors } = await appPage(browser, app.url, owner.token, PHONE);
    await page.goto(`${app.url}/app/settings/security`);
    await page.getByText('On: every member signs in with a code').waitFor();
    t.true(await page.getByRole('switch', { name: 'Require two-factor' }).isChecked());
    t.is(await overflow(page), 0, 'phone: nothing wider than the window');
    await page.screenshot({ path: path.join(shots, 'security-phone.png'), fullPage: true });
    t.deepEqual(errors, []);
    await context.close();
  }
  for (const [name, viewport] of [
    ['phone', PHONE],
    ['desktop', DESKTOP],
  ] as const) {
    const { page, context, errors } = await appPage(browser, app.url, agent.token, viewport);
    await page.getByRole('heading', { name: 'Set up two-factor authentication' }).waitFor();
    await page.getByText("Olga Owner's Co requires two-factor authentication of every member").waitFor();
    t.is(await page.getByRole('heading', { name: 'Inbox' }).count(), 0);
    t.is(await overflow(page), 0, `${name}: nothing wider than the window`);
    t.deepEqual(await accessibilityViolations(page), []);
    await page.screenshot({ path: path.join(shots, `required-${name}.png`), fullPage: true });
    if (name === 'phone') {
      await context.close();
      continue;
    }
    await setUpOnPage(page, t, 'required-desktop');
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();
    t.is((await app.request('GET', '/api/v1/conversations', { token: agent.token })).status, 200);
    t.deepEqual(errors, []);
    await context.close();
  }
});
