/**
 * Bearer authentication: verifies the JWT (HS256 only), refuses revoked tokens and tokens of an
 * earlier generation (every session ended at once: password reset or change, sign out
 * everywhere), and loads the caller with their active membership in one query.
 */
import type { Context } from 'koa';
import { z } from 'zod';
import { sql, type Queryable } from '../../core/adapters/postgres/db.ts';
import { invalidCredentials, notAuthenticated } from '../../core/errors.ts';
import { verifyAccessToken } from '../../core/domain/accounts/tokens.ts';

export type Role = 'owner' | 'admin' | 'agent';

export type Caller = {
  userId: string;
  email: string;
  fullName: string;
  /** The token's id and expiry (unix seconds), for logout. */
  jti: string;
  exp: number;
  /** The caller's active membership, or null when they belong to no business. */
  member: { id: string; businessId: string; role: Role; agentNumber: number } | null;
};

const callerRow = z.object({
  id: z.string(),
  email: z.string(),
  full_name: z.string(),
  member_id: z.string().nullable(),
  business_id: z.string().nullable(),
  role: z.enum(['owner', 'admin', 'agent']).nullable(),
  agent_number: z.number().nullable(),
});

export async function authenticate(ctx: Context, db: Queryable, key: Uint8Array): Promise<Caller> {
  const header = ctx.get('Authorization').trim();
  // No header at all is "Not authenticated"; any header that is not a usable bearer token
  // (another scheme, `Bearer` alone, a malformed or bad token) is "Could not validate credentials".
  if (!header) throw notAuthenticated();
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match) throw invalidCredentials();
  const claims = await verifyAccessToken(key, match[1]);
  if (!claims || !z.uuid().safeParse(claims.sub).success || !z.uuid().safeParse(claims.jti).success) throw invalidCredentials();
  const row = await db.maybeOne(sql.type(callerRow)`
    select u.id, u.email, u.full_name, m.id as member_id, m.business_id, m.role, m.agent_number
    from users u
    left join team_members m on m.user_id = u.id and m.is_active
    where u.id = ${claims.sub} and u.token_generation = ${claims.gen}
      and not exists (select 1 from revoked_tokens r where r.jti = ${claims.jti})`);
  if (!row) throw invalidCredentials();
  return {
    userId: row.id,
    email: row.email,
    fullName: row.full_name,
    jti: claims.jti,
    exp: claims.exp,
    member:
      row.member_id && row.business_id && row.role && row.agent_number !== null
        ? { id: row.member_id, businessId: row.business_id, role: row.role, agentNumber: row.agent_number }
        : null,
  };
}
