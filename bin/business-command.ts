/**
 * `parley business …`: list workspaces and set a workspace's plan without Stripe, so a
 * self-hosted install can lift a workspace off Free (used by bin/parley.ts).
 */
import { parseArgs } from 'node:util';
import type { Config } from '../core/config.ts';
import type { Queryable } from '../core/adapters/postgres/db.ts';
import { findBusinesses, hasBusinesses, listBusinesses, planNamed, setBusinessPlan } from '../core/admin/business-admin.ts';
import { planNames, type PlanName } from '../core/domain/plans.ts';
import { withCliDatabase } from './cli-database.ts';
import { age, exitCodes, table, type CliOutput } from './cli-format.ts';

export const businessUsage = `usage: parley business <command>

  list                          every workspace: number, id, name, plan, owner, members, age
  plan BUSINESS PLAN            set the plan (${planNames.join(', ')}; any case), up or down, without Stripe.
                                BUSINESS is the workspace's number, its id, or its exact name
                                (any case; a name several workspaces share is refused: use the number)

exit codes: 0 ok, 1 error (also: the name is ambiguous), 2 usage, 3 workspace not found
`;

export type BusinessCommand = { kind: 'help' } | { kind: 'list' } | { kind: 'plan'; business: string; plan: PlanName };

/** Parses the arguments after `business`; a string is a usage error. */
export function parseBusinessArgs(args: string[]): BusinessCommand | string {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, strict: true, options: { help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    return (error as Error).message;
  }
  const [sub, ...rest] = parsed.positionals;
  if (parsed.values.help || sub === 'help') return { kind: 'help' };
  switch (sub) {
    case 'list':
      return rest.length ? `'list' takes no arguments` : { kind: 'list' };
    case 'plan': {
      if (rest.length !== 2) return `'plan' takes a workspace and a plan, e.g. parley business plan 3 Pro`;
      const plan = planNamed(rest[1]);
      return plan ? { kind: 'plan', business: rest[0], plan } : `unknown plan '${rest[1]}' (plans: ${planNames.join(', ')})`;
    }
    case undefined:
      return 'missing command';
    default:
      return `unknown command '${sub}'`;
  }
}

export async function runBusinessCommand(command: Exclude<BusinessCommand, { kind: 'help' }>, db: Queryable, io: CliOutput, now = new Date()): Promise<number> {
  if (command.kind === 'list') {
    const businesses = await listBusinesses(db);
    if (!businesses.length) {
      io.out('No workspaces.\n');
      return exitCodes.ok;
    }
    const rows = businesses.map((b) => [b.number, b.id, b.name, b.plan, b.owner_email, String(b.members), age(b.created_at, now)]);
    io.out(table(['NUMBER', 'ID', 'NAME', 'PLAN', 'OWNER', 'MEMBERS', 'AGE'], rows, [0, 5, 6]));
    return exitCodes.ok;
  }
  const matches = await findBusinesses(db, command.business);
  if (!matches.length) {
    io.err(`parley business: no workspace '${command.business}' (see parley business list)\n`);
    return exitCodes.notFound;
  }
  if (matches.length > 1) {
    io.err(
      `parley business: ${matches.length} workspaces are named '${command.business}' (numbers ${matches.map((b) => b.number).join(', ')}): give the number\n`,
    );
    return exitCodes.error;
  }
  const [business] = matches;
  const before = await setBusinessPlan(db, business.id, command.plan);
  io.out(
    before === command.plan
      ? `Workspace ${business.number} (${business.name}) is already on ${command.plan}.\n`
      : `Workspace ${business.number} (${business.name}): plan ${before} → ${command.plan}.\n`,
  );
  if (business.stripe_subscription_id)
    io.err(`parley business: note: this workspace has a Stripe subscription; a later Stripe payment event may upgrade it again\n`);
  return exitCodes.ok;
}

/** `parley business ARGS`: parse, boot the database only, run, release. */
export async function businessCli(loadConfig: () => Config, args: string[], io: CliOutput): Promise<number> {
  const command = parseBusinessArgs(args);
  if (typeof command === 'string') {
    io.err(`parley business: ${command}\n\n${businessUsage}`);
    return exitCodes.usage;
  }
  if (command.kind === 'help') {
    io.out(businessUsage);
    return exitCodes.ok;
  }
  return withCliDatabase(loadConfig, async (booted) => {
    if (!(await hasBusinesses(booted.deps.db))) {
      io.err('parley business: this database has no tables yet; run `parley migrate` first\n');
      return exitCodes.error;
    }
    return runBusinessCommand(command, booted.deps.db, io);
  });
}
