import { z } from '../../../core/zod.ts';

const free = z.string().trim().max(200);

export const createBusinessBody = z.object({
  name: z.string().trim().min(1).max(100),
  website: free.default(''),
  industry: free.default(''),
  team_size: free.default(''),
  goal: free.default(''),
});

export const updateBusinessBody = z.object({
  name: z.string().trim().min(1).max(100).optional(),
  website: free.optional(),
  industry: free.optional(),
  team_size: free.optional(),
  goal: free.optional(),
});
