/**
 * PostgreSQL outages seen from the API: down (connections refused) and silent (connections
 * accepted, nothing answered). Every request answers 503 {detail} with Retry-After within the
 * database timeout (1 s here), changes nothing, and the same server recovers on its own.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { createDb, type Db } from '../core/adapters/postgres/db.ts';
import { startWebServer, type WebServer } from '../api/server.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, type Workspace } from './helpers/fixtures.ts';
import { startDbProxy, type DbProxy } from './helpers/db-proxy.ts';

let app: TestApp;
let owner: Workspace;
test.before(async () => {
  app = await startTestApp();
  owner = await createWorkspace(app);
});
test.after.always(() => app?.close());

/** An API server of its own whose database connections go through a proxy the test controls. */
async function behindProxy(run: (api: { proxy: DbProxy; me: () => Promise<Response>; register: (email: string) => Promise<Response> }) => Promise<void>) {
  const proxy = await startDbProxy(app.databaseUrl);
  let db: Db | null = null;
  let web: WebServer | null = null;
  try {
    db = await createDb(proxy.url, { maxPoolSize: 2, timeoutMs: 1000 });
    web = await startWebServer({ ...app.deps, db }, 0);
    const base = `http://127.0.0.1:${web.port}`;
    await run({
      proxy,
      me: () => fetch(`${base}/api/v1/auth/me`, { headers: { authorization: `Bearer ${owner.token}` } }),
      register: (email) =>
        fetch(`${base}/api/v1/auth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email, full_name: 'Outage', password: 'password123' }),
        }),
    });
  } finally {
    await web?.close();
    await proxy.close();
    await db?.end().catch(() => {});
  }
}

async function assertUnavailable(t: import('ava').ExecutionContext, res: Response) {
  t.is(res.status, 503);
  t.deepEqual(await res.json(), { detail: 'Service temporarily unavailable' });
  t.regex(res.headers.get('retry-after') ?? '', /^\d+$/);
}

const usersWith = (email: string) => app.sql('select id from users where email = $1', [email]);

test.serial('PostgreSQL down: 503 with Retry-After (not 500), nothing written, recovery without a restart', async (t) => {
  await behindProxy(async ({ proxy, me, register }) => {
    t.is((await me()).status, 200);
    await proxy.down();
    const email = `down-${randomBytes(4).toString('hex')}@example.com`;
    await assertUnavailable(t, await me());
    await assertUnavailable(t, await register(email));
    await proxy.up();
    t.is((await me()).status, 200, 'the same server answers again once PostgreSQL is back');
    t.deepEqual(await usersWith(email), [], 'the refused sign-up created nothing');
  });
});

test.serial('PostgreSQL accepting connections but not answering: 503 within the timeout (not a hang), then recovery', async (t) => {
  await behindProxy(async ({ proxy, me, register }) => {
    t.is((await me()).status, 200); // leaves an idle pooled connection, which freezes with the server
    proxy.freeze();
    const email = `silent-${randomBytes(4).toString('hex')}@example.com`;
    await assertUnavailable(t, await me()); // on the pooled connection: the query gets no answer
    await assertUnavailable(t, await register(email)); // on new connections: the handshake gets no answer
    proxy.thaw();
    t.is((await me()).status, 200, 'the same server answers again');
    t.is((await register(`after-${email}`)).status, 200);
    t.deepEqual(await usersWith(email), [], 'the sign-up that got 503 created nothing');
  });
});
