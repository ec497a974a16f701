import { z } from '../../../lib/zod.ts';
import { cursorParamOf } from '../../cursor.ts';
import { intParam } from '../../validation.ts';

export const listArticlesQuery = z.object({
  limit: intParam({ min: 1, max: 200 }).default(50).openapi({ default: 50 }),
  cursor: cursorParamOf('int8').optional(),
});

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

export const articleParams = z.object({
  article_id: intParam().openapi({ description: "The article's integer id" }),
});

export { messageReply as messageResponse } from '../../openapi-replies.ts';

export const searchQuery = z.object({
  q: z.string().trim().min(1).max(1000).openapi({ description: 'What to look for, in words (1–1,000 characters)' }),
  limit: intParam({ min: 1, max: 20 }).default(5).openapi({ default: 5 }),
});

export const searchResult = z
  .object({
    article_id: z.number().int().openapi({ description: "The article's integer id" }),
    title: z.string(),
    snippet: z.string().openapi({ description: "The article's best-matching passage, at most about 200 characters" }),
    score: z.number().openapi({
      description:
        'Fused reciprocal-rank score scaled to 0–1, four decimals: 1 is first in every ranking that answered (full text, and semantic when available)',
    }),
  })
  .openapi('KbSearchResult');
