/**
 * The agent app (app/main.tsx) bundled by esbuild on first use, like /widget.js: no build
 * command for users, every node builds the same bytes. Assets get content-hashed names, so
 * they are cached for a year and a new version is a new URL; the HTML shell is revalidated.
 * Each asset is kept gzipped too, because the app is the first thing a new user waits for.
 */
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { buildOnce } from '../../build-once.ts';

const appDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'app');

export type AppAsset = { contentType: string; body: Buffer; gzip: Buffer };

export type AppBundle = {
  /** By file name, e.g. `main-3FHW2K.js`. */
  assets: Map<string, AppAsset>;
  /** The names of the entry script and stylesheet the shell loads. */
  script: string;
  stylesheet: string;
};

const contentTypes: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

async function buildAppBundle(): Promise<AppBundle> {
  // Loaded on first use: processes that never serve the app never load esbuild.
  const { build } = (await import('esbuild')).default;
  const result = await build({
    entryPoints: [path.join(appDir, 'main.tsx')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2020'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    legalComments: 'none',
    entryNames: '[name]-[hash]',
    outdir: '/app-assets',
    write: false,
    logLevel: 'silent',
  });
  const assets = new Map<string, AppAsset>();
  for (const file of result.outputFiles) {
    const name = path.basename(file.path);
    const body = Buffer.from(file.contents);
    assets.set(name, { contentType: contentTypes[path.extname(name)] ?? 'application/octet-stream', body, gzip: gzipSync(body, { level: 9 }) });
  }
  const names = [...assets.keys()];
  const script = names.find((n) => n.endsWith('.js'));
  const stylesheet = names.find((n) => n.endsWith('.css'));
  if (!script || !stylesheet) throw new Error('app bundle lacks its script or stylesheet');
  return { assets, script, stylesheet };
}

/** The bundle, built once; a failed build is retried by the next request. */
export const appBundle = buildOnce(buildAppBundle, 'agent app', 'The app is not available right now');
