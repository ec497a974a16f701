/**
 * X DM media (fetch_attachment): a photo, video or GIF a customer sends in a direct message is
 * linked in the event as `media_url_https` on ton.twitter.com, which serves it only to a GET
 * signed with OAuth 1.0a as the receiving account (the channel's consumer keys and user tokens).
 * twitter-api-v2's own OAuth1Helper signs; the bytes are then streamed like any other download.
 * The signed request goes only to X's media host (or the configured X_API_URL's origin: fakes).
 */
import { lazyModule } from '../../lib/lazy-module.ts';
import { assertPlatformUrl, downloadMedia } from '../media.ts';
import { ConnectorError, type ConnectorContext, type InboundAttachment, type MediaDownload } from '../types.ts';
import type { XCredentials } from './client.ts';

/** The signer alone (one file of twitter-api-v2, which has no exports map), loaded on first use. */
const oauth1 = lazyModule(() => import('twitter-api-v2/dist/cjs/client-mixins/oauth1.helper.js'));

/** Hosts X serves DM media from. */
const X_MEDIA_HOSTS = ['ton.twitter.com', 'ton.x.com'];

export async function fetchXMedia(config: XCredentials, attachment: InboundAttachment, context: Pick<ConnectorContext, 'baseUrl'>): Promise<MediaDownload> {
  if (!attachment.url) throw new ConnectorError('permanent', 'X sent no media URL');
  const url = assertPlatformUrl('X', attachment.url, X_MEDIA_HOSTS, context.baseUrl).toString();
  const { OAuth1Helper } = await oauth1.load();
  const signer = new OAuth1Helper({ consumerKeys: { key: config.api_key, secret: config.api_secret } });
  const signed = signer.authorize({ url, method: 'GET' }, { key: config.access_token, secret: config.access_token_secret });
  return downloadMedia('X', url, { authorization: signer.toHeader(signed).Authorization }, describeXError);
}

/** X's error body: v2 problem `{detail}` or v1.1 `{errors: [{message}]}`. */
function describeXError(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const value = body as { detail?: unknown; errors?: { message?: unknown }[] };
  const message = value.detail ?? (Array.isArray(value.errors) ? value.errors[0]?.message : undefined);
  return typeof message === 'string' && message !== '' ? message : undefined;
}
