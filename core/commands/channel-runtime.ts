/** A channel as the workers and webhooks need it: its decrypted config and connector state. */
import { z } from 'zod';
import { UniqueIntegrityConstraintViolationError } from 'slonik';
import { prepared, sql, type Queryable } from '../adapters/postgres/db.ts';
import { cachedChannels } from '../domain/channels/channel-cache.ts';
import { runtimeChannelColumns, runtimeChannelOf, runtimeChannelRow, type RuntimeChannel } from '../domain/channels/channel-row.ts';
import { liveEvent, type LiveEvent } from '../events/catalogue.ts';

export async function loadChannel(q: Queryable, key: Uint8Array, channelId: string): Promise<RuntimeChannel | null> {
  const row = await q.maybeOne(prepared(sql.type(runtimeChannelRow)`select ${runtimeChannelColumns} from channels where id = ${channelId}`));
  return row ? runtimeChannelOf(key, row) : null;
}

/**
 * Active channels of a type whose routing key (phone_number_id, account id, X user id) matches:
 * the one that proved it holds the account when there is one (a stranger's unproven channel of
 * the same public id gets nothing), else the unproven ones (registration still running).
 */
export async function channelsByRoutingKey(q: Queryable, key: Uint8Array, type: string, routingKey: string): Promise<RuntimeChannel[]> {
  const rows = await q.any(
    prepared(sql.type(runtimeChannelRow.extend({ routing_proven: z.boolean() }))`
    select ${runtimeChannelColumns}, routing_proven from channels where type = ${type} and routing_key = ${routingKey} and is_active
    order by routing_proven desc, created_at, id`),
  );
  const proven = rows.filter((row) => row.routing_proven);
  return (proven.length ? proven : rows).map((row) => runtimeChannelOf(key, row));
}

/** channelsByRoutingKey through the short-lived cache of core/domain/channels/channel-cache.ts (shared webhook endpoints). */
export function cachedChannelsByRoutingKey(q: Queryable, key: Uint8Array, type: string, routingKey: string): Promise<RuntimeChannel[]> {
  return cachedChannels(`${type}:${routingKey}`, () => channelsByRoutingKey(q, key, type, routingKey));
}

/** Active channels of a type with this Meta verify token. */
export async function channelsByVerifyToken(q: Queryable, key: Uint8Array, type: string, verifyToken: string): Promise<RuntimeChannel[]> {
  const rows = await q.any(sql.type(runtimeChannelRow)`
    select ${runtimeChannelColumns} from channels where type = ${type} and verify_token = ${verifyToken} and is_active`);
  return rows.map((row) => runtimeChannelOf(key, row));
}

export async function activeChannelsOfType(q: Queryable, key: Uint8Array, type: string): Promise<RuntimeChannel[]> {
  const rows = await q.any(sql.type(runtimeChannelRow)`select ${runtimeChannelColumns} from channels where type = ${type} and is_active order by created_at`);
  return rows.map((row) => runtimeChannelOf(key, row));
}

/** Merges keys into the channel's connector state. */
export async function updateChannelState(q: Queryable, channelId: string, patch: Record<string, unknown>): Promise<void> {
  await q.query(sql.unsafe`update channels set state = state || ${sql.jsonb(patch as never)}, updated_at = now() where id = ${channelId}`);
}

export type ChannelStatus = 'pending' | 'connected' | 'error';

/** `channel_updated`: the channel changed (its status, or what its card shows); dashboards reload it. */
export const channelUpdated = (channel: { id: string; business_id: string }, status: ChannelStatus, at = new Date().toISOString()): LiveEvent =>
  liveEvent('channel_updated', { channel_id: channel.id, business_id: channel.business_id, status, at });

/**
 * Records what the platform said about a channel (registration, a refused poll, a failed
 * attempt): its status, the reason when it is not connected (cleared when it is), connector
 * state to keep and the platform account it turned out to be. Returns the `channel_updated`
 * event to publish.
 */
export async function setChannelStatus(
  q: Queryable,
  channel: { id: string; business_id: string },
  outcome: { status: ChannelStatus; lastError?: string | null; state?: Record<string, unknown>; routingKey?: string | null },
): Promise<LiveEvent> {
  await q.query(sql.unsafe`
    update channels set
      status = ${outcome.status},
      last_error = ${outcome.status === 'connected' ? null : ((outcome.lastError ?? null)?.slice(0, 1000) ?? null)},
      state = state || ${sql.jsonb((outcome.state ?? {}) as never)},
      routing_key = coalesce(${outcome.routingKey ?? null}, routing_key),
      updated_at = now()
    where id = ${channel.id}`);
  return channelUpdated(channel, outcome.status);
}

/**
 * The channel's registration proved it holds the platform account `routingKey`: the account is
 * now the channel's alone (false when another channel proved it first), and every other channel
 * naming the account without having proved it ends in `error` saying why. Returns the
 * `channel_updated` events of those channels.
 */
export async function proveAccount(
  q: Queryable,
  channel: { id: string; type: string },
  routingKey: string,
  displacedReason: string,
): Promise<{ proven: boolean; events: LiveEvent[] }> {
  try {
    await q.query(sql.unsafe`update channels set routing_key = ${routingKey}, routing_proven = true where id = ${channel.id}`);
  } catch (error) {
    if (error instanceof UniqueIntegrityConstraintViolationError) return { proven: false, events: [] };
    throw error;
  }
  const displaced = await q.any(sql.type(z.object({ id: z.string(), business_id: z.string() }))`
    update channels set status = 'error', last_error = ${displacedReason}, updated_at = now()
    where type = ${channel.type} and routing_key = ${routingKey} and not routing_proven and id <> ${channel.id}
    returning id, business_id`);
  const at = new Date().toISOString();
  return { proven: true, events: displaced.map((c) => channelUpdated(c, 'error', at)) };
}
