/**
 * Opaque keyset cursors over (timestamp, id), for conversations by updated_at, messages,
 * widgets and articles by created_at. The timestamp travels with microseconds (PostgreSQL's precision), formatted by
 * PostgreSQL itself: ISO strings from the row parser carry only milliseconds, and rows within
 * one millisecond would otherwise be skipped or repeated at a page boundary.
 */
import type { Context } from 'koa';
import { z } from '../lib/zod.ts';
import type { Cursor } from '../core/reads/keyset.ts';

export type { Cursor } from '../core/reads/keyset.ts';
/** The reads (core/reads/) select it; lists of API-only objects here too. */
export { cursorColumn } from '../core/reads/keyset.ts';

const atShape = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
/** The id's kind: a uuid, or a bigint identity (digits, at most 2^53−1 so it survives JSON). */
type IdKind = 'uuid' | 'int8';
const idShape = {
  uuid: z.uuid(),
  int8: z
    .string()
    .regex(/^[0-9]{1,16}$/)
    .refine((v) => Number(v) <= Number.MAX_SAFE_INTEGER),
};

export const encodeCursor = (cursor: Cursor) => Buffer.from(JSON.stringify([cursor.at, cursor.id])).toString('base64url');

function decodeCursor(value: string, kind: IdKind): Cursor | null {
  try {
    const [at, id] = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as unknown[];
    const parsed = z.object({ at: atShape, id: idShape[kind] }).safeParse({ at, id });
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The cursor query parameter (`before` or `cursor`): a previous page's X-Next-Cursor header, for rows with ids of `kind`. */
export const cursorParamOf = (kind: IdKind) =>
  z
    .string()
    .transform((value, ctx) => {
      const cursor = decodeCursor(value, kind);
      if (!cursor) {
        ctx.addIssue({ code: 'custom', message: 'Invalid cursor: pass the X-Next-Cursor value of a previous page' });
        return z.NEVER;
      }
      return cursor;
    })
    .openapi({ type: 'string', description: 'The X-Next-Cursor header of the previous page (opaque)' });

/** A cursor over rows with uuid ids (conversations, messages, widgets). */
export const cursorParam = cursorParamOf('uuid');

/**
 * One keyset page from the `limit + 1` rows a list read: the first `limit`, and, when there are
 * more, the `X-Next-Cursor` header naming the last of them (`cursorOf`), for the next request.
 */
export function keysetPage<R>(ctx: Context, rows: readonly R[], limit: number, cursorOf: (last: R) => string): R[] {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  if (rows.length > limit && last !== undefined) ctx.set('X-Next-Cursor', cursorOf(last));
  return page;
}
