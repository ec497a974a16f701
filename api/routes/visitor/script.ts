/**
 * GET /widget.js: the embeddable website widget (widget/main.ts), bundled by esbuild on the
 * first request (one IIFE, minified, socket.io-client included) and kept in memory for the
 * life of the process. No build step: the sources are the bundle's only input, so every
 * node serves the same bytes and the same ETag.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from '../../../lib/zod.ts';
import { buildOnce } from '../../build-once.ts';
import { defineRoute } from '../../route.ts';
import { etagOf, sendTagged } from '../../http-cache.ts';

const entryPoint = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'widget', 'main.ts');

type Bundle = { code: Buffer; etag: string };

async function buildBundle(): Promise<Bundle> {
  // Loaded on first use: processes that never serve the widget never load esbuild.
  const { build } = (await import('esbuild')).default;
  const result = await build({
    entryPoints: [entryPoint],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2019'],
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  const code = Buffer.from(result.outputFiles[0].contents);
  return { code, etag: etagOf(code) };
}

/** The bundle, built once; a failed build is retried by the next request. */
export const widgetBundle = buildOnce(buildBundle, 'widget.js', 'The widget script is not available right now');

export default defineRoute({
  method: 'get',
  path: '/widget.js',
  summary: 'The embeddable website widget (JavaScript)',
  description:
    'Embed with `<script src="{PUBLIC_URL}/widget.js" data-widget-id="<widget id>" async></script>`. The script talks to the visitor API ' +
    'and the `/widget` socket at the address it was loaded from (`data-api-url` overrides it). Cached one day by browsers and CDNs ' +
    '(`Cache-Control: public, max-age=86400`) and revalidated by ETag (304), so a new version reaches sites within a day. 503 when it cannot be built.',
  tags: ['Website visitors'],
  auth: 'none',
  publicCors: true,
  responseContentType: 'text/javascript',
  response: z.string(),
  errors: [503],
  handler: async ({ ctx, deps }) => {
    const { code, etag } = await widgetBundle(deps.logger);
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.type = 'text/javascript; charset=utf-8';
    sendTagged(ctx, code, etag);
  },
});
