/**
 * Callers this process authenticated before, remembered by their access token so that a route
 * on the hot path (the agent reply) takes its caller without a query: the write itself checks,
 * in its own statement, that the caller is still who authentication found (auth.ts
 * `callerCheck`), and writes nothing otherwise (then the route authenticates afresh and runs
 * again: api/route.ts, which does the same before answering an unchecked remembered caller
 * with an error).
 * A remembered caller is only ever used by such a route, and that route
 * is held to it: a remembered caller whose route answered without checking it is an error
 * (`assertChecked`), so a route that forgot fails its tests instead of trusting a stale caller.
 *
 * Only members in good standing are remembered (a business, no two-factor set-up pending);
 * until their token expires, at most MAX tokens, the oldest forgotten first.
 */
import type { Caller } from '../caller.ts';

const MAX = 10_000;

type Entry = { caller: Caller; gen: number };
const byToken = new Map<string, Entry>();

/** The callers handed out from memory in a request, and whether their check ran. */
const handedOut = new WeakMap<Caller, { gen: number; checked: boolean }>();

export function rememberCaller(token: string, caller: Caller, gen: number): void {
  if (!caller.member || caller.twoFactorSetupRequired || caller.apiKey) return;
  if (byToken.size >= MAX && !byToken.has(token)) byToken.delete(byToken.keys().next().value as string);
  byToken.set(token, { caller, gen });
}

/** A copy of the caller remembered for this token (null: none, or its token expired), to be checked by the request's write. */
export function recallCaller(token: string): Caller | null {
  const entry = byToken.get(token);
  if (!entry) return null;
  if (entry.caller.exp * 1000 <= Date.now()) {
    byToken.delete(token);
    return null;
  }
  const caller = { ...entry.caller };
  handedOut.set(caller, { gen: entry.gen, checked: false });
  return caller;
}

export function forgetCaller(token: string): void {
  byToken.delete(token);
}

/** The token generation a caller from memory was authenticated with; null for a caller authenticated in this request (nothing to check). */
export function unverifiedGeneration(caller: Caller): number | null {
  const state = handedOut.get(caller);
  return state && !state.checked ? state.gen : null;
}

/** Marks a caller from memory as checked (its check is part of a statement about to run). */
export function markChecked(caller: Caller): void {
  const state = handedOut.get(caller);
  if (state) state.checked = true;
}

/** Throws when a caller from memory reached the end of a request unchecked: a route's bug, never a client's. */
export function assertChecked(caller: Caller | null, route: string): void {
  if (caller && unverifiedGeneration(caller) !== null) {
    throw new Error(`${route} answered with a remembered caller its writes never checked (auth.ts callerCheck or verifyCaller)`);
  }
}
