import { z } from '../../../lib/zod.ts';
import { intParam } from '../../validation.ts';
import { nameCursorParam } from '../labels/schema.ts';

/** What an agent types after `/`: 1–50 letters, digits, `_`, `-` or `.` (no spaces: the picker filters as they type). */
const shortCode = z
  .string()
  .trim()
  .min(1)
  .max(50)
  .regex(/^[\p{L}\p{N}_.-]+$/u, 'use letters, digits, _, - or . (no spaces)')
  .openapi({ description: '1–50 letters, digits, `_`, `-` or `.`; unique in the business whatever its case', example: 'refund' });

const content = z
  .string()
  .trim()
  .min(1)
  .max(10_000)
  .openapi({ description: '1–10,000 characters (trimmed). Placeholders: `{{customer.name}}`, `{{customer.email}}`, `{{agent.name}}`, `{{business.name}}`' });

export const cannedResponseParams = z.object({ canned_response_id: z.uuid() });

export const createCannedResponseBody = z.object({ short_code: shortCode, content });
export const updateCannedResponseBody = z.object({ short_code: shortCode.optional(), content: content.optional() });

export const listCannedResponsesQuery = z.object({
  q: z.string().trim().max(200).optional().openapi({ description: 'A case-insensitive substring of the short code or the content' }),
  limit: intParam({ min: 1, max: 200 }).default(50).openapi({ default: 50 }),
  cursor: nameCursorParam.optional(),
});

export const renderBody = z.object({ conversation_id: z.uuid().openapi({ description: 'A conversation of the business, whose customer fills `customer.*`' }) });
