/**
 * The OpenAPI document is valid for standard tooling and every component name means one
 * schema (issue #11, items 5 and 19). Pure: builds the document from the routes, no server.
 */
import test from 'ava';
import SwaggerParser from '@apidevtools/swagger-parser';
import { OpenAPIRegistry, OpenApiGeneratorV31, zodToOpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { z } from 'zod';
import { buildOpenApiDocument } from '../api/openapi.ts';
import { allRoutes } from '../api/routes/index.ts';
import type { AnyRoute } from '../api/route.ts';

const document = () => buildOpenApiDocument(allRoutes, 'http://127.0.0.1:3000') as any;

test('the document passes @apidevtools/swagger-parser validation (OpenAPI 3.1 schema and references)', async (t) => {
  await t.notThrowsAsync(SwaggerParser.validate(document()));
});

test('every path parameter is required', (t) => {
  const optional = Object.entries<any>(document().paths).flatMap(([path, ops]) =>
    Object.entries<any>(ops).flatMap(([method, op]) =>
      (op.parameters ?? []).filter((p: any) => p.in === 'path' && p.required !== true).map((p: any) => `${method} ${path} ${p.name}`),
    ),
  );
  t.deepEqual(optional, []);
});

/** Every zod schema reachable from a route's params, query, body and response. */
function reachableSchemas(routes: AnyRoute[]): Set<z.ZodType> {
  const seen = new Set<z.ZodType>();
  const visit = (value: unknown): void => {
    if (!value || typeof value !== 'object') return;
    if ('_zod' in value) {
      const schema = value as z.ZodType;
      if (seen.has(schema)) return;
      seen.add(schema);
      const def = schema._zod.def as unknown as Record<string, unknown>;
      for (const [key, child] of Object.entries(def)) {
        if (key === 'shape' && child && typeof child === 'object') Object.values(child).forEach(visit);
        else if (Array.isArray(child)) child.forEach(visit);
        else visit(child);
      }
    }
  };
  for (const route of routes) [route.params, route.query, route.body, route.response].forEach(visit);
  return seen;
}

/** The JSON schema one named zod schema generates on its own. */
function componentOf(name: string, schema: z.ZodType): string {
  const registry = new OpenAPIRegistry();
  registry.register(name, schema);
  return JSON.stringify(new OpenApiGeneratorV31(registry.definitions).generateComponents().components?.schemas?.[name]);
}

test('no two different schemas share a component name (the later one would silently replace the first)', (t) => {
  const byName = new Map<string, Set<string>>();
  for (const schema of reachableSchemas(allRoutes)) {
    const name = zodToOpenAPIRegistry.get(schema)?._internal?.refId;
    if (!name) continue;
    const shapes = byName.get(name) ?? new Set<string>();
    shapes.add(componentOf(name, schema));
    byName.set(name, shapes);
  }
  t.true(byName.size > 20, `named schemas found: ${byName.size}`);
  t.deepEqual(
    [...byName].filter(([, shapes]) => shapes.size > 1).map(([name]) => name),
    [],
  );
});

test('the walk above sees a clash: two routes naming different schemas alike', async (t) => {
  const { z } = await import('../lib/zod.ts');
  const a = z.object({ message: z.string() }).openapi('Clash');
  const b = z.object({ content: z.string() }).openapi('Clash');
  const route = (response: z.ZodType) => ({ method: 'get', path: '/x', summary: '', tags: [], auth: 'none', response, handler: async () => ({}) }) as AnyRoute;
  const names = [...reachableSchemas([route(a), route(b)])].filter((s) => zodToOpenAPIRegistry.get(s)?._internal?.refId === 'Clash');
  t.not(componentOf('Clash', names[0]), componentOf('Clash', names[1]));
});

test('a message is documented as the message resource everywhere, and nullable references allow null', (t) => {
  const doc = document();
  const message = doc.components.schemas.Message;
  t.truthy(message.properties.sender_type && message.properties.content && message.properties.delivery_status);
  t.deepEqual(doc.components.schemas.MessageReply.required, ['message']);
  const conversation = doc.components.schemas.Conversation;
  t.deepEqual(conversation.properties.messages.items, { $ref: '#/components/schemas/Message' });
  t.deepEqual(conversation.properties.customer, { anyOf: [{ $ref: '#/components/schemas/Customer' }, { type: 'null' }] });
  // zod-to-openapi's spelling of `.nullable()` on a named schema refuses null: none may remain.
  t.false(/"allOf":\[\{"\$ref":"[^"]+"\},\{"type":\[[^\]]*"null"\]/.test(JSON.stringify(doc)));
});

test('each operation with a policy says who may call and names its action', (t) => {
  const ops = document().paths;
  const channelsCreate = ops['/api/v1/channels'].post;
  t.is(channelsCreate['x-parley-policy'], 'channels.manage');
  t.regex(channelsCreate.description, /Who may call: owner or admin \(policy `channels\.manage`; others get 403\)\. An API key needs the `admin` scope\.$/);
  t.truthy(channelsCreate.responses['403']);
  const reply = ops['/api/v1/conversations/{conversation_id}/messages'].post;
  t.regex(reply.description, /Who may call: any member \(owner, admin or agent\) \(policy `conversations\.reply`\)\. An API key needs the `write` scope\.$/);
  const withPolicy = allRoutes.filter((r) => r.policy && !r.hidden);
  for (const route of withPolicy) {
    const op = ops[route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')][route.method];
    t.is(op['x-parley-policy'], route.policy, `${route.method} ${route.path}`);
  }
});
