/**
 * Where each platform posts to Parley. WhatsApp, Instagram and X share one endpoint per type
 * and are routed by the ids inside the payload; the others carry the channel id in the path.
 */
const sharedEndpointTypes = new Set(['whatsapp', 'instagram', 'x']);

export function webhookUrl(publicUrl: string, type: string, channelId: string): string {
  const base = `${publicUrl.replace(/\/+$/, '')}/api/v1/webhooks/${type}`;
  return sharedEndpointTypes.has(type) ? base : `${base}/${channelId}`;
}
