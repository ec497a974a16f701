/**
 * Opaque keyset cursors over (timestamp, id), for conversations by updated_at and messages by
 * created_at. The timestamp travels with microseconds (PostgreSQL's precision), formatted by
 * PostgreSQL itself: ISO strings from the row parser carry only milliseconds, and rows within
 * one millisecond would otherwise be skipped or repeated at a page boundary.
 */
import type { FragmentSqlToken } from 'slonik';
import { sql } from '../../../core/adapters/postgres/db.ts';
import { z } from '../../../core/zod.ts';

export type Cursor = { at: string; id: string };

const cursorShape = z.object({ at: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/), id: z.uuid() });

export const encodeCursor = (cursor: Cursor) => Buffer.from(JSON.stringify([cursor.at, cursor.id])).toString('base64url');

function decodeCursor(value: string): Cursor | null {
  try {
    const [at, id] = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as unknown[];
    const parsed = cursorShape.safeParse({ at, id });
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The `before` query parameter: a cursor from a previous page's X-Next-Cursor header. */
export const cursorParam = z
  .string()
  .transform((value, ctx) => {
    const cursor = decodeCursor(value);
    if (!cursor) {
      ctx.addIssue({ code: 'custom', message: 'Invalid cursor: pass the X-Next-Cursor value of a previous page' });
      return z.NEVER;
    }
    return cursor;
  })
  .openapi({ type: 'string', description: 'The X-Next-Cursor header of the previous page (opaque)' });

/** `to_char(<column>)` with microseconds in UTC, selected `as cursor_at` beside each row. */
export const cursorColumn = (column: FragmentSqlToken) =>
  sql.fragment`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
