/** The spec's error bodies, documented once and referenced by every route's error statuses. */
import type { ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from '../lib/zod.ts';

export const detailError = z.object({ detail: z.string() }).openapi('ErrorDetail');

export const validationErrorBody = z
  .object({
    detail: z.array(
      z.object({
        loc: z.array(z.union([z.string(), z.number()])).openapi({ example: ['body', 'email'] }),
        msg: z.string(),
        type: z.string().openapi({
          description: 'missing, string_type, string_too_short, string_too_long, value_error, uuid_parsing, int_parsing, bool_type, enum, json_invalid',
        }),
      }),
    ),
  })
  .openapi('ValidationError');

export const planErrorBody = z
  .object({
    error: z.enum(['limit_exceeded', 'feature_locked', 'feature_not_available']),
    plan: z.string().optional(),
    feature: z.enum(['agents', 'channels', 'kb_articles', 'messages', 'integrations', 'ai_auto_reply', 'storage']),
    current: z.number().int().optional(),
    limit: z.number().int().optional(),
    message: z.string(),
  })
  .openapi('PlanError');

const descriptions: Record<number, string> = {
  400: 'Bad request',
  401: 'Missing, expired, invalid or revoked token (`WWW-Authenticate: Bearer`)',
  402: 'Plan limit reached or feature locked',
  403: 'Forbidden',
  404: "Not found (also for another business's ids)",
  409: 'Conflict',
  410: 'Gone (an expired link)',
  413: 'Body too large',
  415: 'Unsupported media type',
  422: 'Validation failed',
  429: 'Too many requests (`Retry-After`)',
  503: 'Not configured or unavailable',
};

export function errorResponses(statuses: number[]): Record<number, ResponseConfig> {
  const out: Record<number, ResponseConfig> = {};
  for (const status of statuses) {
    const schema = status === 422 ? validationErrorBody : status === 402 ? planErrorBody : detailError;
    out[status] = { description: descriptions[status] ?? 'Error', content: { 'application/json': { schema } } };
  }
  return out;
}
