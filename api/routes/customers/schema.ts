import { z } from '../../../core/zod.ts';

export const listCustomersQuery = z.object({
  q: z.string().trim().max(200).optional().openapi({ description: 'Case-insensitive substring of the name, e-mail or phone' }),
  limit: z.coerce.number().int().min(1).max(200).default(50).openapi({ type: 'integer', default: 50, minimum: 1, maximum: 200 }),
  before: z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .openapi({ type: 'integer', description: 'The X-Next-Cursor header of the previous page: customers with a lower id come next' }),
});

export const customerParams = z.object({
  id: z.coerce.number().int().openapi({ type: 'integer', description: 'The customer\'s integer id (`number`)' }),
});
