/** users row → the spec's User object. */
import { z } from '../../lib/zod.ts';

export const userRow = z.object({
  id: z.string(),
  email: z.string(),
  full_name: z.string(),
  is_verified: z.boolean(),
  is_google_account: z.boolean(),
  avatar_url: z.string().nullable(),
});
export type UserRow = z.infer<typeof userRow>;

export const userSchema = z
  .object({
    id: z.uuid(),
    email: z.email(),
    full_name: z.string(),
    is_verified: z.boolean(),
    is_google_account: z.boolean(),
    avatar_url: z.string().nullable(),
  })
  .openapi('User');

export const presentUser = (row: UserRow): z.infer<typeof userSchema> => ({
  id: row.id,
  email: row.email,
  full_name: row.full_name,
  is_verified: row.is_verified,
  is_google_account: row.is_google_account,
  avatar_url: row.avatar_url,
});
