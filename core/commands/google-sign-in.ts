/**
 * Google sign-in as one command: the account of the Google identity (by Google's stable `sub`,
 * else by e-mail), created when there is none. Linking Google to an account whose e-mail was
 * never verified takes back what whoever registered the address first could hold (account
 * pre-hijacking): the password and every session (accounts.ts linkGoogleAccount), and the team
 * of a workspace the account owns: its other members were let in by someone who had not proven
 * the address, so they are removed (open conversations unassigned, connections closed) and the
 * real owner invites again those they know. The workspace and its data stay the owner's.
 */
import type { Queryable } from '../adapters/postgres/db.ts';
import { z } from 'zod';
import { sql } from '../adapters/postgres/db.ts';
import type { GoogleIdentity } from '../adapters/google.ts';
import type { PendingEvent } from '../events/live.ts';
import { findUserByEmail, findUserByGoogleSub, insertUser, linkGoogleAccount } from './accounts.ts';
import type { AfterCommit } from './run-command.ts';
import { removeMember } from './team.ts';
import { withoutHiddenCharacters } from '../domain/display-names.ts';

export async function googleSignIn(tx: Queryable, identity: GoogleIdentity): Promise<{ userId: string; generation: number } & AfterCommit> {
  // Google's `sub` is the stable identity (the address of a Google account can change); the
  // e-mail links a Google sign-in to an account registered with a password.
  const findExisting = async () => (await findUserByGoogleSub(tx, identity.sub)) ?? (await findUserByEmail(tx, identity.email));
  const existing = await findExisting();
  if (existing) return link(tx, existing.id, identity);
  const created = await insertUser(tx, {
    email: identity.email,
    fullName: (withoutHiddenCharacters(identity.name ?? '').trim() || identity.email.split('@')[0]).slice(0, 100),
    passwordHash: null,
    isVerified: true,
    isGoogle: true,
    googleSub: identity.sub,
    avatarUrl: identity.picture,
  });
  if (created) return { userId: created.id, generation: created.token_generation };
  // Created concurrently by another request: sign that account in.
  const raced = await findExisting();
  if (!raced) throw new Error('Google account neither inserted nor found');
  return link(tx, raced.id, identity);
}

async function link(tx: Queryable, userId: string, identity: GoogleIdentity): Promise<{ userId: string; generation: number } & AfterCommit> {
  const linked = await linkGoogleAccount(tx, userId, identity);
  if (linked.wasVerified) return { userId, generation: linked.generation };
  const others = await tx.any(sql.type(z.object({ id: z.string(), business_id: z.string() }))`
    select m.id, m.business_id from team_members m
    join team_members o on o.business_id = m.business_id and o.user_id = ${userId} and o.role = 'owner'
    where m.user_id <> ${userId}
    order by m.id`);
  const events: PendingEvent[] = [];
  const disconnectRooms = [...(linked.disconnectRooms ?? [])];
  for (const member of others) {
    const removed = await removeMember(tx, { businessId: member.business_id, memberId: member.id });
    events.push(...(removed.events ?? []));
    disconnectRooms.push(...(removed.disconnectRooms ?? []));
  }
  return { userId, generation: linked.generation, events, disconnectRooms };
}
