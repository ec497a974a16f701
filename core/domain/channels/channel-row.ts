/**
 * The `channels` row, its one owner: the columns, the stored config's encryption, and the channel
 * as workers and webhooks use it (config decrypted). core/commands/channels.ts writes channels
 * through it, core/commands/channel-runtime.ts reads them for the workers through it.
 */
import { z } from 'zod';
import { sql } from '../../adapters/postgres/db.ts';
import { decryptJson, DecryptError, encryptJson } from '../../crypto.ts';
import type { ChannelConfig } from './channel-config.ts';
import { channelTypes } from '../../../connectors/index.ts';

export const channelRow = z.object({
  id: z.string(),
  business_id: z.string(),
  type: z.enum(channelTypes),
  is_builtin: z.boolean(),
  /** null when the config is empty (webchat). */
  config_encrypted: z.string().nullable(),
  routing_key: z.string().nullable(),
  verify_token: z.string().nullable(),
  is_active: z.boolean(),
  status: z.enum(['pending', 'connected', 'error']),
  last_error: z.string().nullable(),
  /** Connector state (offsets, webhook secrets): never shown to clients. */
  state: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  updated_at: z.string(),
  /** Conversations opened on the channel start in this team (null: none). */
  default_team_id: z.string().nullable(),
  /** Until when the platform asked that nothing be sent (a 429's Retry-After; migration 0125). */
  send_held_until: z.string().nullable(),
});
export type ChannelRow = z.infer<typeof channelRow>;

/** The columns channelRow reads; unqualified, for `from channels` and `returning`. */
export const channelColumns = sql.fragment`
  id, business_id, type, is_builtin, config_encrypted, routing_key, verify_token,
  is_active, status, last_error, state, created_at, updated_at, default_team_id, send_held_until`;

export function readChannelConfig(key: Uint8Array, row: Pick<ChannelRow, 'config_encrypted'>): ChannelConfig {
  return row.config_encrypted === null ? {} : decryptJson<ChannelConfig>(key, row.config_encrypted);
}

/** Like readChannelConfig, but null instead of throwing when the stored value cannot be read. */
export function tryReadChannelConfig(key: Uint8Array, row: Pick<ChannelRow, 'config_encrypted'>): ChannelConfig | null {
  try {
    return readChannelConfig(key, row);
  } catch (error) {
    if (error instanceof DecryptError) return null;
    throw error;
  }
}

/** The config as stored: encrypted, or null when empty (webchat). */
export const sealChannelConfig = (key: Uint8Array, config: ChannelConfig) => (Object.keys(config).length > 0 ? encryptJson(key, config) : null);

/** A channel of the business, or null (another business's id reads as missing). */
export type RuntimeChannel = {
  id: string;
  business_id: string;
  type: string;
  is_active: boolean;
  routing_key: string | null;
  /** The decrypted config (credentials included): never log it. */
  config: Record<string, string>;
  /** Connector state: polling offsets, webhook secret, platform user id. */
  state: Record<string, unknown>;
};

/** The columns runtimeChannelOf needs. */
export const runtimeChannelColumns = sql.fragment`id, business_id, type, is_active, routing_key, config_encrypted, state`;
export const runtimeChannelRow = channelRow.pick({
  id: true,
  business_id: true,
  type: true,
  is_active: true,
  routing_key: true,
  config_encrypted: true,
  state: true,
});

export const runtimeChannelOf = (key: Uint8Array, row: z.infer<typeof runtimeChannelRow>): RuntimeChannel => ({
  id: row.id,
  business_id: row.business_id,
  type: row.type,
  is_active: row.is_active,
  routing_key: row.routing_key,
  config: readChannelConfig(key, row),
  state: row.state,
});
