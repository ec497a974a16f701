import test, { type ExecutionContext } from 'ava';
import { HttpError, notFound } from '../core/errors.ts';
import type { Caller, Role } from '../api/middlewares/auth.ts';
import { managers, noBusiness, ownerOnly, requireMembership, requireRole, type Member } from '../api/policies.ts';

const member = (role: Role): Member => ({ id: 'm-1', businessId: 'b-1', role, agentNumber: 1 });
const caller = (m: Member | null): Caller => ({ userId: 'u-1', email: 'u@example.com', fullName: 'U', jti: 'j', exp: 0, member: m });

/** The status and body of the HttpError `fn` throws. */
const refusal = (t: ExecutionContext, fn: () => unknown) => {
  const error = t.throws(fn, { instanceOf: HttpError });
  return { status: error?.status, body: error?.body };
};

test('requireMembership returns the caller\'s membership as is', (t) => {
  const m = member('agent');
  t.is(requireMembership(caller(m), noBusiness.organization), m);
});

test('requireMembership: a caller without a business gets the answer of the route\'s area', (t) => {
  const none = caller(null);
  t.deepEqual(refusal(t, () => requireMembership(none, noBusiness.organization)), { status: 400, body: { detail: 'Organization not found' } });
  t.deepEqual(refusal(t, () => requireMembership(none, noBusiness.business)), { status: 404, body: { detail: 'Business not found' } });
  t.deepEqual(refusal(t, () => requireMembership(none, noBusiness.team)), { status: 400, body: { detail: 'User is not in a business' } });
  t.deepEqual(refusal(t, () => requireMembership(none, () => notFound('Article not found'))), { status: 404, body: { detail: 'Article not found' } });
});

test('requireMembership builds the refusal only when it refuses', (t) => {
  let built = 0;
  requireMembership(caller(member('owner')), () => {
    built++;
    return notFound();
  });
  t.is(built, 0);
});

test('requireRole: managers are the owner and admins; ownerOnly is the owner', (t) => {
  for (const role of ['owner', 'admin'] as const) t.is(requireRole(member(role), managers, 'no').role, role);
  t.deepEqual(refusal(t, () => requireRole(member('agent'), managers, 'Only the owner or an admin can manage channels')), {
    status: 403,
    body: { detail: 'Only the owner or an admin can manage channels' },
  });
  t.is(requireRole(member('owner'), ownerOnly, 'no').role, 'owner');
  for (const role of ['admin', 'agent'] as const) {
    t.deepEqual(refusal(t, () => requireRole(member(role), ownerOnly, 'Only the business owner can manage widgets')), {
      status: 403,
      body: { detail: 'Only the business owner can manage widgets' },
    });
  }
});

test('requireRole returns the same member, so checks chain', (t) => {
  const m = member('admin');
  t.is(requireRole(requireMembership(caller(m), noBusiness.team), managers, 'no'), m);
});
