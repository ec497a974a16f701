/**
 * Google sign-in from the agent app in a real browser. Google's script is answered locally by
 * a stand-in with the same surface (`google.accounts.id.initialize` / `renderButton`) whose
 * button hands over an ID token signed by the fake Google keys, so the app's own path is the
 * real one: the ID token goes to POST /api/v1/auth/google and the user lands in onboarding.
 */
import test from 'ava';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { startGoogleJwks, type GoogleJwks } from './helpers/jwks.ts';
import { browserTest, DESKTOP, hasChromium, launchChromium, noteIfSkipped } from './helpers/browser.ts';

noteIfSkipped('app-browser-google');

let app: TestApp;
let bare: TestApp;
let google: GoogleJwks;
let browser: Browser;

test.before(async () => {
  if (!hasChromium) return;
  google = await startGoogleJwks();
  app = await startTestApp({ env: { GOOGLE_CLIENT_ID: google.clientId, GOOGLE_JWKS_URL: google.jwksUrl } });
  bare = await startTestApp();
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await app?.close();
  await bare?.close();
  await google?.close();
});

/** Google Identity Services, as far as the app uses it: its button calls back with a credential. */
const gsiStandIn = (credential: string) => `
window.google = { accounts: { id: {
  initialize(options) { window.__gsi = options; },
  renderButton(element) {
    const button = document.createElement('button');
    button.textContent = 'Continue with Google';
    button.onclick = () => window.__gsi.callback({ credential: ${JSON.stringify(credential)} });
    element.appendChild(button);
  },
} } };`;

browserTest('with GOOGLE_CLIENT_ID, "Continue with Google" signs a new user up and into onboarding', async (t) => {
  const idToken = await google.signIdToken({ email: 'grace@example.com', name: 'Grace Hopper' });
  const context = await browser.newContext({ viewport: DESKTOP });
  await context.route('https://accounts.google.com/gsi/client', (route) => route.fulfill({ contentType: 'text/javascript', body: gsiStandIn(idToken) }));
  const page = await context.newPage();
  await page.goto(`${app.url}/app/signin`);
  await page.getByRole('button', { name: 'Continue with Google' }).click();
  await page.getByRole('button', { name: 'Create workspace' }).waitFor();
  const [user] = await app.sql(`select full_name, is_google_account, is_verified from users where email = 'grace@example.com'`);
  t.like(user, { full_name: 'Grace Hopper', is_google_account: true, is_verified: true });
  await context.close();
});

browserTest('without GOOGLE_CLIENT_ID there is no Google button', async (t) => {
  const context = await browser.newContext({ viewport: DESKTOP });
  let asked = false;
  await context.route('https://accounts.google.com/**', (route) => ((asked = true), route.abort()));
  const page = await context.newPage();
  await page.goto(`${bare.url}/app/signin`);
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  t.is(await page.getByText('or', { exact: true }).count(), 0);
  t.false(asked, "Google's script is never loaded");
  await context.close();
});
