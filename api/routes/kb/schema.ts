import { z } from '../../../core/zod.ts';

export const createArticleBody = z.object({
  title: z.string().trim().min(1).max(200),
  content: z.string().trim().min(1).max(100_000),
  tags: z
    .array(z.string().trim().min(1).max(50))
    .max(20)
    .default([])
    // The same tag twice says nothing more; keep the first spelling and the order given.
    .transform((tags) => [...new Set(tags)]),
});
export type CreateArticleBody = z.infer<typeof createArticleBody>;

export const articleParams = z.object({
  article_id: z.coerce.number().int().openapi({ description: 'The article\'s integer id' }),
});

export const messageResponse = z.object({ message: z.string() });
