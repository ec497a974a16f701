/**
 * Two-factor sign-in (docs/decisions.md#two-factor-sign-in): a user's TOTP secret and recovery
 * codes, and a business's requirement. Secrets are sealed with the configuration key
 * (core/crypto.ts) and leave the server once, in the answer to setup; recovery codes are kept as
 * hashes and leave it once, when made.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { decryptJson, encryptJson } from '../crypto.ts';
import { badRequest } from '../errors.ts';
import { rooms } from '../events/bus.ts';
import {
  RECOVERY_CODE_COUNT,
  base32Decode,
  base32Encode,
  hashRecoveryCode,
  matchTotp,
  newRecoveryCode,
  newTotpSecret,
  stepAt,
} from '../domain/accounts/totp.ts';
import type { AfterCommit } from './run-command.ts';

type Sealed = { secret: string };
const seal = (key: Uint8Array, secret: Uint8Array) => encryptJson(key, { secret: base32Encode(secret) } satisfies Sealed);
const unseal = (key: Uint8Array, text: string): Buffer => base32Decode(decryptJson<Sealed>(key, text).secret)!;

const stateRow = z.object({
  enabled: z.boolean(),
  recovery_codes_left: z.number(),
  required_by_business: z.boolean(),
});
export type TwoFactorState = z.infer<typeof stateRow> & {
  /** The business requires two-factor and the user has not turned it on: they may only set it up (or leave). */
  setup_required: boolean;
};

/** Whether the user has two-factor on, how many recovery codes are left, and whether their business requires it. */
export async function twoFactorState(q: Queryable, userId: string): Promise<TwoFactorState> {
  const row = await q.one(sql.type(stateRow)`
    select u.two_factor_secret is not null as enabled,
           cardinality(u.two_factor_recovery_hashes)::int as recovery_codes_left,
           coalesce(bool_or(b.require_two_factor), false) as required_by_business
    from users u
    left join team_members m on m.user_id = u.id and m.is_active
    left join businesses b on b.id = m.business_id
    where u.id = ${userId}
    group by u.id`);
  return { ...row, setup_required: row.required_by_business && !row.enabled };
}

/**
 * Starts (or starts again) enrolment: a new secret, kept sealed as pending until a code from it
 * turns two-factor on. 400 when two-factor is already on (turn it off first: one secret at a time).
 */
export async function beginTwoFactorSetup(q: Queryable, key: Uint8Array, userId: string): Promise<Buffer> {
  const secret = newTotpSecret();
  const row = await q.maybeOne(sql.type(z.object({ id: z.string() }))`
    update users set two_factor_pending_secret = ${seal(key, secret)}, updated_at = now()
    where id = ${userId} and two_factor_secret is null
    returning id`);
  if (!row) throw badRequest('Two-factor authentication is already on: turn it off first to use another authenticator');
  return secret;
}

function newRecoveryCodes(): { codes: string[]; hashes: Buffer[] } {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  return { codes, hashes: codes.map(hashRecoveryCode) };
}

/** The hashes as a bytea[] (sent as hex text: the driver has no array-of-bytea parameter). */
const hashArray = (hashes: Buffer[]) =>
  sql.fragment`array(select decode(h, 'hex') from unnest(${sql.array(
    hashes.map((h) => h.toString('hex')),
    'text',
  )}) as h)`;

/**
 * Turns two-factor on with a code from the pending secret: the secret becomes the one in force,
 * the code's step counts as used, and fresh recovery codes are made (returned once, in clear).
 * 400 without a pending secret or for a wrong code.
 */
export async function enableTwoFactor(q: Queryable, key: Uint8Array, userId: string, code: string, nowMs = Date.now()): Promise<{ recoveryCodes: string[] }> {
  const user = await q.maybeOne(sql.type(z.object({ pending: z.string().nullable(), enabled: z.boolean() }))`
    select two_factor_pending_secret as pending, two_factor_secret is not null as enabled from users where id = ${userId} for update`);
  if (!user || user.enabled) throw badRequest('Two-factor authentication is already on');
  if (!user.pending) throw badRequest('Start the setup first (POST /api/v1/auth/two-factor/setup)');
  const step = matchTotp(unseal(key, user.pending), code.trim(), nowMs);
  if (step === null) throw badRequest('Invalid code: enter the current 6-digit code from your authenticator app');
  const { codes, hashes } = newRecoveryCodes();
  await q.query(sql.unsafe`
    update users set two_factor_secret = two_factor_pending_secret, two_factor_pending_secret = null,
           two_factor_enabled_at = now(), two_factor_last_step = ${step},
           two_factor_recovery_hashes = ${hashArray(hashes)}, updated_at = now()
    where id = ${userId}`);
  return { recoveryCodes: codes };
}

