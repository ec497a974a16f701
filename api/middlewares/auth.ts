/**
 * Bearer authentication: verifies the JWT (HS256 only), refuses revoked tokens and tokens of an
 * earlier generation (every session ended at once: password reset or change, sign out
 * everywhere), and loads the caller with their active membership in one query.
 *
 * On routes of a business (those naming a policy) the bearer may also be an API key (`prl_…`):
 * looked up by hash in the database on every request (a revoked key fails at once on every
 * node), it acts as the member who made it, limited by its scopes (api/policies.ts), and counts
 * against its rate limit. The key itself is never logged nor kept.
 *
 * A member of a business that requires two-factor sign-in who has not turned it on is marked
 * `twoFactorSetupRequired`: api/policies.ts `authorize` then refuses the business's routes
 * (docs/decisions.md#two-factor-sign-in). API keys are not marked: a key is a long random
 * secret, not a password that can be guessed, and only a member with two-factor can make one
 * once the business requires it.
 *
 * A route on the hot path (`rememberedCaller`, the agent reply) may take a caller authenticated
 * by an earlier request from memory instead (remembered-callers.ts): its write checks the caller
 * in its own statement (`callerCheck`), so every refusal above still holds on the next write.
 */
import type { Context } from 'koa';
import { z } from 'zod';
import type { FragmentSqlToken } from 'slonik';
import { prepared, sql, type Queryable } from '../../core/adapters/postgres/db.ts';
import { CallerChanged, invalidCredentials, notAuthenticated, tooManyRequests } from '../../core/errors.ts';
import { verifyAccessToken } from '../../core/domain/accounts/tokens.ts';
import { API_KEY_RATE, isApiKeyText, parseApiKey } from '../../core/domain/platform/api-keys.ts';
import { takeRateAllowance } from '../../core/domain/rate-windows.ts';
import type { Caller, Role } from '../caller.ts';
import { markChecked, recallCaller, rememberCaller, unverifiedGeneration } from './remembered-callers.ts';

export type { Caller, Role } from '../caller.ts';

/** Over `m` (team_members) and `s` (its business's assignment_settings, left joined): team-scoped visibility applies. */
const teamScoped = sql.fragment`coalesce(m.role = 'agent' and s.team_visibility, false)`;

/** Over `users u` and `businesses b` (left joined): the business requires two-factor sign-in and the user has not set it up. */
const twoFactorOwed = sql.fragment`coalesce(b.require_two_factor and u.two_factor_secret is null, false)`;

const callerRow = z.object({
  id: z.string(),
  email: z.string(),
  full_name: z.string(),
  member_id: z.string().nullable(),
  business_id: z.string().nullable(),
  role: z.enum(['owner', 'admin', 'agent']).nullable(),
  agent_number: z.number().nullable(),
  team_scoped: z.boolean(),
  two_factor_setup_required: z.boolean(),
});

const keyRow = z.object({
  key_id: z.string(),
  key_name: z.string(),
  scopes: z.array(z.enum(['read', 'write', 'admin'])),
  user_id: z.string(),
  email: z.string(),
  full_name: z.string(),
  member_id: z.string(),
  business_id: z.string(),
  role: z.enum(['owner', 'admin', 'agent']),
  agent_number: z.number(),
  team_scoped: z.boolean(),
});

/**
 * The caller an API key stands for: unrevoked, its member still active. `last_used_at` is
 * written at most once a minute per key (a busy key costs no write per request).
 */
async function authenticateApiKey(db: Queryable, text: string): Promise<Caller> {
  const parsed = parseApiKey(text);
  if (!parsed) throw invalidCredentials();
  const row = await db.maybeOne(
    prepared(sql.type(keyRow)`
    with k as (
      select k.id as key_id, k.name as key_name, k.scopes, k.last_used_at, u.id as user_id, u.email, u.full_name,
        m.id as member_id, m.business_id, m.role, m.agent_number, ${teamScoped} as team_scoped
      from api_keys k
      join team_members m on m.id = k.member_id and m.business_id = k.business_id and m.is_active
      join users u on u.id = m.user_id
      left join assignment_settings s on s.business_id = m.business_id
      where k.business_id = ${parsed.businessId} and k.secret_hash = ${sql.binary(parsed.hash)} and k.revoked_at is null
    ), touched as (
      update api_keys set last_used_at = now()
      where business_id = ${parsed.businessId} and id = (select key_id from k)
        and (last_used_at is null or last_used_at < now() - interval '1 minute')
    )
    select key_id, key_name, scopes, user_id, email, full_name, member_id, business_id, role, agent_number, team_scoped from k`),
  );
  if (!row) throw invalidCredentials();
  const retryAfter = await takeRateAllowance(db, `api_key:${row.key_id}`, API_KEY_RATE);
  if (retryAfter > 0) throw tooManyRequests(`Too many requests with this API key (${API_KEY_RATE.limit} a minute)`, retryAfter);
  return {
    userId: row.user_id,
    email: row.email,
    fullName: row.full_name,
    jti: '',
    exp: 0,
    member: {
      id: row.member_id,
      businessId: row.business_id,
      role: row.role,
      agentNumber: row.agent_number,
      userId: row.user_id,
      teamScoped: row.team_scoped,
    },
    apiKey: { id: row.key_id, name: row.key_name, scopes: row.scopes },
  };
}

