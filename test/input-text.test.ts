/**
 * Text PostgreSQL cannot store or that is not Unicode, runaway nesting, and requests Node's
 * parser refuses (issue #11, item 11): each is a 4xx in the spec's shape that changes nothing,
 * never a 500 or an empty body.
 */
import test from 'ava';
import net from 'node:net';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace } from './helpers/fixtures.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

const NUL = '\u0000';
const LONE = '\ud800';

const issues = (body: any) => body.detail.map((d: any) => [d.loc.join('.'), d.type]);

test('NUL or an unpaired surrogate in a public body is 422 on its field, and nothing is created', async (t) => {
  for (const bad of [`Ann${NUL}`, `Ann${LONE}`, `${LONE}\udc00${LONE}`]) {
    const email = `nul-${Math.random().toString(16).slice(2)}@example.com`;
    const res = await app.request('POST', '/api/v1/auth/register', { body: { email, full_name: bad, password: 'password123' } });
    t.is(res.status, 422, JSON.stringify(bad));
    t.deepEqual(issues(res.body), [['body.full_name', 'value_error']]);
    t.is((await app.sql('select count(*)::int as n from users where email = $1', [email]))[0].n, 0);
  }
  // A lone surrogate written as a JSON escape, as a client would send it.
  const raw = '{"email":"esc@example.com","full_name":"A\\ud800","password":"password123"}';
  const escaped = await app.request('POST', '/api/v1/auth/register', { rawBody: raw, headers: { 'content-type': 'application/json' } });
  t.deepEqual([escaped.status, issues(escaped.body)], [422, [['body.full_name', 'value_error']]]);
  // A correctly paired surrogate (an emoji) is ordinary text.
  const emoji = await app.request('POST', '/api/v1/auth/register', {
    body: { email: 'emoji@example.com', full_name: 'Ann \ud83d\ude00', password: 'password123' },
  });
  t.is(emoji.status, 200, emoji.text);
});

test('visitor sessions and messages refuse NUL and unpaired surrogates', async (t) => {
  const ws = await createWorkspace(app);
  const widget = await app.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: 'text.example' } });
  const bad = await app.request('POST', '/api/v1/visitor/sessions', { body: { widget_id: widget.body.id, name: `Eve${NUL}` } });
  t.deepEqual([bad.status, issues(bad.body)], [422, [['body.name', 'value_error']]]);
  const session = await app.request('POST', '/api/v1/visitor/sessions', { body: { widget_id: widget.body.id } });
  t.is(session.status, 200, session.text);
  for (const content of [`hi${NUL}`, `hi${LONE}`]) {
    const res = await app.request('POST', '/api/v1/visitor/messages', { token: session.body.visitor_token, body: { content } });
    t.deepEqual([res.status, issues(res.body)], [422, [['body.content', 'value_error']]]);
  }
  t.is((await app.sql('select count(*)::int as n from messages where business_id = $1', [ws.businessId]))[0].n, 0);
});

test('NUL in a query string or path is 422, not a database error', async (t) => {
  const ws = await createWorkspace(app);
  const search = await app.request('GET', '/api/v1/customers?q=%00');
  t.is(search.status, 401, 'the token comes first');
  const res = await app.request('GET', '/api/v1/customers?q=a%00b', { token: ws.token });
  t.deepEqual([res.status, issues(res.body)], [422, [['query.q', 'value_error']]]);
  const kb = await app.request('GET', '/api/v1/kb/search?q=%00', { token: ws.token });
  t.deepEqual([kb.status, issues(kb.body)], [422, [['query.q', 'value_error']]]);
  const widget = await app.request('GET', '/api/v1/widget/%00');
  t.is(widget.status, 422);
});

test('NUL in an object key and deep nesting in a widget config are 422; ordinary nesting is kept', async (t) => {
  const ws = await createWorkspace(app);
  const key = await app.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: 'keys.example', config: { [`po${NUL}s`]: 'left' } } });
  t.is(key.status, 422);
  t.deepEqual(key.body.detail[0].loc.slice(0, 2), ['body', 'config']);
  // Written out: JSON.stringify itself runs out of stack on 5,000 levels.
  const deep = `{"domain":"deep.example","config":${'{"a":'.repeat(5000)}"bottom"${'}'.repeat(5000)}}`;
  const tooDeep = await app.request('POST', '/api/v1/widget/create', { token: ws.token, rawBody: deep, headers: { 'content-type': 'application/json' } });
  t.is(tooDeep.status, 422, tooDeep.text.slice(0, 200));
  t.is(tooDeep.body.detail[0].type, 'value_error');
  t.regex(tooDeep.body.detail[0].msg, /nested/);
  const deepArray = await app.request('POST', '/api/v1/kb/articles', {
    token: ws.token,
    rawBody: '['.repeat(100_000) + ']'.repeat(100_000),
    headers: { 'content-type': 'application/json' },
  });
  t.is(deepArray.status, 422);
  t.is((await app.sql('select count(*)::int as n from widgets where business_id = $1', [ws.businessId]))[0].n, 0);
  let fine: unknown = { size: 56 };
  for (let i = 0; i < 20; i++) fine = { nested: fine };
  const ok = await app.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: 'ok.example', config: fine } });
  t.is(ok.status, 200, ok.text.slice(0, 200));
  t.deepEqual(ok.body.config, fine);
});

/** One raw HTTP/1.1 exchange: what Node's parser answers before the app runs. */
function rawExchange(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(app.web.port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
    socket.on('end', () => resolve(answer));
    socket.on('error', (error) => (answer ? resolve(answer) : reject(error)));
    socket.write(request);
  });
}

const parse = (answer: string) => {
  const [head, body] = answer.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), head: head.toLowerCase(), body: JSON.parse(body) };
};

test('an oversized URL or header block is answered in JSON {detail}, not an empty body', async (t) => {
  for (const request of [
    `GET /api/v1/customers?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
  ]) {
    const res = parse(await rawExchange(request));
    t.is(res.status, 431);
    t.true(res.head.includes('content-type: application/json'));
    t.true(res.head.includes('x-request-id: '));
    t.regex(res.body.detail, /headers/);
  }
  const garbage = parse(await rawExchange('NOT HTTP AT ALL\r\n\r\n'));
  t.is(garbage.status, 400);
  t.deepEqual(garbage.body, { detail: 'Malformed HTTP request' });
});
