/**
 * Who may do what: pure checks on the authenticated caller, shared by every route group.
 *
 *   const member = requireRole(requireMembership(caller, noBusiness.organization), managers, 'Only the owner or an admin can …');
 *
 * The spec answers a caller without a business differently by area, so each route passes the
 * answer it owes (one of `noBusiness`, or its own); role refusals are always 403 with the
 * route's own sentence.
 */
import { badRequest, forbidden, notFound, type HttpError } from '../core/errors.ts';
import type { Caller, Role } from './middlewares/auth.ts';

export type Member = NonNullable<Caller['member']>;

/** The owner and admins: they change the business's settings, channels and assignments. */
export const managers: readonly Role[] = ['owner', 'admin'];
/** The owner alone: plan, widgets, who is on the team. */
export const ownerOnly: readonly Role[] = ['owner'];

/** What a caller without a business gets, by area. */
export const noBusiness = {
  /** 400 `Organization not found`: channels, widgets, knowledge base, AI, analytics, billing. */
  organization: (): HttpError => badRequest('Organization not found'),
  /** 404 `Business not found`: business, plan, customers, conversations. */
  business: (): HttpError => notFound('Business not found'),
  /** 400 `User is not in a business`: team. */
  team: (): HttpError => badRequest('User is not in a business'),
};

/** The caller's active membership; a caller without one gets `whenNone()`. */
export function requireMembership(caller: Caller, whenNone: () => HttpError): Member {
  if (!caller.member) throw whenNone();
  return caller.member;
}

/** The member, when their role is one of `roles`; otherwise 403 with `detail`. */
export function requireRole(member: Member, roles: readonly Role[], detail: string): Member {
  if (!roles.includes(member.role)) throw forbidden(detail);
  return member;
}