/** Turns two-factor off: the secret, pending secret and recovery codes are forgotten. */
export async function disableTwoFactor(q: Queryable, userId: string): Promise<void> {
  await q.query(sql.unsafe`
    update users set two_factor_secret = null, two_factor_pending_secret = null, two_factor_enabled_at = null,
           two_factor_last_step = 0, two_factor_recovery_hashes = '{}', updated_at = now()
    where id = ${userId}`);
}

/** New recovery codes replacing all earlier ones (returned once, in clear). 400 when two-factor is off. */
export async function regenerateRecoveryCodes(q: Queryable, userId: string): Promise<{ recoveryCodes: string[] }> {
  const { codes, hashes } = newRecoveryCodes();
  const row = await q.maybeOne(sql.type(z.object({ id: z.string() }))`
    update users set two_factor_recovery_hashes = ${hashArray(hashes)}, updated_at = now()
    where id = ${userId} and two_factor_secret is not null
    returning id`);
  if (!row) throw badRequest('Two-factor authentication is off');
  return { recoveryCodes: codes };
}

export type SecondFactor = { code?: string; recovery_code?: string };

/**
 * Checks a second factor and uses it up, in one statement each: a TOTP code is accepted only
 * for a step later than the last one accepted (so each code works once, and a code older than
 * one already used does not work either); a recovery code is removed as it is accepted. Two
 * requests racing with the same code: one wins. Returns what was used, or null.
 */
export async function useSecondFactor(
  q: Queryable,
  key: Uint8Array,
  userId: string,
  factor: SecondFactor,
  nowMs = Date.now(),
): Promise<'code' | 'recovery_code' | null> {
  if (factor.recovery_code !== undefined) {
    const row = await q.maybeOne(sql.type(z.object({ id: z.string() }))`
      update users set two_factor_recovery_hashes = array_remove(two_factor_recovery_hashes, ${sql.binary(hashRecoveryCode(factor.recovery_code))}), updated_at = now()
      where id = ${userId} and two_factor_secret is not null
        and ${sql.binary(hashRecoveryCode(factor.recovery_code))} = any(two_factor_recovery_hashes)
      returning id`);
    return row ? 'recovery_code' : null;
  }
  if (factor.code === undefined) return null;
  const sealed = await q.maybeOneFirst(sql.type(z.object({ secret: z.string().nullable() }))`
    select two_factor_secret as secret from users where id = ${userId}`);
  if (!sealed) return null;
  const step = matchTotp(unseal(key, sealed), factor.code.replace(/\s/g, ''), nowMs);
  if (step === null) return null;
  const row = await q.maybeOne(sql.type(z.object({ id: z.string() }))`
    update users set two_factor_last_step = ${step}
    where id = ${userId} and two_factor_secret = ${sealed} and two_factor_last_step < ${step}
    returning id`);
  return row ? 'code' : null;
}

/** The current step, for tests and for the answer to setup (so a client can show the time left). */
export const currentStep = (nowMs = Date.now()) => stepAt(nowMs);

/**
 * The owner's switch. Turning it on needs the owner's own two-factor (400 otherwise: whoever
 * requires it has it), and closes the live connections of the members without it, whose next
 * requests are refused until they set it up (they reconnect without the business's events).
 */
export async function setRequireTwoFactor(
  q: Queryable,
  businessId: string,
  ownerId: string,
  required: boolean,
): Promise<{ requireTwoFactor: boolean } & AfterCommit> {
  if (required) {
    const ownerHasIt = await q.oneFirst(sql.type(z.object({ on: z.boolean() }))`
      select two_factor_secret is not null as on from users where id = ${ownerId}`);
    if (!ownerHasIt) throw badRequest('Turn on two-factor authentication for your own account first');
  }
  await q.query(sql.unsafe`update businesses set require_two_factor = ${required}, updated_at = now() where id = ${businessId}`);
  if (!required) return { requireTwoFactor: false };
  const without = await q.anyFirst(sql.type(z.object({ user_id: z.string() }))`
    select m.user_id from team_members m join users u on u.id = m.user_id
    where m.business_id = ${businessId} and m.is_active and u.two_factor_secret is null
    order by m.user_id`);
  return { requireTwoFactor: true, disconnectRooms: without.map((id) => rooms.user(id)) };
}

/** Whether the business requires two-factor, and how many active members do not have it yet. */
export async function securitySettings(q: Queryable, businessId: string): Promise<{ require_two_factor: boolean; members_without_two_factor: number }> {
  return q.one(sql.type(z.object({ require_two_factor: z.boolean(), members_without_two_factor: z.number() }))`
    select b.require_two_factor,
           (select count(*)::int from team_members m join users u on u.id = m.user_id
            where m.business_id = b.id and m.is_active and u.two_factor_secret is null) as members_without_two_factor
    from businesses b where b.id = ${businessId}`);
}
