import { z } from '../../../lib/zod.ts';
import { intParam } from '../../validation.ts';
import { cursorParam } from '../../cursor.ts';
import { searchTypes } from '../../../core/domain/search/history-search.ts';

export const searchQuery = z.object({
  q: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .openapi({
      description:
        'What to look for (1–200 characters). Words of message text in any language, as a search box takes them: every word must appear, ' +
        '`"a phrase"` in that order, `or` between alternatives, `-word` to exclude. Also part of a customer\'s name or e-mail, or at least 3 digits of their phone.',
    }),
  type: z
    .enum(searchTypes)
    .default('conversations')
    .openapi({ description: 'What to list: `conversations` (default), `customers` or `messages`', default: 'conversations' }),
  limit: intParam({ min: 1, max: 50 }).default(20).openapi({ default: 20 }),
  cursor: cursorParam.optional(),
});

export const segmentSchema = z
  .object({
    text: z.string(),
    match: z.boolean().openapi({ description: 'True for the words the query found (show them highlighted)' }),
  })
  .openapi('SearchSnippetSegment', {
    description: 'A piece of a highlighted snippet. Snippets are plain text split in pieces, never markup: render each `text` as text.',
  });

const snippet = z.array(segmentSchema).openapi({ description: 'About 30 words around the match (or the matched customer field), as pieces to render' });

const messageHit = z.object({
  type: z.literal('message'),
  id: z.uuid(),
  conversation_id: z.uuid(),
  sender_type: z.string(),
  private: z.boolean().openapi({ description: 'A private note of the team (docs/decisions.md#private-notes-and-mentions)' }),
  created_at: z.string(),
  customer: z.object({ uuid: z.uuid(), name: z.string() }).nullable(),
  snippet,
});

const customerHit = z.object({
  type: z.literal('customer'),
  uuid: z.uuid(),
  id: z.number().int().openapi({ description: "The customer's integer number (the id in /customers/{id})" }),
  name: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  created_at: z.string(),
  latest_conversation_id: z.uuid().nullable().openapi({ description: 'Their most recently updated conversation, to open; null when none' }),
  snippet,
});

const conversationHit = z.object({
  type: z.literal('conversation'),
  id: z.uuid(),
  status: z.string(),
  channel_type: z.string(),
  updated_at: z.string(),
  customer: z.object({ uuid: z.uuid(), name: z.string(), email: z.string().nullable(), phone: z.string().nullable() }).nullable(),
  matched_in: z.enum(['message', 'customer']).openapi({ description: "Found by a message's words, or by its customer's name, e-mail or phone" }),
  snippet,
});

export const searchHit = z.discriminatedUnion('type', [messageHit, customerHit, conversationHit]).openapi('SearchResult');
export type SearchHit = z.infer<typeof searchHit>;
