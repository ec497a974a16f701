/** A channel as workers and webhooks use it: its row with the config decrypted (core/commands/channel-runtime.ts reads it). */
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
