import test, { type ExecutionContext } from 'ava';
import { HttpError } from '../core/errors.ts';
import type { Caller, Role } from '../api/middlewares/auth.ts';
import { abilities, actions, authorize, policies, type Action, type Member } from '../api/policies.ts';
import { allRoutes } from '../api/routes/index.ts';

const member = (role: Role): Member => ({ id: 'm-1', businessId: 'b-1', role, agentNumber: 1, userId: 'u-1', teamScoped: false });
const caller = (m: Member | null): Caller => ({ userId: 'u-1', email: 'u@example.com', fullName: 'U', jti: 'j', exp: 0, member: m });

/** The status and body of the HttpError `fn` throws. */
const refusal = (t: ExecutionContext, fn: () => unknown) => {
  const error = t.throws(fn, { instanceOf: HttpError });
  return { status: error?.status, body: error?.body };
};

test("authorize returns the caller's membership when the role may", (t) => {
  const m = member('agent');
  t.is(authorize(caller(m), 'conversations.reply'), m);
  t.is(authorize(caller(member('owner')), 'widgets.manage').role, 'owner');
});

test("authorize: a caller without a business gets the answer of the action's area", (t) => {
  const none = caller(null);
  t.deepEqual(
    refusal(t, () => authorize(none, 'channels.manage')),
    { status: 400, body: { detail: 'Organization not found' } },
  );
  t.deepEqual(
    refusal(t, () => authorize(none, 'conversations.read')),
    { status: 404, body: { detail: 'Business not found' } },
  );
  t.deepEqual(
    refusal(t, () => authorize(none, 'team.read')),
    { status: 400, body: { detail: 'User is not in a business' } },
  );
  t.deepEqual(
    refusal(t, () => authorize(none, 'kb.delete')),
    { status: 404, body: { detail: 'Article not found' } },
  );
});

test("authorize: a role outside the action's roles is 403 with the action's sentence", (t) => {
  t.deepEqual(
    refusal(t, () => authorize(caller(member('agent')), 'channels.manage')),
    {
      status: 403,
      body: { detail: 'Only the owner or an admin can manage channels' },
    },
  );
  for (const role of ['admin', 'agent'] as const) {
    t.deepEqual(
      refusal(t, () => authorize(caller(member(role)), 'widgets.manage')),
      { status: 403, body: { detail: 'Only the business owner can manage widgets' } },
    );
  }
});

test('abilities: the table resolved for a role; nothing without a business', (t) => {
  t.true(Object.values(abilities(null)).every((allowed) => allowed === false));
  for (const role of ['owner', 'admin', 'agent'] as const) {
    const can = abilities(role);
    t.deepEqual(Object.keys(can).sort(), [...actions].sort());
    for (const action of actions) t.is(can[action], (policies[action].roles as readonly Role[]).includes(role), `${role} ${action}`);
  }
  t.true(abilities('admin')['channels.manage']);
  t.false(abilities('agent')['channels.manage']);
  t.false(abilities('admin')['team.invite']);
});

/** Signed-in routes that make sense without a business (the account itself, creating one). */
const withoutBusiness = new Set([
  'post /api/v1/auth/logout',
  'get /api/v1/auth/me',
  'post /api/v1/auth/verify-email/send',
  'post /api/v1/auth/password',
  'post /api/v1/auth/logout-all',
  'post /api/v1/auth/two-factor/setup',
  'post /api/v1/auth/two-factor/enable',
  'post /api/v1/auth/two-factor/disable',
  'post /api/v1/auth/two-factor/recovery-codes',
  'post /api/v1/business',
  'get /api/v1/channel-types',
]);

test('every signed-in route of a business names its action in the policy table, and every action is used', (t) => {
  const used = new Set<Action>();
  for (const route of allRoutes) {
    if (route.auth !== 'user') {
      t.is(route.policy, undefined, `${route.method} ${route.path}: policies are for signed-in users`);
      continue;
    }
    const key = `${route.method} ${route.path}`;
    if (withoutBusiness.has(key)) t.is(route.policy, undefined, key);
    else t.truthy(route.policy, `${key} names no policy`);
    if (route.policy) used.add(route.policy);
  }
  // Actions a handler checks with authorize() for part of what its route does (someone else's
  // note, as `conversations.assign` is for assigning someone else on the take route).
  const checkedInHandlers = new Set<Action>(['customer_notes.delete_any']);
  t.deepEqual(
    actions.filter((a) => !used.has(a) && !checkedInHandlers.has(a)),
    [],
    'actions no route uses',
  );
});
