/**
 * Who the current request (or task) acts as, for the domain events its commands record: the
 * route sets the signed-in caller (api/route.ts) around its handler, so every command it runs
 * names them without each route passing an actor along. Outside a request: the system.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Actor } from './domain-types.ts';

const current = new AsyncLocalStorage<Actor>();

/** Runs `fn` with `actor` as the actor of the events its commands record. */
export const actingAs = <T>(actor: Actor, fn: () => Promise<T>): Promise<T> => current.run(actor, fn);

/** The actor set by the enclosing actingAs(), if any. */
export const currentActor = (): Actor | undefined => current.getStore();
