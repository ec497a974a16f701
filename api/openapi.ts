/** The OpenAPI 3.1 document, generated from the same zod schemas that validate requests. */
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { documentRoute, type AnyRoute } from './route.ts';

export const apiDescription = `Parley is a multi-tenant customer-support inbox.

Where its interface contract is silent or contradictory, Parley decided; every decision is listed by topic in
the repository's \`docs/decisions.md\` (served at \`GET /docs/decisions\`), and the operations a decision changes
say so in their descriptions ("See docs/decisions.md#…").

Conventions (docs/decisions.md#errors-and-validation):
- Every success is **200**, creates included. Timestamps are ISO 8601 UTC with milliseconds.
- Authenticate with \`Authorization: Bearer <access_token>\` from register, login or Google sign-in.
  A missing header gives 401 \`{"detail":"Not authenticated"}\`; a bad, expired or revoked token gives
  401 \`{"detail":"Could not validate credentials"}\`, both with \`WWW-Authenticate: Bearer\`.
- Validation errors are 422 \`{"detail":[{"loc":["body","email"],"msg":"…","type":"missing"}]}\`;
  malformed JSON is 422 with \`loc: ["body"]\`, \`type: "json_invalid"\`; bodies over 1 MiB are 413.
- The token is checked before the body is read (401 first). JSON bodies must be \`application/json\` (else 415);
  a request without a body reads as \`{}\`, so bodies whose fields are all optional may be left out.
- Integer path and query parameters are ASCII digits only, within the column's range: \`0x1\`, \`1e0\`, \` 2\` are 422 \`int_parsing\`.
- Strings containing NUL or an unpaired UTF-16 surrogate, and JSON nested deeper than 32 levels, are 422 \`value_error\`.
- A request line and headers over 16 KiB are 431 \`{detail}\`; unparseable HTTP is 400 \`{detail}\`.
- Plan refusals use the plan error body \`{error, plan, feature, current, limit, message}\`.
- Unexpected failures are 500 \`{"detail":"Internal server error","request_id":"…"}\`; every response carries \`X-Request-Id\`.
- Ten failed logins for one e-mail from one address within 15 minutes give 429 with \`Retry-After\`.`;

export function buildOpenApiDocument(routes: AnyRoute[], serverUrl: string): object {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  registry.registerComponent('securitySchemes', 'visitorToken', {
    type: 'http',
    scheme: 'bearer',
    description: "A website visitor's token from POST /api/v1/visitor/sessions (not an access token)",
  });
  registry.registerComponent('securitySchemes', 'apiKey', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'prl_…',
    description:
      'An API key of the business (`Authorization: Bearer prl_…`, made under Settings → API keys or POST /api/v1/api-keys). It acts as the member who made it, ' +
      'limited to its scopes: each operation lists the one it needs (`read`, `write` or `admin`; also in `x-parley-api-key-scope`). 600 requests a minute per key. See docs/decisions.md#api-keys.',
  });
  for (const route of routes) if (!route.hidden) documentRoute(registry, route);
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Parley API', version: '1.0.0', description: apiDescription },
    servers: [{ url: serverUrl }],
  });
}
