/**
 * Channels: create, update, delete, and load with the decrypted config. The whole config is
 * sealed in `config_encrypted` (core/crypto.ts); only what inbound routing needs is kept in
 * plain columns (`routing_key`, `verify_token`). Platform registration is never done here:
 * it runs as the `register_channel` job, enqueued in the same transaction as the row.
 */
import { UniqueIntegrityConstraintViolationError } from 'slonik';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { badRequest, notFound } from '../errors.ts';
import { enqueue } from '../jobs.ts';
import { assertMayAddChannel } from '../domain/plans.ts';
import { channelColumns, channelRow, sealChannelConfig, tryReadChannelConfig, type ChannelRow } from '../domain/channels/channel-row.ts';
import { checkHost, HostRefusedError, type HostRules } from '../../lib/host-safety.ts';
import { hostConfigFields, normalizeChannelConfig, routingOf, type ChannelConfig } from '../domain/channels/channel-config.ts';
import { connectorFor, isChannelType } from '../../connectors/index.ts';
import type { AfterCommit } from './run-command.ts';
import { assertTeamOfBusiness } from './teams.ts';

const enqueueRegistration = (tx: Queryable, channelId: string) => enqueue(tx, 'register_channel', { channel_id: channelId });

/** The decrypted config; throws DecryptError when the key changed or the value was altered. */
export async function findChannel(q: Queryable, businessId: string, channelId: string, options: { lock?: boolean } = {}): Promise<ChannelRow | null> {
  return options.lock
    ? q.maybeOne(sql.type(channelRow)`select ${channelColumns} from channels where id = ${channelId} and business_id = ${businessId} for update`)
    : q.maybeOne(sql.type(channelRow)`select ${channelColumns} from channels where id = ${channelId} and business_id = ${businessId}`);
}

/** The business's channels, oldest first (the built-in webchat channel comes first). */
export async function listChannels(q: Queryable, businessId: string, options: { activeOnly?: boolean } = {}): Promise<readonly ChannelRow[]> {
  return q.any(sql.type(channelRow)`
    select ${channelColumns} from channels
    where business_id = ${businessId} and (is_active or ${!options.activeOnly})
    order by is_builtin desc, created_at, id`);
}

