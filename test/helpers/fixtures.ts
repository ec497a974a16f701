/** Accounts and workspaces made through the real API, for tests that need a signed-in owner. */
import { randomBytes } from 'node:crypto';
import type { TestApp } from './app.ts';

export type Account = { token: string; userId: string; email: string; fullName: string };
export type Workspace = Account & { businessId: string };

export async function registerUser(app: TestApp, name = 'Test User'): Promise<Account> {
  const email = `user-${randomBytes(5).toString('hex')}@example.com`;
  const reg = await app.request('POST', '/api/v1/auth/register', { body: { email, full_name: name, password: 'password123' } });
  if (reg.status !== 200) throw new Error(`register failed: ${reg.status} ${reg.text}`);
  const me = await app.request('GET', '/api/v1/auth/me', { token: reg.body.access_token });
  return { token: reg.body.access_token, userId: me.body.user.id, email, fullName: name };
}

/** A new user who owns a new business (plan Free unless `plan` is given). */
export async function createWorkspace(app: TestApp, options: { name?: string; plan?: 'Free' | 'Mini' | 'Pro' } = {}): Promise<Workspace> {
  const account = await registerUser(app, options.name ?? 'Owner');
  const res = await app.request('POST', '/api/v1/business', { token: account.token, body: { name: `${account.fullName}'s Co` } });
  if (res.status !== 200) throw new Error(`create business failed: ${res.status} ${res.text}`);
  if (options.plan && options.plan !== 'Free') {
    // Plans change only through the payment provider; tests set the row directly.
    await app.sql('update businesses set plan = $1 where id = $2', [options.plan, res.body.id]);
  }
  return { ...account, businessId: res.body.id };
}

/**
 * A new user joined to the business by SQL, so tests do not depend on the team routes and may
 * go beyond the plan's agent limit. Status `offline` (the column's default) unless given.
 */
export async function addMember(
  app: TestApp,
  businessId: string,
  role: 'agent' | 'admin',
  options: { name?: string; status?: 'live' | 'away' | 'offline' } = {},
): Promise<Account> {
  const user = await registerUser(app, options.name ?? `Member ${role}`);
  await app.sql(
    `with n as (update businesses set next_agent_number = next_agent_number + 1 where id = $1 returning next_agent_number - 1 as num)
     insert into team_members (business_id, user_id, role, status, agent_number) select $1, $2, $3, $4, num from n`,
    [businessId, user.userId, role, options.status ?? 'offline'],
  );
  return user;
}

/**
 * A website visitor of `widgetId` named `name` writes `content` (the visitor API, as the widget
 * does): a new conversation. Its id, and the visitor's token (`Bearer …`) to write again.
 */
export async function visitorWrites(app: TestApp, widgetId: string, name: string, content: string): Promise<{ conversationId: string; visitor: string }> {
  const session = await app.request('POST', '/api/v1/visitor/sessions', { body: { widget_id: widgetId, name } });
  if (session.status !== 200) throw new Error(`visitor session: ${session.status} ${session.text}`);
  const visitor = `Bearer ${session.body.visitor_token}`;
  const sent = await app.request('POST', '/api/v1/visitor/messages', { headers: { authorization: visitor }, body: { content } });
  if (sent.status !== 200) throw new Error(`visitor message: ${sent.status} ${sent.text}`);
  return { conversationId: sent.body.conversation_id, visitor };
}
