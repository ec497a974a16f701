/**
 * Strict integers in paths and queries (issue #11, item 5): only ASCII digits within the
 * column's range. `0x1`, `1e0` or ` 2` used to read as 1 or 2 (`DELETE /kb/articles/0x1`
 * deleted article 1); now every documented integer parameter answers them 422 `int_parsing`.
 */
import test from 'ava';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace } from './helpers/fixtures.ts';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(() => app?.close());

const looseSpellings = (n: number) => [`0x${n.toString(16)}`, `${n}e0`, `%20${n}`, `${n}%20`, `+${n}`, `${n}.0`, `0${n}.`, '-0', '1_0'];

test('DELETE /kb/articles/{id} with a hex, exponent or padded spelling of an id is 422 and deletes nothing', async (t) => {
  const ws = await createWorkspace(app);
  const created = await app.request('POST', '/api/v1/kb/articles', { token: ws.token, body: { title: 'Refunds', content: 'Five days.' } });
  t.is(created.status, 200, created.text);
  const id: number = created.body.id;
  for (const spelling of looseSpellings(id)) {
    const res = await app.request('DELETE', `/api/v1/kb/articles/${spelling}`, { token: ws.token });
    t.is(res.status, 422, spelling);
    t.deepEqual(res.body.detail, [{ loc: ['path', 'article_id'], msg: 'Input should be a valid integer', type: 'int_parsing' }], spelling);
  }
  t.is((await app.sql('select count(*)::int as n from kb_articles where id = $1', [id]))[0].n, 1, 'the article is still there');
  // Leading zeros are still digits: the same integer.
  t.is((await app.request('DELETE', `/api/v1/kb/articles/00${id}`, { token: ws.token })).status, 200);
});

test('beyond the column range is 422 int_parsing, not a database error', async (t) => {
  const ws = await createWorkspace(app);
  for (const path of ['/api/v1/customers/9223372036854775808', '/api/v1/customers/99999999999999999999999', '/api/v1/kb/articles/18446744073709551616']) {
    const method = path.includes('/kb/') ? 'DELETE' : 'GET';
    const res = await app.request(method, path, { token: ws.token });
    t.is(res.status, 422, path);
    t.is(res.body.detail[0].type, 'int_parsing', path);
  }
  // Within range but naming nothing: 404.
  t.is((await app.request('GET', '/api/v1/customers/9007199254740991', { token: ws.token })).status, 404);
});

test('query integers are strict too; bounds keep their own types', async (t) => {
  const ws = await createWorkspace(app);
  for (const limit of ['0x10', '1e1', ' 5', '5 ', '5.0', '-5', '', 'abc']) {
    const res = await app.request('GET', '/api/v1/customers', { token: ws.token, query: { limit } });
    t.is(res.status, 422, JSON.stringify(limit));
    t.deepEqual(res.body.detail, [{ loc: ['query', 'limit'], msg: 'Input should be a valid integer', type: 'int_parsing' }], limit);
  }
  const tooBig = await app.request('GET', '/api/v1/customers', { token: ws.token, query: { limit: '201' } });
  t.deepEqual(
    tooBig.body.detail.map((d: any) => d.type),
    ['less_than_equal'],
  );
  const repeated = await app.request('GET', '/api/v1/customers?limit=5&limit=6', { token: ws.token });
  t.is(repeated.status, 422);
  t.is((await app.request('GET', '/api/v1/customers', { token: ws.token, query: { limit: '007' } })).status, 200);
});

test('every integer parameter in the OpenAPI document is strict and required when in the path', async (t) => {
  const ws = await createWorkspace(app);
  const doc = (await app.request('GET', '/api/v1/openapi.json')).body;
  const conversation = await app.request('POST', '/api/v1/conversations', { token: ws.token, body: { business_id: ws.businessId } });
  const sample: Record<string, string> = { conversation_id: conversation.body.id };
  const widget = await app.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: 'ids.example' } });
  const session = await app.request('POST', '/api/v1/visitor/sessions', { body: { widget_id: widget.body.id } });
  const tokenFor = (op: any) => (op.security?.[0]?.visitorToken ? session.body.visitor_token : ws.token);
  let checked = 0;
  for (const [path, operations] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(operations)) {
      for (const param of op.parameters ?? []) {
        if (param.in === 'path') t.true(param.required, `${method} ${path} ${param.name} is required`);
        if (param.schema?.type !== 'integer') continue;
        for (const bad of ['0x1', '1e0', '%202']) {
          let url = path.replace(/\{(\w+)\}/g, (_, name) => (name === param.name && param.in === 'path' ? bad : (sample[name] ?? '1')));
          if (param.in === 'query') url += `?${param.name}=${bad}`;
          const res = await app.request(method.toUpperCase(), url, { token: tokenFor(op) });
          t.is(res.status, 422, `${method} ${url}`);
          t.true(
            res.body.detail.some((d: any) => d.loc.join('.') === `${param.in}.${param.name}` && d.type === 'int_parsing'),
            `${method} ${url}: ${res.text}`,
          );
        }
        checked += 1;
      }
    }
  }
  t.true(checked >= 8, `integer parameters checked: ${checked}`);
});
