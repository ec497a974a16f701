import { z } from '../../../lib/zod.ts';
import { intParam } from '../../validation.ts';
import type { MentionCursor } from '../../../core/reads/mentions.ts';

/** Where a page of mentions ends (core/reads/mentions.ts): in the unread part or the read part, at (created_at, id). */
export type { MentionCursor };

const cursorShape = z.tuple([z.boolean(), z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/), z.uuid()]);

export const encodeMentionCursor = (c: MentionCursor) => Buffer.from(JSON.stringify([c.read, c.at, c.id])).toString('base64url');

function decode(value: string): MentionCursor | null {
  try {
    const parsed = cursorShape.safeParse(JSON.parse(Buffer.from(value, 'base64url').toString('utf8')));
    return parsed.success ? { read: parsed.data[0], at: parsed.data[1], id: parsed.data[2] } : null;
  } catch {
    return null;
  }
}

export const listMentionsQuery = z.object({
  limit: intParam({ min: 1, max: 200 }).default(50).openapi({ default: 50 }),
  before: z
    .string()
    .transform((value, ctx) => {
      const cursor = decode(value);
      if (!cursor) {
        ctx.addIssue({ code: 'custom', message: 'Invalid cursor: pass the X-Next-Cursor value of a previous page' });
        return z.NEVER;
      }
      return cursor;
    })
    .optional()
    .openapi({ type: 'string', description: 'The X-Next-Cursor header of the previous page (opaque)' }),
});

export const mentionParams = z.object({ mention_id: z.uuid() });
