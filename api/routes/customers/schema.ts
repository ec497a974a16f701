import { z } from '../../../lib/zod.ts';
import { intParam } from '../../validation.ts';

export const listCustomersQuery = z.object({
  q: z.string().trim().max(200).optional().openapi({ description: 'Case-insensitive substring of the name, e-mail or phone' }),
  limit: intParam({ min: 1, max: 200 }).default(50).openapi({ default: 50 }),
  before: intParam({ min: 1 })
    .optional()
    .openapi({ description: 'The X-Next-Cursor header of the previous page: customers with a lower id come next' }),
});

export const customerParams = z.object({
  id: intParam().openapi({ description: 'The customer\'s integer id (`number`)' }),
});
