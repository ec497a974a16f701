/**
 * How Parley serves the agent app: `/` and the links it mails (verification, Stripe's return)
 * land in the app, every client-side route answers the HTML shell, assets are hashed,
 * gzipped and cached for a year, and the first load stays under 150 KB gzipped.
 */
import test from 'ava';
import http from 'node:http';
import { startTestApp, type TestApp } from './helpers/app.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp({ env: { GOOGLE_CLIENT_ID: 'client-123.apps.googleusercontent.com' } });
});
test.after.always(() => app?.close());

/** The bytes on the wire (fetch would decompress them), asking for gzip. */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes }));
      })
      .on('error', reject);
  });
}

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${app.url}${path}`, { headers, redirect: 'manual' });

function assetsOf(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)].map((m) => m[1]!);
}

test('/ and the mailed links redirect into the app, keeping their query', async (t) => {
  const cases = [
    ['/', '/app'],
    ['/verify-email?token=abc.def', '/app/verify-email?token=abc.def'],
    ['/billing?checkout=success', '/app/settings/plan?checkout=success'],
    ['/billing?checkout=cancelled', '/app/settings/plan?checkout=cancelled'],
  ];
  for (const [from, to] of cases) {
    const res = await get(from!);
    t.is(res.status, 302, from);
    t.is(res.headers.get('location'), to, from);
  }
});

test('every app route answers the HTML shell, revalidated, with a strict CSP', async (t) => {
  for (const path of ['/app', '/app/', '/app/inbox', '/app/inbox/7d4c7ad4-0f1c-4a5e-9a35-1a2b3c4d5e6f', '/app/settings/channels', '/app/verify-email']) {
    const res = await get(path);
    t.is(res.status, 200, path);
    t.regex(res.headers.get('content-type') ?? '', /^text\/html/);
    t.is(res.headers.get('cache-control'), 'no-cache');
    const html = await res.text();
    t.is(assetsOf(html).length, 2, path);
    t.true(html.includes('<div id="root">'));
  }
  const res = await get('/app/inbox');
  const csp = res.headers.get('content-security-policy') ?? '';
  t.true(csp.includes("default-src 'self'"));
  t.true(csp.includes("frame-ancestors 'none'"));
  t.true(csp.includes("script-src 'self' https://accounts.google.com"), 'Google sign-in allowed when configured');
  t.true((await res.text()).includes('content="client-123.apps.googleusercontent.com"'), 'the app learns the Google client id');
  const etag = res.headers.get('etag')!;
  t.is((await get('/app/inbox', { 'if-none-match': etag })).status, 304);
});

test('assets: hashed names cached for a year, gzipped, 304 on a match, 404 otherwise', async (t) => {
  const html = await (await get('/app')).text();
  for (const asset of assetsOf(html)) {
    t.regex(asset, /\/main-[A-Z0-9]+\.(js|css)$/);
    const res = await get(asset, { 'accept-encoding': 'gzip' });
    t.is(res.status, 200);
    t.is(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    t.is(res.headers.get('content-encoding'), 'gzip');
    t.regex(res.headers.get('content-type') ?? '', asset.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
    t.is((await get(asset, { 'if-none-match': res.headers.get('etag')! })).status, 304);
    const plain = await rawGet(`${app.url}${asset}`);
    t.is(plain.headers['content-encoding'], undefined, 'identity for clients without gzip');
  }
  const missing = await get('/app/assets/main-NOPE.js');
  t.is(missing.status, 404);
  t.deepEqual(await missing.json(), { detail: 'Not Found' });
});

test('the first load (HTML shell, script and stylesheet) is under 150 KB gzipped', async (t) => {
  const shell = await rawGet(`${app.url}/app`, { 'accept-encoding': 'gzip' });
  const html = await (await get('/app')).text();
  let total = shell.bytes;
  for (const asset of assetsOf(html)) total += (await rawGet(`${app.url}${asset}`, { 'accept-encoding': 'gzip' })).bytes;
  t.log(`first load: ${(total / 1024).toFixed(1)} KB gzipped`);
  t.true(total < 150 * 1024, `${total} bytes`);
});

test('the OpenAPI document holds the API only, not the app pages', async (t) => {
  const doc = await app.request('GET', '/api/v1/openapi.json');
  const paths = Object.keys(doc.body.paths);
  t.false(
    paths.some((p) => p === '/' || p.startsWith('/app') || p === '/verify-email' || p === '/billing'),
    paths.join(' '),
  );
  t.true(paths.includes('/api/v1/conversations'));
});
