/**
 * Keyset paging inside the reads: the cursor a list continues from, and the column that names
 * it. The timestamp travels with microseconds, formatted by PostgreSQL itself (ISO strings from
 * the row parser carry only milliseconds, and rows within one millisecond would otherwise be
 * skipped or repeated at a page boundary). Encoding it for the client is the API's (api/cursor.ts).
 */
import type { FragmentSqlToken } from 'slonik';
import { sql } from '../adapters/postgres/db.ts';

/** Where a page starts: after the row with this time and id. */
export type Cursor = { at: string; id: string };

/** `to_char(<column>)` with microseconds in UTC, selected `as cursor_at` beside each row. */
export const cursorColumn = (column: FragmentSqlToken) => sql.fragment`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** A page from the `limit + 1` rows a list read, and the cursor of the next when there are more. */
export function pageOf<R extends { cursor_at: string; id: string }>(rows: readonly R[], limit: number): { rows: R[]; next: Cursor | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { rows: page, next: rows.length > limit && last ? { at: last.cursor_at, id: last.id } : null };
}
