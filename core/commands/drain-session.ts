/**
 * A drain's session on its own connection (the inbound drain of a channel, the delivery drain of
 * a conversation): it enters by taking its DRAIN advisory lock as a session lock (an SQL
 * `*_drain_enter` function, which re-arms the drain a second later when another holds it), and
 * it lets DRAIN go in its last look (`*_drain_leave`, atomically with the look). On any other
 * way out (stopping early, an error) DRAIN is released here, so a pooled connection never
 * keeps it.
 */
import { z } from 'zod';
import type { FragmentSqlToken } from 'slonik';
import { prepared, sql, type Queryable } from '../adapters/postgres/db.ts';

/** Made once (a schema built per call costs zod's set-up and compilation each time). */
const enteredRow = z.object({ entered: z.boolean() });
const leftRow = z.object({ left: z.boolean() });

type Drain = {
  /** The advisory lock class of DRAIN, keyed by hashtext(key). */
  lockClass: number;
  key: string;
  /** The SQL call that enters, e.g. `inbound_drain_enter(…)`; the last look's, e.g. `inbound_drain_leave(…)`. */
  enter: FragmentSqlToken;
  leave: FragmentSqlToken;
};

/**
 * Runs `run` as the drain, or resolves null when another drain holds DRAIN (this one comes back:
 * enter re-armed it). `run` gets `leave`, the last look: true when nothing was left and DRAIN
 * is let go, false when the drain has more to do and holds on.
 */
export async function asTheDrain<T>(q: Queryable, drain: Drain, run: (leave: () => Promise<boolean>) => Promise<T>): Promise<T | null> {
  if (!(await q.oneFirst(prepared(sql.type(enteredRow)`select ${drain.enter} as entered`)))) return null;
  let left = false;
  try {
    return await run(async () => (left = await q.oneFirst(prepared(sql.type(leftRow)`select ${drain.leave} as left`))));
  } finally {
    if (!left) await q.query(prepared(sql.unsafe`select pg_advisory_unlock(${drain.lockClass}, hashtext(${drain.key}))`));
  }
}
