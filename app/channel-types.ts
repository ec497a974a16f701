/**
 * The channel types this server knows, as its connectors describe them
 * (GET /api/v1/channel-types): names, icons, connect forms and setup steps all come from
 * there, so a new connector on the server needs no change in the app. Loaded once per
 * signed-in session; until it arrives a type shows as its bare name with a neutral icon.
 */
import { signal } from '@preact/signals';
import { api } from './api.ts';
import type { Channel, ChannelTypeInfo } from './types.ts';

export const channelTypes = signal<ChannelTypeInfo[]>([]);

let loading: Promise<void> | null = null;

export function loadChannelTypes(): Promise<void> {
  loading ??= api.get<{ items: ChannelTypeInfo[] }>('/api/v1/channel-types').then(
    (body) => {
      channelTypes.value = body.items;
    },
    (error: unknown) => {
      loading = null; // try again with the next session load
      throw error;
    },
  );
  return loading;
}

export const channelTypeInfo = (type: string): ChannelTypeInfo | undefined => channelTypes.value.find((t) => t.type === type);

export const channelLabel = (type: string): string => channelTypeInfo(type)?.label ?? type;

/** A value of a channel named by a setup step's `source` (`webhook_url`, `config.verify_token`, `inbound_webhook.secret`). */
export function channelValue(channel: Channel, source: string): string | null {
  let value: unknown = channel;
  for (const part of source.split('.')) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  return typeof value === 'string' && value !== '' ? value : null;
}
