/**
 * The agent app's pages, on the API's own origin: `/app` and every client-side route under it
 * answer the HTML shell; `/app/assets/<name>-<hash>.<ext>` the bundle; `/` and the links
 * Parley sends out (`APP_URL/verify-email?token=`, `APP_URL/billing?checkout=`) redirect into
 * the app. Hidden from the OpenAPI document: they are pages, not API.
 */
import type { Context } from 'koa';
import { z } from '../../../lib/zod.ts';
import { notFound } from '../../../core/errors.ts';
import type { Deps } from '../../../core/deps.ts';
import { defineRoute } from '../../route.ts';
import { etagOf, sendTagged } from '../../http-cache.ts';
import { appBundle, type AppBundle } from './bundle.ts';

const page = { tags: ['Agent app'], auth: 'none' as const, hidden: true };

/** Same origin for everything; Google's sign-in script and frame only when it is configured. */
function contentSecurityPolicy(google: boolean): string {
  const gsi = google ? ' https://accounts.google.com' : '';
  return [
    "default-src 'self'",
    `script-src 'self'${gsi}`,
    `style-src 'self' 'unsafe-inline'${gsi}`,
    `frame-src 'self'${gsi}`,
    "img-src 'self' data: blob: https: http:",
    "media-src 'self' blob: https: http:",
    `connect-src 'self'${gsi}`,
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

function shellHtml(bundle: AppBundle, googleClientId: string | undefined): string {
  const google = googleClientId ? `<meta name="parley-google-client-id" content="${escapeAttribute(googleClientId)}">` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>Parley</title>
${google}
<link rel="icon" href="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E%3Crect width='32' height='32' rx='8' fill='%237650FF'/%3E%3Cpath d='M9 10h14v9H15l-4 4v-4H9z' fill='white'/%3E%3C/svg%3E">
<link rel="stylesheet" href="/app/assets/${bundle.stylesheet}">
<script type="module" src="/app/assets/${bundle.script}"></script>
</head><body><div id="root"></div><noscript>Parley needs JavaScript.</noscript></body></html>`;
}

async function serveShell(ctx: Context, deps: Deps): Promise<void> {
  const bundle = await appBundle(deps.logger);
  const html = Buffer.from(shellHtml(bundle, deps.config.GOOGLE_CLIENT_ID));
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-cache');
  ctx.set('Content-Security-Policy', contentSecurityPolicy(Boolean(deps.config.GOOGLE_CLIENT_ID)));
  ctx.set('Referrer-Policy', 'same-origin');
  sendTagged(ctx, html, etagOf(html), { gzip: null });
}

export const asset = defineRoute({
  ...page,
  method: 'get',
  path: '/app/assets/:name',
  summary: 'A file of the agent app bundle (content-hashed name, cached for a year)',
  params: z.object({ name: z.string() }),
  response: z.string(),
  handler: async ({ params, ctx, deps }) => {
    const file = (await appBundle(deps.logger)).assets.get(params.name);
    if (!file) throw notFound('Not Found');
    ctx.type = file.contentType;
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    sendTagged(ctx, file.body, etagOf(file.body), { gzip: file.gzip });
  },
});

export const shell = defineRoute({
  ...page,
  method: 'get',
  path: '/app',
  summary: 'The agent app',
  response: z.string(),
  handler: async ({ ctx, deps }) => serveShell(ctx, deps),
});

export const clientRoutes = defineRoute({
  ...page,
  method: 'get',
  path: '/app/{*rest}',
  summary: 'A page of the agent app (client-side route)',
  response: z.string(),
  handler: async ({ ctx, deps }) => serveShell(ctx, deps),
});

/** A redirect into the app keeping the query string (tokens, checkout result). */
const redirect = (path: string, to: string, summary: string) =>
  defineRoute({
    ...page,
    method: 'get',
    path,
    summary,
    handler: async ({ ctx }) => {
      ctx.redirect(to + (ctx.querystring ? `?${ctx.querystring}` : ''));
    },
  });

export default [
  asset,
  shell,
  clientRoutes,
  redirect('/', '/app', 'The home page: the agent app'),
  redirect('/verify-email', '/app/verify-email', 'The link of the verification mail'),
  redirect('/reset-password', '/app/reset-password', 'The link of the password-reset mail'),
  redirect('/billing', '/app/settings/plan', 'Where Stripe Checkout returns'),
];
