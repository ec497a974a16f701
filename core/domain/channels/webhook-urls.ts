/**
 * Where a platform posts to Parley, from its connector's webhook mode: a `shared` endpoint per
 * type (routed by the ids inside the payload), or one per channel with the channel id in the path.
 */
import { connectorFor } from '../../../connectors/index.ts';

/** The public path of a type's webhook: the shared one, or one channel's (`channelId` may be the route's `:channel_id`). */
export const webhookPath = (type: string, channelId?: string): string =>
  channelId === undefined ? `/api/v1/webhooks/${type}` : `/api/v1/webhooks/${type}/${channelId}`;

/** The channel's webhook URL; null for types no platform posts to (webchat, widget). */
export function webhookUrl(publicUrl: string, type: string, channelId: string): string | null {
  const webhook = connectorFor(type).webhook;
  if (!webhook) return null;
  return publicUrl.replace(/\/+$/, '') + webhookPath(type, webhook.mode === 'shared' ? undefined : channelId);
}
