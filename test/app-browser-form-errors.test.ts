/**
 * A refused form says which field is wrong and why, in a real browser: the API's validation
 * reasons (422 `loc`) are shown at their fields, each field marked invalid and described by its
 * reason (what a screen reader reads when the field takes the focus), the first one focused,
 * and the form's alert only points at them; a refusal of no field stays in the alert. Sign-up,
 * Settings → Labels and the password reset's own check. Screenshots in test-artifacts/form-errors/.
 */
import test from 'ava';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import {
  accessibilityViolations,
  accessibleControl,
  appPage,
  artifactDir,
  browserTest,
  DESKTOP,
  hasChromium,
  launchChromium,
  noteIfSkipped,
  PHONE,
} from './helpers/browser.ts';

noteIfSkipped('app-browser-form-errors');

let app: TestApp;
let browser: Browser;
let owner: Workspace;
const shots = hasChromium ? artifactDir('form-errors') : '';
const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });

test.before(async () => {
  if (!hasChromium) return;
  app = await startTestApp();
  owner = await createWorkspace(app, { name: 'Fran Forms' });
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

browserTest('sign-up: the API refusing two fields marks both, focuses the first and reads its reason; fixed, the account is made', async (t) => {
  for (const [name, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${app.url}/app/signup`);
    const fullName = page.getByLabel('Full name');
    const email = page.getByLabel('Email');
    const password = page.getByLabel('Password');
    // Both pass the browser's own checks (`required` takes spaces, type=email takes a host
    // without a dot); the API refuses both.
    const address = `dana-${name}@localhost`;
    await fullName.fill('   ');
    await email.fill(address);
    await password.fill('password123');
    await page.getByRole('button', { name: 'Create account' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('Check the 2 marked fields.').waitFor();

    const nameControl = await accessibleControl(fullName);
    t.true(nameControl.invalid, name);
    t.true(nameControl.focused, `${name}: the first refused field has the focus`);
    t.is(nameControl.name, 'Full name', name);
    // An empty field said plainly; other reasons as the API gives them.
    t.is(nameControl.description, "Can't be empty.", name);
    const emailControl = await accessibleControl(email);
    t.true(emailControl.invalid, name);
    t.false(emailControl.focused, name);
    t.is(emailControl.name, 'Email', name);
    t.regex(emailControl.description, /not a valid email address/i, name);
    // The field the API accepted keeps its hint alone.
    const passwordControl = await accessibleControl(password);
    t.false(passwordControl.invalid, name);
    t.is(passwordControl.description, 'At least 8 characters.', name);
    t.deepEqual(await accessibilityViolations(page), [], name);
    await shoot(page, `signup-refused-${name}`);
    t.deepEqual(await app.sql('select id from users where email = $1', [address]), [], `${name}: nothing stored`);

    await fullName.fill(`Dana ${name}`);
    await email.fill(`dana-${name}@example.com`);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/app\/onboarding$/);
    const [user] = await app.sql('select full_name from users where email = $1', [`dana-${name}@example.com`]);
    t.is(user?.full_name, `Dana ${name}`);
    t.deepEqual(errors, []);
    await context.close();
  }
});

browserTest('Settings → Labels: a refused name is marked at its field; a refusal of no field stays in the alert; fixed, the label is made', async (t) => {
  const { page, context, errors } = await appPage(browser, app.url, owner.token);
  await page.goto(`${app.url}/app/settings/labels`);
  const form = page.getByRole('form', { name: 'New label' });
  const labelName = form.getByLabel('Name');
  await labelName.fill('billing, refunds');
  await form.getByRole('button', { name: 'Add label' }).click();
  await form.getByRole('alert').getByText('Check the marked field.').waitFor();
  const refused = await accessibleControl(labelName);
  t.true(refused.invalid);
  t.true(refused.focused);
  t.is(refused.description, 'A label name cannot contain a comma');
  t.false((await accessibleControl(form.getByLabel('Description'))).invalid);
  t.deepEqual(await accessibilityViolations(page), []);
  await shoot(page, 'label-refused-desktop');
  t.deepEqual(await app.sql('select id from labels where business_id = $1', [owner.businessId]), []);

  await labelName.fill('billing');
  await form.getByRole('button', { name: 'Add label' }).click();
  await page.getByRole('list', { name: 'Labels' }).getByRole('listitem', { name: 'billing' }).waitFor();
  t.false((await accessibleControl(labelName)).invalid, 'the mark goes with the refusal');
  t.is(await form.getByRole('alert').count(), 0);

  // The same name again: the API refuses it as a plain 400 (`{detail}`), which no field claims.
  await labelName.fill('Billing');
  await form.getByRole('button', { name: 'Add label' }).click();
  await form.getByRole('alert').waitFor();
  t.is(await form.getByRole('alert').textContent(), 'A label named "Billing" already exists');
  t.false((await accessibleControl(labelName)).invalid);
  t.deepEqual(errors, []);
  await context.close();
});

browserTest("password reset: the form's own check (the repeat differs) is shown at the repeated field", async (t) => {
  const context = await browser.newContext({ viewport: PHONE });
  const page = await context.newPage();
  const requests: string[] = [];
  page.on('request', (r) => r.url().includes('/api/') && requests.push(r.url()));
  await page.goto(`${app.url}/app/reset-password?token=not-used-here`);
  await page.getByRole('textbox', { name: 'New password', exact: true }).fill('password123');
  await page.getByRole('textbox', { name: 'Repeat it', exact: true }).fill('password124');
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await page.getByRole('alert').getByText('Check the marked field.').waitFor();
  const repeat = await accessibleControl(page.getByRole('textbox', { name: 'Repeat it', exact: true }));
  t.true(repeat.invalid);
  t.true(repeat.focused);
  t.is(repeat.description, 'Not the same as the new password.');
  t.false((await accessibleControl(page.getByRole('textbox', { name: 'New password', exact: true }))).invalid);
  t.false(
    requests.some((url) => url.includes('password-reset')),
    'nothing sent',
  );
  await shoot(page, 'reset-repeat-phone');
  await context.close();
});
