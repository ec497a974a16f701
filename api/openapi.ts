/** The OpenAPI 3.1 document, generated from the same zod schemas that validate requests. */
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { documentRoute, type AnyRoute } from './route.ts';

export const apiDescription = `Parley is a multi-tenant customer-support inbox.

Conventions (see the README for the full list of decisions):
- Every success is **200**, creates included. Timestamps are ISO 8601 UTC with milliseconds.
- Authenticate with \`Authorization: Bearer <access_token>\` from register, login or Google sign-in.
  A missing header gives 401 \`{"detail":"Not authenticated"}\`; a bad, expired or revoked token gives
  401 \`{"detail":"Could not validate credentials"}\`, both with \`WWW-Authenticate: Bearer\`.
- Validation errors are 422 \`{"detail":[{"loc":["body","email"],"msg":"…","type":"missing"}]}\`;
  malformed JSON is 422 with \`loc: ["body"]\`, \`type: "json_invalid"\`; bodies over 1 MiB are 413.
- Plan refusals use the plan error body \`{error, plan, feature, current, limit, message}\`.
- Unexpected failures are 500 \`{"detail":"Internal server error","request_id":"…"}\`; every response carries \`X-Request-Id\`.
- Ten failed logins for one e-mail from one address within 15 minutes give 429 with \`Retry-After\`.`;

export function buildOpenApiDocument(routes: AnyRoute[], serverUrl: string): object {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  for (const route of routes) if (!route.hidden) documentRoute(registry, route);
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Parley API', version: '1.0.0', description: apiDescription },
    servers: [{ url: serverUrl }],
  });
}
