import { z } from '../../../lib/zod.ts';
import { displayName } from '../../validation.ts';

const free = z.string().trim().max(200);

export const createBusinessBody = z.object({
  name: displayName(),
  website: free.default(''),
  industry: free.default(''),
  team_size: free.default(''),
  goal: free.default(''),
});

export const updateBusinessBody = z.object({
  name: displayName().optional(),
  website: free.optional(),
  industry: free.optional(),
  team_size: free.optional(),
  goal: free.optional(),
});
