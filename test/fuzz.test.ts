/**
 * A bounded fuzz run over the OpenAPI document (issue #11): for every operation, a handful of
 * malformed inputs (bad ids, NUL and broken Unicode, wrong types, wrong content types, huge
 * numbers, deep nesting, broken JSON) sent with a valid token. Nothing a client sends may be
 * a 5xx, and every refusal is JSON with `detail`. At most MAX_PER_OPERATION requests each.
 */
import test from 'ava';
import SwaggerParser from '@apidevtools/swagger-parser';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createWorkspace, registerUser } from './helpers/fixtures.ts';

let app: TestApp;
test.before(async () => {
  // Configured, so the webhook's signature check is what refuses (unconfigured is a deliberate 503).
  app = await startTestApp({ env: { STRIPE_WEBHOOK_SECRET: 'whsec_fuzz' } });
});
test.after.always(() => app?.close());

const MAX_PER_OPERATION = 30;

const badPathValues = ['0x1', '1e0', '%202', '-1', '%00', '%ED%A0%80', '%F0%9F%98%80', '9'.repeat(40), "1'%20or%20'1'='1", '..%2F..%2Fetc', 'a'.repeat(300)];
const badQueryValues = ['%00', '0x10', '1e309', '-99999999999999999999', '%ED%A0%80', 'x'.repeat(5000)];
const deepJson = `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`;
const rawBodies: [string, string][] = [
  ['application/json', '{"a":'],
  ['application/json', '[]'],
  ['application/json', '"text"'],
  ['application/json', 'null'],
  ['application/json', '1e999'],
  ['application/json', deepJson],
  ['application/json', '{"a":"\\u0000","b":"\\ud800"}'],
  ['text/plain', 'hello'],
  ['application/x-www-form-urlencoded', 'a=1&b=%00'],
];

/** A plausible value for a JSON schema, so that one wrong field at a time gets past the others. */
function plausible(schema: any, sample: Record<string, string>): unknown {
  if (!schema) return 'x';
  if (schema.enum) return schema.enum[0];
  if (schema.anyOf) return plausible(schema.anyOf[0], sample);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'string') return schema.format === 'uuid' ? sample.uuid : schema.format === 'email' ? 'fuzz@example.com' : 'x';
  if (type === 'integer' || type === 'number') return schema.minimum ?? 1;
  if (type === 'boolean') return true;
  if (type === 'array') return [];
  if (type === 'object') return Object.fromEntries(Object.entries<any>(schema.properties ?? {}).map(([k, v]) => [k, plausible(v, sample)]));
  return null;
}

const wrongValues = (schema: any): unknown[] => {
  const type = Array.isArray(schema?.type) ? schema.type[0] : schema?.type;
  if (type === 'string') return ['a\u0000b', 12345, '\udfff', { $ne: '' }, 'x'.repeat(200_000)];
  if (type === 'integer' || type === 'number') return ['1', 1e308, -(2 ** 64), 1.5];
  if (type === 'boolean') return ['true', 0];
  if (type === 'array') return [{}, Array.from({ length: 1000 }, () => 'x')];
  return ['{}', []];
};

test('malformed input on every operation is answered below 500, as JSON {detail}', async (t) => {
  const ws = await createWorkspace(app, { plan: 'Pro' });
  const conversation = (await app.request('POST', '/api/v1/conversations', { token: ws.token, body: { business_id: ws.businessId } })).body;
  const widget = (await app.request('POST', '/api/v1/widget/create', { token: ws.token, body: { domain: 'fuzz.example' } })).body;
  const session = (await app.request('POST', '/api/v1/visitor/sessions', { body: { widget_id: widget.id } })).body;
  const sample: Record<string, string> = { uuid: conversation.id, conversation_id: conversation.id, widget_id: widget.id };
  const doc: any = await SwaggerParser.dereference((await app.request('GET', '/api/v1/openapi.json')).body);
  const failures: string[] = [];
  let sent = 0;
  for (const [path, operations] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(operations)) {
      const token = op.security?.[0]?.visitorToken ? session.visitor_token : ws.token;
      const secured = (op.security ?? []).length > 0;
      const htmlPage = Object.keys(op.responses?.['200']?.content ?? {}).some((type) => type.startsWith('text/html'));
      const pathParams = (op.parameters ?? []).filter((p: any) => p.in === 'path');
      const queryParams = (op.parameters ?? []).filter((p: any) => p.in === 'query');
      const fill = (override: Record<string, string> = {}) =>
        path.replace(
          /\{(\w+)\}/g,
          (_, name) => override[name] ?? sample[name] ?? (pathParams.find((p: any) => p.name === name)?.schema?.type === 'integer' ? '1' : sample.uuid),
        );
      const requests: { url: string; rawBody?: string; type?: string }[] = [];
      for (const [i, param] of pathParams.entries())
        for (const bad of badPathValues.slice(i * 3, i * 3 + 6)) requests.push({ url: fill({ [param.name]: bad }) });
      for (const param of queryParams) for (const bad of badQueryValues.slice(0, 3)) requests.push({ url: `${fill()}?${param.name}=${bad}` });
      if (queryParams.length) requests.push({ url: `${fill()}?${queryParams.map((p: any) => `${p.name}=${badQueryValues[3]}&${p.name}=x`).join('&')}` });
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      if (['post', 'put', 'patch'].includes(method)) {
        for (const [type, body] of rawBodies.slice(0, bodySchema ? rawBodies.length : 3)) requests.push({ url: fill(), rawBody: body, type });
      }
      if (bodySchema?.properties) {
        const base = plausible(bodySchema, sample) as Record<string, unknown>;
        for (const [name, schema] of Object.entries<any>(bodySchema.properties)) {
          for (const wrong of wrongValues(schema).slice(0, 3))
            requests.push({ url: fill(), rawBody: JSON.stringify({ ...base, [name]: wrong }), type: 'application/json' });
        }
      }
      for (const r of requests.slice(0, MAX_PER_OPERATION)) {
        sent += 1;
        // Logout revokes the token it is sent with: each of its requests brings a token of its own.
        // Signing out (here or everywhere) ends the token it is sent with: those get one of their own.
        const own = path.endsWith('/logout') || path.endsWith('/logout-all') ? (await registerUser(app)).token : token;
        const res = await app.request(method.toUpperCase(), r.url, { token: own, rawBody: r.rawBody, headers: r.type ? { 'content-type': r.type } : {} });
        const what = `${method} ${r.url.slice(0, 120)} ${r.type ?? ''} ${(r.rawBody ?? '').slice(0, 60)} → ${res.status} ${res.text.slice(0, 120)}`;
        if (res.status >= 500) failures.push(what);
        // A valid token must stay valid, or the run would only be testing 401s.
        else if (secured && res.status === 401) failures.push(`token refused: ${what}`);
        // Pages for people (the public CSAT page) answer their errors as HTML pages (input refused
        // before any route, such as NUL, as the usual JSON {detail}), never a 500.
        else if (res.status >= 400 && htmlPage && !(res.headers.get('content-type') ?? '').startsWith('text/html') && typeof res.body?.detail === 'undefined')
          failures.push(`not a page: ${what}`);
        else if (res.status >= 400 && !htmlPage && typeof res.body?.detail === 'undefined') failures.push(`not {detail}: ${what}`);
      }
    }
  }
  t.log(`${sent} malformed requests over ${Object.keys(doc.paths).length} paths`);
  t.true(sent > 300);
  t.deepEqual(failures, []);
});
