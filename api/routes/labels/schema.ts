import { z } from '../../../lib/zod.ts';
import { intParam } from '../../validation.ts';

/** A label's name: trimmed, 1–50 characters, no comma (kept free to list several in a query one day). */
export const labelName = z
  .string()
  .trim()
  .min(1)
  .max(50)
  .refine((s) => !s.includes(','), { message: 'A label name cannot contain a comma' })
  .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), { message: 'A label name cannot contain control characters' });

const color = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex color #rrggbb')
  .transform((s) => s.toLowerCase())
  .openapi({ type: 'string', example: '#1f93ff', description: '`#rrggbb` (stored lowercase)' });

const description = z.string().trim().max(200);

export const labelParams = z.object({ label_id: z.uuid() });

export const createLabelBody = z.object({
  name: labelName.openapi({ description: '1–50 characters, no comma; unique in the business whatever its case' }),
  color: color.default('#1f93ff').openapi({ default: '#1f93ff' }),
  description: description.default('').openapi({ description: 'Up to 200 characters', default: '' }),
});

export const updateLabelBody = z.object({
  name: labelName.optional(),
  color: color.optional(),
  description: description.optional(),
});

export const setLabelsBody = z.object({
  labels: z.array(labelName).max(50).openapi({
    description: "Names of the business's labels (case-insensitive), at most 50; the conversation's labels become exactly these. `[]` removes all.",
  }),
});

export const setLabelsResponse = z
  .object({ labels: z.array(z.string()).openapi({ description: "The conversation's labels now, in alphabetical order" }) })
  .openapi('ConversationLabels');

export const deletedResponse = z.object({ detail: z.string() }).openapi('Deleted');

/** Opaque cursor of a list in name order (a base64url of the last row's lowercase name). */
export const nameCursorParam = z
  .string()
  .max(400)
  .transform((value, ctx) => {
    const decoded = Buffer.from(value, 'base64url').toString('utf8');
    if (!value || Buffer.from(decoded, 'utf8').toString('base64url') !== value || /[\u0000\ufffd]/.test(decoded)) {
      ctx.addIssue({ code: 'custom', message: 'Invalid cursor: pass the X-Next-Cursor value of a previous page' });
      return z.NEVER;
    }
    return decoded;
  })
  .openapi({ type: 'string', description: 'The X-Next-Cursor header of the previous page (opaque)' });

export const encodeNameCursor = (lowerName: string) => Buffer.from(lowerName, 'utf8').toString('base64url');

export const listLabelsQuery = z.object({
  limit: intParam({ min: 1, max: 200 }).default(100).openapi({ default: 100 }),
  cursor: nameCursorParam.optional(),
});
