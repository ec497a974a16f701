/**
 * A short-lived, per-process cache of the active channels a shared webhook endpoint (WhatsApp,
 * Instagram, X) routes to, decrypted: a busy number's webhooks no longer read and decrypt the
 * channel on every request. Entries live CHANNEL_CACHE_TTL_MS; any channel created, changed or
 * deleted through this process clears the cache at once, other processes see the change within
 * the TTL (a webhook signed with a just-rotated secret is refused with 401 for that long, and
 * the platform retries). Empty results are not cached, so a new channel is found at once.
 * Storing re-checks the channel in the same statement, so a deleted channel stores nothing.
 */
import type { RuntimeChannel } from './channel-row.ts';

/** How long a lookup is reused, in ms. */
export const CHANNEL_CACHE_TTL_MS = 5_000;

const entries = new Map<string, { channels: RuntimeChannel[]; expires: number }>();

/** The cached channels for `key`, else what `load` finds (cached when not empty). */
export async function cachedChannels(key: string, load: () => Promise<RuntimeChannel[]>): Promise<RuntimeChannel[]> {
  const now = Date.now();
  const hit = entries.get(key);
  if (hit && hit.expires > now) return hit.channels;
  const channels = await load();
  if (channels.length > 0) entries.set(key, { channels, expires: now + CHANNEL_CACHE_TTL_MS });
  else entries.delete(key);
  return channels;
}

/** Forgets every cached lookup: call after a channel is created, changed or deleted. */
export function forgetCachedChannels(): void {
  entries.clear();
}