function parseChannelType(value: string): string {
  if (!isChannelType(value)) throw badRequest('Invalid channel type');
  return value;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function assertWidgetOfBusiness(q: Queryable, businessId: string, widgetId: string): Promise<void> {
  const found = uuidPattern.test(widgetId) && (await q.exists(sql.unsafe`select 1 from widgets where id = ${widgetId} and business_id = ${businessId}`));
  if (!found) throw badRequest('Widget not found');
}

/** Config fields naming a widget (the connector's field specs say which) must name one of the business. */
async function assertWidgetsOfBusiness(q: Queryable, businessId: string, type: string, config: ChannelConfig): Promise<void> {
  for (const field of connectorFor(type).config) {
    if (field.widget) await assertWidgetOfBusiness(q, businessId, config[field.key]);
  }
}

/** Why a second channel may not take a platform account: one channel per account across all businesses. */
export const accountTakenReason = (type: string): string => connectorFor(type).duplicateAccountMessage;

const routingTaken = (type: string) => badRequest(accountTakenReason(type));

/**
 * True when another channel of the type holds the routing key (a platform account) and proved it
 * (its registration showed the platform accepts its credentials for the account). Unproven,
 * inactive or failed channels of the account hold nothing.
 */
export async function routingKeyHeldElsewhere(q: Queryable, type: string, routingKey: string, channelId: string): Promise<boolean> {
  return q.exists(sql.unsafe`
    select 1 from channels where type = ${type} and routing_key = ${routingKey} and routing_proven and id <> ${channelId}`);
}

/**
 * Refuses server hosts in a client's config (`smtp_host`, `imap_host`) that are or resolve to
 * internal addresses: 400 naming each field, before anything is stored. Called before the
 * transaction, so no lock waits on DNS. A name that does not resolve is accepted here (creation
 * never fails on a platform being unreachable): registration reports it, and every connection
 * resolves and checks the host again.
 */
export async function assertConfigHostsAllowed(config: Record<string, unknown> | undefined, rules: HostRules): Promise<void> {
  const problems: string[] = [];
  for (const field of hostConfigFields) {
    const value = config?.[field];
    if (typeof value !== 'string' || value.trim() === '') continue;
    try {
      await checkHost(value, rules);
    } catch (error) {
      if (!(error instanceof HostRefusedError)) throw error;
      if (!error.unresolved) problems.push(`${field} (${error.message})`);
    }
  }
  if (problems.length > 0) throw badRequest(`Invalid config fields: ${problems.join(', ')}`);
}

export type CreateChannelInput = {
  businessId: string;
  /** Checked here: an unknown type is 400 `Invalid channel type`. */
  type: string;
  /** Raw config from the client; normalized by core/domain/channels/channel-config.ts from the connector's field specs. */
  config: Record<string, unknown>;
  isActive: boolean;
};

/** A channel as a write left it; the webhook routing lookups cached in this process are stale after it. */
export type ChannelChange = { channel: ChannelRow } & AfterCommit;
const changed = (channel: ChannelRow): ChannelChange => ({ channel, forget: ['channels'] });

/**
 * Creates a channel in the caller's transaction. Checks in order: type (400), plan (402),
 * config (400), widget ownership (400), routing key unused (400). Platform channels start
 * `pending` with a `register_channel` job; internal ones (webchat, widget: Parley is the
 * platform) start `connected` without one. (Workers read channels through core/commands/channel-runtime.ts.)
 */
export async function createChannel(tx: Queryable, key: Uint8Array, input: CreateChannelInput): Promise<ChannelChange> {
  const type = parseChannelType(input.type);
  await assertMayAddChannel(tx, input.businessId, type);
  const config = normalizeChannelConfig(type, input.config);
  await assertWidgetsOfBusiness(tx, input.businessId, type, config);
  const { routingKey, verifyToken } = routingOf(type, config);
  const internal = connectorFor(type).internal === true;
  // A platform account is taken only by a channel that proved it; an internal channel (a widget:
  // Parley is the platform) proves it by being created.
  if (routingKey && !internal && (await routingKeyHeldElsewhere(tx, type, routingKey, '00000000-0000-0000-0000-000000000000'))) throw routingTaken(type);
  const row = await tx.maybeOne(sql.type(channelRow)`
    insert into channels (business_id, type, config_encrypted, routing_key, verify_token, is_active, status, routing_proven)
    values (${input.businessId}, ${type}, ${sealChannelConfig(key, config)}, ${routingKey}, ${verifyToken}, ${input.isActive},
            ${internal ? 'connected' : 'pending'}, ${internal && routingKey !== null})
    on conflict (type, routing_key) where routing_key is not null and routing_proven do nothing
    returning ${channelColumns}`);
  if (!row) throw routingTaken(type);
  if (!internal) await enqueueRegistration(tx, row.id);
  return changed(row);
}

export type UpdateChannelInput = {
  type?: string;
  /** Merged into the stored config (same type): given keys replace, `null` removes a key. */
  config?: Record<string, unknown>;
  isActive?: boolean;
  /** The team new conversations on the channel start in; null: none; undefined keeps it. 400 `Team not found` for another business's. */
  defaultTeamId?: string | null;
};

function mergeConfig(base: ChannelConfig, patch: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete merged[k];
    else merged[k] = v;
  }
  return merged;
}

const keepWebhookSecret = sql.fragment`jsonb_strip_nulls(jsonb_build_object('webhook_secret', state->'webhook_secret'))`;

const sameConfig = (a: ChannelConfig, b: ChannelConfig) => Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

/**
 * Updates a channel of the business (404 otherwise) under the create rules. A new type
 * starts from an empty config (the old type's fields mean nothing to it). A changed config
 * or type resets the connector state (offsets belong to the old account; only the channel's
 * own webhook secret is kept), sets `pending` and enqueues `register_channel` again;
 * so does re-activating an inactive platform channel. The built-in webchat channel keeps
 * its type and stays active.
 */