/** The bearer token of the request's Authorization header ('' when it has none). */
export const bearerToken = (ctx: Context): string => /^Bearer\s+(\S+)$/i.exec(ctx.get('Authorization').trim())?.[1] ?? '';

/**
 * `apiKeys`: the route is one of a business (it names a policy), where an API key may stand in
 * for a person. `remembered`: the route's writes check the caller themselves (callerCheck), so
 * a caller remembered from an earlier request with this token is taken without a query.
 */
export async function authenticate(ctx: Context, db: Queryable, key: Uint8Array, options: { apiKeys?: boolean; remembered?: boolean } = {}): Promise<Caller> {
  const header = ctx.get('Authorization').trim();
  // No header at all is "Not authenticated"; any header that is not a usable bearer token
  // (another scheme, `Bearer` alone, a malformed or bad token) is "Could not validate credentials".
  if (!header) throw notAuthenticated();
  const token = bearerToken(ctx);
  if (!token) throw invalidCredentials();
  if (isApiKeyText(token)) {
    // Account routes (sign out, password, /auth/me) are a person's: a key is no credential there.
    if (!options.apiKeys) throw invalidCredentials();
    return authenticateApiKey(db, token);
  }
  const claims = await verifyAccessToken(key, token);
  if (claims && options.remembered) {
    const known = recallCaller(token);
    if (known) return known;
  }
  if (!claims || !z.uuid().safeParse(claims.sub).success || !z.uuid().safeParse(claims.jti).success) throw invalidCredentials();
  const row = await db.maybeOne(
    prepared(sql.type(callerRow)`
    select u.id, u.email, u.full_name, m.id as member_id, m.business_id, m.role, m.agent_number, ${teamScoped} as team_scoped,
      ${twoFactorOwed} as two_factor_setup_required
    from users u
    left join team_members m on m.user_id = u.id and m.is_active
    left join businesses b on b.id = m.business_id
    left join assignment_settings s on s.business_id = m.business_id
    where ${sessionValid(claims)}`),
  );
  if (!row) throw invalidCredentials();
  const caller: Caller = {
    userId: row.id,
    email: row.email,
    fullName: row.full_name,
    jti: claims.jti,
    exp: claims.exp,
    member:
      row.member_id && row.business_id && row.role && row.agent_number !== null
        ? {
            id: row.member_id,
            businessId: row.business_id,
            role: row.role,
            agentNumber: row.agent_number,
            userId: row.id,
            teamScoped: row.team_scoped,
          }
        : null,
    ...(row.two_factor_setup_required ? { twoFactorSetupRequired: true } : {}),
  };
  rememberCaller(token, caller, claims.gen);
  return caller;
}

/** Over `users u`: the token's user, of the token's generation, the token not revoked (signed out). */
const sessionValid = (claims: { sub: string; gen: number; jti: string }) =>
  sql.fragment`u.id = ${claims.sub} and u.token_generation = ${claims.gen} and not exists (select 1 from revoked_tokens r where r.jti = ${claims.jti})`;

/**
 * The SQL condition under which a write may act for this caller: `true` for a caller
 * authenticated in this request; for one remembered from an earlier request
 * (remembered-callers.ts), that authentication would still find the same caller: the token not
 * revoked nor of an older generation, the same active membership with the same role and
 * team-scoped visibility, no two-factor set-up pending. A statement writes nothing when it is
 * false and throws CallerChanged (core/errors.ts); api/route.ts then authenticates afresh.
 */
export function callerCheck(caller: Caller): FragmentSqlToken {
  const gen = unverifiedGeneration(caller);
  if (gen === null || !caller.member) return sql.fragment`true`;
  markChecked(caller);
  const { member } = caller;
  return sql.fragment`exists (
    select 1 from users u
    join team_members m on m.user_id = u.id and m.is_active
    join businesses b on b.id = m.business_id
    left join assignment_settings s on s.business_id = m.business_id
    where ${sessionValid({ sub: caller.userId, gen, jti: caller.jti })}
      and m.id = ${member.id} and m.business_id = ${member.businessId} and m.role = ${member.role}
      and ${teamScoped} = ${member.teamScoped} and not ${twoFactorOwed})`;
}

/** For a route taking remembered callers, before a write that does not check the caller itself: CallerChanged unless still valid. */
export async function verifyCaller(db: Queryable, caller: Caller): Promise<void> {
  if (unverifiedGeneration(caller) === null) return;
  const valid = await db.oneFirst(sql.type(z.object({ valid: z.boolean() }))`select ${callerCheck(caller)} as valid`);
  if (!valid) throw new CallerChanged();
}
