/**
 * Visitor-token authentication for the visitor API (routes with `auth: 'visitor'`): the
 * bearer token from POST /api/v1/visitor/sessions, never an access token. 401 as for access
 * tokens; the widget's channel made inactive is 404 `Widget not found`.
 */
import type { Context } from 'koa';
import type { Deps } from '../../core/deps.ts';
import { invalidCredentials, notAuthenticated } from '../../core/errors.ts';
import { loadVisitor, type Visitor } from '../../core/commands/visitors.ts';
import { verifyVisitorToken } from '../../core/domain/visitors/visitor-tokens.ts';

export async function authenticateVisitor(ctx: Context, deps: Deps): Promise<Visitor> {
  const header = ctx.get('Authorization').trim();
  if (!header) throw notAuthenticated();
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  const claims = match ? await verifyVisitorToken(deps.config.jwtSecret, match[1]) : null;
  if (!claims) throw invalidCredentials();
  return loadVisitor(deps.db, claims);
}