export async function updateChannel(tx: Queryable, key: Uint8Array, businessId: string, channelId: string, input: UpdateChannelInput): Promise<ChannelChange> {
  const current = await findChannel(tx, businessId, channelId, { lock: true });
  if (!current) throw notFound('Channel not found');
  const type = input.type === undefined ? current.type : parseChannelType(input.type);
  const typeChanged = type !== current.type;
  if (current.is_builtin && typeChanged) throw badRequest('The built-in webchat channel cannot change type');
  if (current.is_builtin && input.isActive === false) throw badRequest('The built-in webchat channel cannot be deactivated');
  if (!current.is_builtin) await assertMayAddChannel(tx, businessId, type, { replacing: channelId });

  const stored = tryReadChannelConfig(key, current);
  let config = stored;
  if (typeChanged || input.config !== undefined || stored === null) {
    const base = typeChanged || stored === null ? {} : stored;
    config = normalizeChannelConfig(type, mergeConfig(base, input.config ?? {}));
  }
  const nextConfig = config ?? {};
  const configChanged = typeChanged || stored === null || !sameConfig(nextConfig, stored);
  if (configChanged) await assertWidgetsOfBusiness(tx, businessId, type, nextConfig);

  const isActive = input.isActive ?? current.is_active;
  if (input.defaultTeamId) await assertTeamOfBusiness(tx, businessId, input.defaultTeamId);
  const defaultTeamId = input.defaultTeamId === undefined ? current.default_team_id : input.defaultTeamId;
  const internal = connectorFor(type).internal === true;
  // Unchanged config keeps what registration may have learned (X's user id as routing key).
  const { routingKey, verifyToken } = configChanged ? routingOf(type, nextConfig) : { routingKey: current.routing_key, verifyToken: current.verify_token };
  const register = !internal && (configChanged || (isActive && !current.is_active));
  if (configChanged && routingKey && !internal && (await routingKeyHeldElsewhere(tx, type, routingKey, channelId))) throw routingTaken(type);
  try {
    const row = await tx.one(sql.type(channelRow)`
      update channels set
        type = ${type},
        config_encrypted = ${configChanged ? sealChannelConfig(key, nextConfig) : current.config_encrypted},
        routing_key = ${routingKey},
        verify_token = ${verifyToken},
        -- Other credentials prove nothing yet: registration proves them again.
        routing_proven = ${configChanged ? internal && routingKey !== null : sql.fragment`routing_proven`},
        is_active = ${isActive},
        default_team_id = ${defaultTeamId},
        status = ${register ? 'pending' : internal ? 'connected' : current.status},
        last_error = ${register || internal ? null : current.last_error},
        state = ${typeChanged ? sql.fragment`'{}'::jsonb` : configChanged ? keepWebhookSecret : sql.fragment`state`},
        updated_at = now()
      where id = ${channelId}
      returning ${channelColumns}`);
    if (register) await enqueueRegistration(tx, row.id);
    return changed(row);
  } catch (error) {
    if (error instanceof UniqueIntegrityConstraintViolationError) throw routingTaken(type);
    throw error;
  }
}

/**
 * Registers a platform channel with its platform again: "Reconnect" after an error fixed on
 * the platform's side (a restored token, an unblocked bot) without retyping credentials.
 * Sets `pending` without error and enqueues `register_channel`. Webchat and widget channels
 * have no platform (400); an inactive channel is reactivated through update instead (400).
 */
export async function reconnectChannel(tx: Queryable, businessId: string, channelId: string): Promise<ChannelChange> {
  const current = await findChannel(tx, businessId, channelId, { lock: true });
  if (!current) throw notFound('Channel not found');
  if (connectorFor(current.type).internal) throw badRequest('This channel has no platform to reconnect to');
  if (!current.is_active) throw badRequest('The channel is inactive: activate it to connect it again');
  const row = await tx.one(sql.type(channelRow)`
    update channels set status = 'pending', last_error = null, updated_at = now()
    where id = ${channelId}
    returning ${channelColumns}`);
  await enqueueRegistration(tx, row.id);
  return changed(row);
}

/** Deletes a channel of the business (404 otherwise); its conversations stay, with no channel. */
export async function deleteChannel(tx: Queryable, businessId: string, channelId: string): Promise<AfterCommit> {
  const current = await findChannel(tx, businessId, channelId, { lock: true });
  if (!current) throw notFound('Channel not found');
  if (current.is_builtin) throw badRequest('The built-in webchat channel cannot be deleted');
  await tx.query(sql.unsafe`delete from channels where id = ${channelId}`);
  return { forget: ['channels'] };
}
