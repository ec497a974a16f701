/**
 * `parley business …` as a child process against this file's database: a self-hoster lifts a
 * workspace off Free without Stripe, and the API then answers with the new plan's limits.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { runParley } from './helpers/cli.ts';
import { createWorkspace } from './helpers/fixtures.ts';

let app: TestApp;
let dataDir: string;
test.before(async () => {
  app = await startTestApp();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'parley-business-cli-'));
});
test.after.always(async () => {
  await app?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const business = (...args: string[]) =>
  runParley(['business', ...args], {
    DATABASE_URL: app.databaseUrl,
    DATA_DIR: dataDir,
    JWT_SECRET: randomBytes(32).toString('hex'),
    CONFIG_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  });
const numberOf = async (id: string) => String((await app.sql('select number from businesses where id = $1', [id]))[0].number);
const planOf = async (id: string) => (await app.sql('select plan from businesses where id = $1', [id]))[0].plan;

test.serial('list shows every workspace with its number, id, name, plan and owner', async (t) => {
  const acme = await createWorkspace(app, { name: 'Acme' });
  const list = await business('list');
  t.is(list.code, 0, list.stderr);
  t.regex(list.stdout.split('\n')[0], /^NUMBER\s+ID\s+NAME\s+PLAN\s+OWNER\s+MEMBERS\s+AGE$/);
  const row = list.stdout.split('\n').find((line) => line.includes(acme.businessId));
  t.regex(
    row ?? '',
    new RegExp(`^\\s*${await numberOf(acme.businessId)}\\s+${acme.businessId}\\s+Acme's Co\\s+Free\\s+${acme.email}\\s+1\\s+\\d+[smhd]$`),
    list.stdout,
  );
  t.is(list.stderr, '');
});

test.serial('plan by number lifts a workspace off Free; the API answers with the new limits', async (t) => {
  const owner = await createWorkspace(app, { name: 'Lift' });
  const number = await numberOf(owner.businessId);
  const run = await business('plan', number, 'pro');
  t.is(run.code, 0, run.stderr);
  t.is(run.stdout, `Workspace ${number} (Lift's Co): plan Free → Pro.\n`);
  const plan = await app.request('GET', '/api/v1/business/plan', { token: owner.token });
  t.is(plan.status, 200);
  t.is(plan.body.plan, 'Pro');
  t.is(plan.body.limits.max_messages_per_month, 50000);
  t.is(plan.body.limits.ai_auto_reply, true);
  // A Free workspace may only add widget channels; on Pro a Telegram channel is accepted.
  const channel = await app.request('POST', '/api/v1/channels', {
    token: owner.token,
    body: { type: 'telegram', name: 'Bot', config: { bot_token: '123:abc' } },
  });
  t.is(channel.status, 200, channel.text);
  const again = await business('plan', number, 'Pro');
  t.is(again.stdout, `Workspace ${number} (Lift's Co) is already on Pro.\n`);
  const down = await business('plan', number, 'FREE');
  t.is(down.code, 0);
  t.is(await planOf(owner.businessId), 'Free');
});

test.serial('plan by id or by exact name (any case)', async (t) => {
  const owner = await createWorkspace(app, { name: 'Named' });
  t.is((await business('plan', owner.businessId, 'Mini')).code, 0);
  t.is(await planOf(owner.businessId), 'Mini');
  const byName = await business('plan', "named's co", 'Pro');
  t.is(byName.code, 0, byName.stderr);
  t.is(await planOf(owner.businessId), 'Pro');
});

test.serial('a shared name, an unknown workspace or an unknown plan changes nothing and says why', async (t) => {
  const first = await createWorkspace(app, { name: 'Twin' });
  const second = await createWorkspace(app, { name: 'Twin' });
  const ambiguous = await business('plan', "Twin's Co", 'Pro');
  t.is(ambiguous.code, 1);
  t.is(
    ambiguous.stderr,
    `parley business: 2 workspaces are named 'Twin's Co' (numbers ${await numberOf(first.businessId)}, ${await numberOf(second.businessId)}): give the number\n`,
  );
  const missing = await business('plan', '999999', 'Pro');
  t.is(missing.code, 3);
  t.regex(missing.stderr, /^parley business: no workspace '999999' \(see parley business list\)$/m);
  const badPlan = await business('plan', await numberOf(first.businessId), 'Enterprise');
  t.is(badPlan.code, 2);
  t.regex(badPlan.stderr, /^parley business: unknown plan 'Enterprise' \(plans: Free, Mini, Pro\)$/m);
  t.is(await planOf(first.businessId), 'Free');
  t.is(await planOf(second.businessId), 'Free');
});

test.serial('usage errors are exit 2 and say what is wrong; --help documents the command', async (t) => {
  for (const [args, message] of [
    [[], /missing command/],
    [['plan', '3'], /'plan' takes a workspace and a plan, e\.g\. parley business plan 3 Pro/],
    [['list', 'x'], /'list' takes no arguments/],
    [['nope'], /unknown command 'nope'/],
  ] as [string[], RegExp][]) {
    const run = await business(...args);
    t.is(run.code, 2, args.join(' '));
    t.regex(run.stderr, message);
    t.regex(run.stderr, /usage: parley business/);
  }
  const top = await runParley(['--help'], {});
  t.regex(top.stdout, /business\s+list workspaces and set their plan/);
  t.regex(top.stdout, /plan BUSINESS PLAN/);
});
