/**
 * Memory: `parley web` and `parley worker` load no platform library until a channel of that type
 * (or billing, system mail, the AI agent) is used: stripe, telegraf, twitter-api-v2, the twilio
 * REST client, mailparser, imapflow, nodemailer, ollama and the AWS SDK (the s3 storage driver) each add 5-33 MiB of RSS to a process.
 * A child process imports what each start mode imports and reports the package files loaded.
 * Twilio's webhook validator (one file) is the exception: SMS webhook verification is synchronous.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const platformLibraries = ['stripe', 'telegraf', 'twitter-api-v2', 'twilio', 'mailparser', 'imapflow', 'nodemailer', 'ollama', '@aws-sdk'];
const allowed = new Set(['twilio/lib/webhooks/webhooks.js']);
/** What bin/parley.ts imports before choosing a start mode, then boot. */
const common = ['bin/jobs-command.ts', 'bin/business-command.ts', 'core/config.ts', 'core/boot.ts'];

function loadedFiles(modules: string[]): string[] {
  const output = execFileSync(process.execPath, [path.join(root, 'test/helpers/loaded-packages.ts'), ...modules], { cwd: root, encoding: 'utf8' });
  return JSON.parse(output) as string[];
}

const platformFiles = (files: string[]) => files.filter((file) => !allowed.has(file) && platformLibraries.some((name) => file.startsWith(`${name}/`)));

test('starting web (boot + API server) loads no platform library', (t) => {
  const files = loadedFiles([...common, 'api/server.ts']);
  t.true(
    files.some((file) => file.startsWith('koa/')),
    'the probe sees the packages the server does load',
  );
  t.deepEqual(platformFiles(files), []);
});

test('starting worker (boot + workers) loads no platform library', (t) => {
  const files = loadedFiles([...common, 'workers/main.ts']);
  t.true(
    files.some((file) => file.startsWith('graphile-worker/')),
    'the probe sees the packages the worker does load',
  );
  t.deepEqual(platformFiles(files), []);
});
