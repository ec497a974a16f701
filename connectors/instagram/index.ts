/**
 * Instagram messaging connector (Instagram API with Instagram Login, plain fetch against Graph).
 * One webhook URL serves every Instagram channel: the route finds the channel by the event's
 * routingKey (the receiving account's id), then checks the signature with its app secret.
 */
import { ConnectorError, type WebhookConnector } from '../types.ts';
import { assertPlatformUrl, downloadMedia } from '../media.ts';
import { META_MEDIA_HOSTS } from '../whatsapp/index.ts';
import { checkGraphAccount, graphGet, completeMetaConfig, graphUrl, metaAfterConnect, metaSetupFields, metaWebhook, metaWebhookFields } from '../meta.ts';
import { parseInstagramWebhook } from './parse.ts';
import { sendInstagramMessage } from './send.ts';

export { verifyMetaSubscription, metaSignature } from '../meta.ts';
export { parseInstagramWebhook } from './parse.ts';

export type InstagramConfig = { access_token: string; instagram_business_account_id: string; verify_token?: string; app_secret?: string };

const instagram: WebhookConnector<InstagramConfig> = {
  type: 'instagram',
  label: 'Instagram',
  icon: { color: '#DB2777', path: 'M5 3h14a2 2 0 0 1 2 2v14a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2z M12 8a4 4 0 1 0 0 8 4 4 0 0 0 0-8z M17 6.5v.01' },
  titleField: 'instagram_business_account_id',
  config: [
    { key: 'access_token', required: true, secret: true, label: 'Access token' },
    { key: 'instagram_business_account_id', required: true, label: 'Instagram business account ID' },
    ...metaWebhookFields,
  ],
  normalize: { complete: completeMetaConfig },
  routing: (config) => ({ routingKey: config.instagram_business_account_id, verifyToken: config.verify_token }),
  duplicateAccountMessage: 'This Instagram account is already connected to a channel',
  webhook: metaWebhook('Instagram', (request) => parseInstagramWebhook(request.rawBody)),
  setupFields: metaSetupFields,
  setup: {
    intro:
      'From your Meta app: the Instagram business account id and a page access token. After connecting, set the callback URL and verify token shown here in the app\'s webhook settings and subscribe to "messages".',
    steps: [
      'In your Meta app, add Instagram messaging and copy the Instagram business account id and an access token.',
      'Copy the app secret (App settings → Basic), so Parley can check that webhooks come from Meta.',
      'After connecting, set the callback URL and verify token shown here in the app\'s webhook settings and subscribe to "messages".',
    ],
    afterConnect: metaAfterConnect,
  },
  baseUrl: { env: 'INSTAGRAM_GRAPH_URL', default: 'https://graph.instagram.com/v23.0', description: 'Instagram Graph API base URL' },
  send: (config, message, context) => sendInstagramMessage(config, message, context.baseUrl),
  // The webhook's attachment URL is a signed CDN link (lookaside.fbsbx.com): read as it is, no token
  // (the token goes to Graph only). It expires after a while: a late download fails for good.
  fetchMedia: async (_config, attachment, context) => {
    if (!attachment.url) throw new ConnectorError('permanent', 'Instagram sent no media URL');
    const url = assertPlatformUrl('Instagram', attachment.url, META_MEDIA_HOSTS, context.baseUrl);
    return downloadMedia('Instagram', url.toString());
  },
  // Messages carry only the IGSID: the User Profile API names the person once they have written
  // (their consent), `name` when they set one, else their `username`.
  customerName: async (config, igsid, context) => {
    const profile = (await graphGet('Instagram', `${graphUrl(context.baseUrl, igsid)}?fields=name,username`, config.access_token)) as {
      name?: unknown;
      username?: unknown;
    };
    const name = typeof profile?.name === 'string' && profile.name.trim() ? profile.name.trim() : null;
    const username = typeof profile?.username === 'string' && profile.username.trim() ? profile.username.trim() : null;
    return name ?? username;
  },
  register: (config, _input, context) =>
    checkGraphAccount('Instagram', `${graphUrl(context.baseUrl, config.instagram_business_account_id)}?fields=username`, config.access_token, ['username']),
};

export default instagram;
